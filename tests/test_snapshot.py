"""The snapshot `svc stamp` writes (.svc/snapshot.bin) and `svc serve` opens: used only when it matches the data.

Every case runs the real CLI and a real server: the answers served from a
snapshot are the answers served from the JSON files, and a snapshot that is
missing, stale, damaged, truncated or of another format is never used — the
server says so once, as a WARNING naming `svc stamp`, and serves the JSON.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import struct
import time
import urllib.request
import zlib
from pathlib import Path

import pytest

from catalog.domain import dates, engine, snapshot
from catalog.domain.all_records import AllRecordsQuery, RecordsWithIndex, all_records_index, search_all_records
from catalog.domain.ledger import LEDGER_PATH, read_view
from catalog.domain.loader import load_catalog
from catalog.domain.record_search import ProjectRecordIndex, RecordQuery, build_record_indexes, search_records
from catalog.publishing.changes import stamp_release
from catalog.runtime import with_ledger
from svc_site.middleware import DATA_VERSION_HEADER
from tests.conftest import SAMPLE_DIR, run_svc, start_server, stop_server

SHORTCODE = "08A1"  # the sample project with the most records
RECORDS = Path("records") / f"{SHORTCODE}-records.json"
USED = "(records from its snapshot)"
NOT_USED = "snapshot not used"
PATHS = (
    f"/projects/{SHORTCODE}/records",
    f"/projects/{SHORTCODE}/records?q=urkunde+chur",
    f"/projects/{SHORTCODE}/records?q=bischof&sort=newest&page=2",
    f"/projects/{SHORTCODE}/records?sort=label-desc",
    f"/projects/{SHORTCODE}/records?q=zzzznothing",
    f"/api/v2/projects/{SHORTCODE}",
    "/records?q=urkunde&sort=newest&page=2",
    "/api/v2/records?q=chur&sort=label",
)


@pytest.fixture(scope="module")
def stamped_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data_dir = tmp_path_factory.mktemp("snapshot") / "data"
    shutil.copytree(SAMPLE_DIR, data_dir)
    result = run_svc("stamp", "--activate-in", "0", str(data_dir))
    assert result.returncode == 0, result.stderr
    return data_dir


@pytest.fixture
def data_dir(stamped_dir: Path, tmp_path: Path) -> Path:
    """A stamped copy of the sample data (file times kept) that a test may change."""
    copy = tmp_path / "data"
    shutil.copytree(stamped_dir, copy)
    return copy


def get(url: str) -> tuple[int, bytes, str | None]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read(), response.headers.get(DATA_VERSION_HEADER)
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers.get(DATA_VERSION_HEADER)


def answers(data_dir: Path, paths: tuple[str, ...] = PATHS) -> tuple[list[tuple[int, bytes, str | None]], str]:
    """Each path's status, body (its own origin left out) and data version, and the server's output."""
    server = start_server(data_dir)
    try:
        found = [get(server.base_url + path) for path in paths]
        found = [(status, body.replace(server.base_url.encode(), b""), version) for status, body, version in found]
    finally:
        output = stop_server(server)
    return found, output


def snapshot_warnings(output: str) -> list[str]:
    return [line for line in output.splitlines() if NOT_USED in line]


@pytest.mark.slow
def test_serving_from_the_snapshot_answers_as_serving_from_json(stamped_dir: Path, tmp_path: Path) -> None:
    from_snapshot, output = answers(stamped_dir)
    assert USED in output and snapshot_warnings(output) == []

    unstamped = tmp_path / "data"
    shutil.copytree(stamped_dir, unstamped)
    (unstamped / snapshot.SNAPSHOT_PATH).unlink()
    from_json, json_output = answers(unstamped)
    assert USED not in json_output

    assert from_snapshot == from_json
    assert [status for status, _, _ in from_snapshot] == [200] * len(PATHS)
    assert {version for _, _, version in from_snapshot} == {load_catalog(stamped_dir).data_version}


@pytest.mark.slow
def test_without_a_snapshot_one_warning_names_svc_stamp(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    shutil.copytree(SAMPLE_DIR, data_dir)
    [(status, _, _)], output = answers(data_dir, (f"/projects/{SHORTCODE}/records?q=urkunde",))
    assert status == 200
    [warning] = snapshot_warnings(output)
    assert "WARN" in warning and "there is no snapshot" in warning and f"svc stamp {data_dir}" in warning


def _rewrite_records(data_dir: Path, keep: slice) -> None:
    path = data_dir / RECORDS
    path.write_text(json.dumps(json.loads(path.read_text())[keep]))


@pytest.mark.slow
def test_changed_data_is_served_from_json_not_from_the_stale_snapshot(data_dir: Path) -> None:
    _rewrite_records(data_dir, slice(0, 10))
    [(status, body, version)], output = answers(data_dir, (f"/projects/{SHORTCODE}/records",))
    [warning] = snapshot_warnings(output)
    assert f"the data changed since it was written ({RECORDS.as_posix()})" in warning
    assert version == load_catalog(data_dir).data_version
    assert status == 200 and b"The 10 records of the research project" in body


@pytest.mark.slow
def test_same_sizes_other_contents_is_stale(data_dir: Path) -> None:
    path = data_dir / RECORDS
    text = path.read_text()
    path.write_text(text.replace("Urkunde 002", "Urkunde 003", 1))
    assert path.stat().st_size == len(text.encode())
    _, output = answers(data_dir, ("/healthz",))
    [warning] = snapshot_warnings(output)
    assert "same sizes, other contents" in warning


@pytest.mark.slow
def test_a_copy_with_new_file_times_still_uses_the_snapshot(data_dir: Path) -> None:
    for path in (data_dir / "records").iterdir():
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    _, output = answers(data_dir, ("/healthz",))
    assert USED in output and snapshot_warnings(output) == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda raw: raw[: len(raw) // 2], "is truncated or has extra bytes"),
        (lambda raw: raw[:10], "is truncated"),
        (lambda raw: raw[:200] + bytes([raw[200] ^ 1]) + raw[201:], "is damaged (checksum mismatch)"),
        (lambda raw: raw[:8] + (99).to_bytes(4, "little") + raw[12:], "has format 99, this svc reads format 3"),
        (lambda raw: b"not a snapshot" + raw[14:], "is not an svc snapshot"),
    ],
    ids=["half", "ten-bytes", "bit-flip", "other-format", "other-file"],
)
def test_a_broken_snapshot_is_never_served(data_dir: Path, damage, reason: str) -> None:
    path = data_dir / snapshot.SNAPSHOT_PATH
    path.write_bytes(damage(path.read_bytes()))
    [(status, body, _)], output = answers(data_dir, (f"/projects/{SHORTCODE}/records?q=urkunde",))
    [warning] = snapshot_warnings(output)
    assert reason in warning
    assert status == 200 and b"Urkunde" in body
    assert "Traceback" not in output


def test_a_snapshot_of_another_svc_version_is_not_used(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(snapshot, "svc_version", lambda: "0.0.0-other")
    with caplog.at_level(logging.WARNING, logger="catalog.domain.snapshot"):
        catalog = snapshot.open_catalog(data_dir)
    [warning] = [record.getMessage() for record in caplog.records]
    assert "was written by svc" in warning and "this is svc 0.0.0-other" in warning
    assert catalog.data_version == load_catalog(data_dir).data_version


def test_validate_needs_no_snapshot(data_dir: Path) -> None:
    (data_dir / snapshot.SNAPSHOT_PATH).write_bytes(b"garbage")
    result = run_svc("validate", str(data_dir))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "snapshot" not in result.stdout + result.stderr


def test_a_dry_run_writes_no_snapshot(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    shutil.copytree(SAMPLE_DIR, data_dir)
    assert run_svc("stamp", "--dry-run", str(data_dir)).returncode == 0
    assert not (data_dir / snapshot.SNAPSHOT_PATH).exists()


def test_a_refused_stamp_leaves_the_snapshot_and_no_temporary_file(data_dir: Path) -> None:
    """The snapshot is written by another process while the stamp reads the records: a failure stops both."""

    def files() -> dict[str, bytes | str]:
        # The search index is a directory behind the link .svc/search: the link's target stands for it.
        return {
            path.name: os.readlink(path) if path.is_symlink() else path.read_bytes() if path.is_file() else "dir"
            for path in (data_dir / ".svc").iterdir()
        }

    before = files()
    records = data_dir / RECORDS
    records.write_text(records.read_text(encoding="utf-8")[:-200], encoding="utf-8")  # a half-copied file
    result = run_svc("stamp", "--activate-in", "0", str(data_dir))
    assert result.returncode != 0
    assert RECORDS.name in result.stderr
    assert files() == before


@pytest.mark.slow
def test_a_reload_opens_the_new_snapshot(data_dir: Path) -> None:
    server = start_server(data_dir)
    try:
        _rewrite_records(data_dir, slice(0, 1000))
        assert run_svc("stamp", "--activate-in", "0", str(data_dir)).returncode == 0
        server.process.send_signal(signal.SIGHUP)
        expected = load_catalog(data_dir).data_version
        server.wait_for_output(f"reloaded data version {expected}")
        deadline = time.monotonic() + 120
        while (answer := get(server.base_url + f"/projects/{SHORTCODE}/records"))[2] != expected:
            assert time.monotonic() < deadline, "the old workers never stopped"  # they finish, then exit
            time.sleep(0.1)
        status, body, _ = answer
    finally:
        output = stop_server(server)
    assert output.count(USED) == 2 and snapshot_warnings(output) == []
    assert status == 200 and b"The 1000 records of the research project" in body


def test_every_record_table_and_index_equals_the_json_one(data_dir: Path) -> None:
    (data_dir / "records" / "08A2-records.json").write_text("[]")  # an empty records file stays an empty table
    assert run_svc("stamp", str(data_dir)).returncode == 0
    mapped, loaded = snapshot.open_catalog(data_dir), load_catalog(data_dir)
    assert mapped.data_version == loaded.data_version
    assert list(mapped.records) == list(loaded.records) and len(mapped.records["08a2"]) == 0
    mapped_indexes = build_record_indexes(mapped.records)
    search_engine = engine.build_temporary(loaded)
    assert mapped.records["08a1"].earliest_published() == "2015-03-02"
    for key, table in loaded.records.items():
        other = mapped.records[key]
        assert [other.document(i) for i in range(len(other))] == [table.document(i) for i in range(len(table))]
        assert (list(other.pids), list(other.ids), other.datestamps) == (
            list(table.pids),
            list(table.ids),
            table.datestamps,
        )
        assert other.earliest_published() == dates.earliest_record_published(table)  # stored, not scanned
        index = ProjectRecordIndex.build(table)
        for text in ("", "urkunde", "chur 8", "zzzz"):
            for sort in RecordQuery.SORTS:
                query = RecordQuery(text=text, sort=sort)
                scores = search_engine.record_scores(query.parsed, key) if text else None
                expected = search_records(index, query, scores)
                assert search_records(mapped_indexes[key], query, scores) == expected, (key, text, sort)


def test_a_sound_file_with_a_header_of_another_layout_is_not_used(
    data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Checksum and format number right, header not what this svc writes: rejected whole, not a crash."""
    path = data_dir / snapshot.SNAPSHOT_PATH
    raw = path.read_bytes()
    prelude = struct.Struct("<8sIIQQI")  # the layout docs/snapshot.md gives
    magic, format_number, _, body_length, _, _ = prelude.unpack_from(raw)
    body = raw[snapshot.PRELUDE_SIZE : snapshot.PRELUDE_SIZE + body_length]
    header = json.dumps({"svc": snapshot.svc_version(), "projects": {"08a1": {}}}).encode()
    checksum = zlib.crc32(body + header)
    new_prelude = prelude.pack(magic, format_number, 0, body_length, len(header), checksum)
    path.write_bytes(new_prelude.ljust(snapshot.PRELUDE_SIZE, b"\0") + body + header)
    with caplog.at_level(logging.WARNING, logger="catalog.domain.snapshot"):
        catalog = snapshot.open_catalog(data_dir)
    [warning] = [record.getMessage() for record in caplog.records]
    assert "does not have the layout of format 3" in warning
    assert catalog.record_count == load_catalog(data_dir).record_count


# The catalogue part (.svc/snapshot-catalog.bin): the ledger's view, stored by svc stamp.


def _withdraw_some(data_dir: Path) -> None:
    """Withdraw a project and some records, and stamp: the ledger then holds tombstones of both kinds."""
    _rewrite_records(data_dir, slice(0, 900))
    project = next(path for path in (data_dir / "projects").iterdir() if path.name.startswith("1204"))
    project.unlink()
    (data_dir / "records" / f"{project.name.split('_')[0]}-records.json").unlink(missing_ok=True)
    result = run_svc("stamp", "--activate-in", "0", str(data_dir))
    assert result.returncode == 0, result.stderr


def test_the_stored_ledger_view_is_the_one_read_from_the_ledger(data_dir: Path, caplog) -> None:
    _withdraw_some(data_dir)
    with caplog.at_level(logging.WARNING, logger="catalog.domain.snapshot"):
        stored = snapshot.open_catalog(data_dir).ledger
    assert caplog.records == []
    read = read_view(load_catalog(data_dir))
    assert stored is not None and read is not None
    assert {t.kind for t in read.tombstones} == {"P", "R"}
    assert stored == read


def test_a_ledger_changed_after_stamping_is_read_again(data_dir: Path, caplog) -> None:
    path = data_dir / LEDGER_PATH
    lines = path.read_text().splitlines(keepends=True)
    first_time = lines[1].split("\t")[3]
    lines[1] = lines[1].replace(f"\t{first_time}\t", f"\t{int(first_time) - 1}\t", 1)
    path.write_text("".join(lines))
    with caplog.at_level(logging.WARNING, logger="catalog.domain.snapshot"):
        catalog = snapshot.open_catalog(data_dir)
    [warning] = [record.getMessage() for record in caplog.records]
    assert "catalogue part not used" in warning and "changed since `svc stamp`" in warning
    assert catalog.ledger is None  # the runtime reads the ledger itself, as without a snapshot
    assert with_ledger(catalog).ledger == read_view(load_catalog(data_dir))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda part: part.unlink(), "there is no catalogue part"),
        (lambda part: part.write_bytes(part.read_bytes()[:-1]), "is truncated or has extra bytes"),
    ],
    ids=["missing", "truncated"],
)
def test_without_a_sound_catalogue_part_the_ledger_is_read(data_dir: Path, change, reason: str) -> None:
    change(data_dir / snapshot.CATALOG_PART_PATH)
    [(status, _, _)], output = answers(data_dir, (f"/projects/{SHORTCODE}/records?q=urkunde",))
    [warning] = [line for line in output.splitlines() if "catalogue part not used" in line]
    assert "WARN" in warning and reason in warning and f"svc stamp {data_dir}" in warning
    assert status == 200 and USED in output and "Traceback" not in output


def test_a_catalogue_part_of_another_snapshot_is_not_used(data_dir: Path, tmp_path: Path, caplog) -> None:
    other = tmp_path / "other"
    shutil.copytree(data_dir, other)
    _rewrite_records(other, slice(0, 10))
    assert run_svc("stamp", "--activate-in", "0", str(other)).returncode == 0
    shutil.copy2(other / snapshot.CATALOG_PART_PATH, data_dir / snapshot.CATALOG_PART_PATH)
    with caplog.at_level(logging.WARNING, logger="catalog.domain.snapshot"):
        catalog = snapshot.open_catalog(data_dir)
    [warning] = [record.getMessage() for record in caplog.records]
    assert "was written for another snapshot" in warning and catalog.ledger is None


def test_the_stored_all_records_index_is_the_one_built_from_json(data_dir: Path) -> None:
    mapped = snapshot.open_catalog(data_dir)
    assert isinstance(mapped.records, RecordsWithIndex)  # nothing to build at warm-up
    loaded = load_catalog(data_dir)
    stored, built = all_records_index(mapped), all_records_index(loaded)
    search_engine = engine.build_temporary(loaded)
    for text in ("", "urkunde", "chur 8", "zzzz"):
        scores = search_engine.record_scores(engine.parse(text)) if text else None
        for sort in AllRecordsQuery.SORTS:
            for filters in ((), (("project", ("08A1",)),), (("year", ("2015",)),)):
                query = AllRecordsQuery(text=text, filters=filters, sort=sort)
                expected = search_all_records(built, query, scores)
                assert search_all_records(stored, query, scores) == expected, (text, sort, filters)


def test_projects_read_ahead_of_their_turn_give_the_same_bytes(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a read-ahead of one byte every project counts as large and is read first, the largest first."""
    other = tmp_path / "other"
    shutil.copytree(data_dir, other)  # file times kept: the snapshots' headers name the same files
    for directory in (data_dir, other):
        shutil.rmtree(directory / ".svc")
    stamp_release(data_dir, "https://example.org", 1_800_000_000)
    monkeypatch.setattr(snapshot.SnapshotWriter, "READ_AHEAD_BYTES", 1)
    stamp_release(other, "https://example.org", 1_800_000_000)
    for name in ("ledger.tsv", "snapshot.bin", "snapshot-catalog.bin"):
        assert (other / ".svc" / name).read_bytes() == (data_dir / ".svc" / name).read_bytes(), name

    def names(directory: Path) -> list[str]:  # the search index's directory has a name of its own each time
        return sorted(re.sub(r"^search-.*", "search-*", path.name) for path in (directory / ".svc").iterdir())

    assert names(other) == names(data_dir)  # no part file left behind


def test_the_catalogue_of_a_snapshot_this_process_wrote_is_opened_by_its_checksum(
    data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``svc stamp`` reads the records back for the search index without reading the whole snapshot again."""
    written = int(snapshot.open_snapshot(data_dir).checksum, 16)
    body = snapshot.snapshot_path(data_dir).open("r+b")
    with body:  # a byte of the body changed behind the prelude's checksum: only a full read would see it
        body.seek(snapshot.PRELUDE_SIZE)
        first = body.read(1)
        body.seek(snapshot.PRELUDE_SIZE)
        body.write(bytes([first[0] ^ 1]))
    with caplog.at_level(logging.WARNING):
        trusted = snapshot.open_catalog(data_dir, written=written)
    assert "snapshot not used" not in caplog.text and sum(len(t) for t in trusted.records.values()) > 0
    with caplog.at_level(logging.WARNING):
        snapshot.open_catalog(data_dir, written=written ^ 1)  # another snapshot since: checked, and refused
    assert "changed since this process wrote it" in caplog.text


def test_a_snapshot_replaced_after_this_process_wrote_it_is_not_taken_for_its_own(data_dir: Path) -> None:
    """The stamp opens the snapshot it just wrote without reading it again, by the checksum it wrote."""
    written = int(snapshot.open_snapshot(data_dir).checksum, 16)
    assert snapshot.open_snapshot(data_dir, written=written).checksum == f"{written:08x}"
    with pytest.raises(snapshot.SnapshotUnusable, match="changed since this process wrote it"):
        snapshot.open_snapshot(data_dir, written=written ^ 1)
