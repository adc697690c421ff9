"""The change ledger end to end: `svc stamp` twice around an edit, then a real `svc serve` over the result.

Between the stamps one project is edited, one record and one project (without
records) are removed. An incremental harvest from between the stamps must see
exactly those three changes, the deletions as ``status="deleted"``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import formatdate
from pathlib import Path

import feedparser
import pytest
from lxml import etree, html
from sickle import Sickle

from catalog.domain import engine
from catalog.domain.ledger import LEDGER_PATH, iter_entries
from catalog.domain.loader import load_catalog
from catalog.domain.snapshot import READER_NAME
from catalog.publishing.datestamps import DateRange, format_datestamp
from catalog.runtime import with_ledger
from oaipmh.repository import Repository
from tests.conftest import SAMPLE_DIR, SVC, Server, run_svc, start_server, stop_server
from tests.oai_support import HIGH_LIMITS_ENV, NS, OAI_PATH, parse_valid
from tests.release_support import make_corpus

EDITED = "08A2"
REMOVED_PROJECT = "0A1F"  # has no records: its removal is one deletion
RECORDS_OF = "08A1"


def ark(pid: str) -> str:
    return pid[pid.index("ark:/") :]


def first_stamp_time(data_dir: Path) -> int:
    with (data_dir / LEDGER_PATH).open(encoding="utf-8") as lines:
        return max(entry.first_seen for entry in iter_entries(lines))


@dataclass(frozen=True)
class Stamped:
    data_dir: Path
    first: int  # the time of the first stamp
    second: int  # the time of the second
    removed_pid: str
    edited_pid: str
    removed_project_pid: str
    removed_name: str


@pytest.fixture(scope="module")
def stamped(tmp_path_factory: pytest.TempPathFactory) -> Stamped:
    data_dir = tmp_path_factory.mktemp("ledger") / "data"
    shutil.copytree(SAMPLE_DIR, data_dir)
    first_run = run_svc("stamp", str(data_dir), "--activate-in", "0")
    assert first_run.returncode == 0, first_run.stderr
    first = first_stamp_time(data_dir)
    while time.time() < first + 2:  # datestamps have second granularity
        time.sleep(0.2)

    edited_path = next((data_dir / "projects").glob(f"{EDITED}_*.json"))
    edited = json.loads(edited_path.read_text())
    edited["name"] = "An edited name"
    edited_path.write_text(json.dumps(edited))
    removed_project_path = next((data_dir / "projects").glob(f"{REMOVED_PROJECT}_*.json"))
    removed_project = json.loads(removed_project_path.read_text())
    removed_project_pid = removed_project["pid"]
    removed_project_path.unlink()
    records_path = data_dir / "records" / f"{RECORDS_OF}-records.json"
    records = json.loads(records_path.read_text())
    removed = records.pop(7)
    records_path.write_text(json.dumps(records))

    before = int(time.time())  # whole seconds, like the ledger's times
    second_run = run_svc("stamp", str(data_dir), "--activate-in", "0")
    after = int(time.time())
    assert second_run.returncode == 0, second_run.stderr
    assert "added 0, changed 1, deleted 2," in second_run.stdout
    second = max(e.changed for e in iter_entries((data_dir / LEDGER_PATH).open(encoding="utf-8")))
    assert before <= second <= after  # the second stamp's own moment, to the second
    removed_name = load_catalog(SAMPLE_DIR).get_project(REMOVED_PROJECT).name
    return Stamped(data_dir, first, second, removed["pid"], edited["pid"], removed_project_pid, removed_name)


@pytest.fixture(scope="module")
def server(stamped: Stamped):
    running = start_server(stamped.data_dir, HIGH_LIMITS_ENV)
    yield running
    stop_server(running)


def moment(timestamp: int) -> datetime:
    return datetime.fromtimestamp(timestamp, UTC)


def withdrawn_at(body: bytes) -> datetime:
    """The moment a 410 page says the item was withdrawn (its one ``<time datetime>``)."""
    (stamp,) = html.fromstring(body).xpath("//main//time/@datetime")
    return datetime.fromisoformat(stamp)


def sickle(server: Server) -> Sickle:
    return Sickle(server.base_url + OAI_PATH, max_retries=0, timeout=30)


def fetch(server: Server, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(server.base_url + path, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def oai_xml(server: Server, **arguments: str) -> etree._Element:
    status, _, body = fetch(server, f"{OAI_PATH}?{urllib.parse.urlencode(arguments)}")
    assert status == 200
    return parse_valid(body)


def identifier_of(server: Server, pid: str) -> str:
    repository = sickle(server).Identify().repositoryIdentifier
    return f"oai:{repository}:{ark(pid)}"


def test_an_incremental_harvest_sees_exactly_the_edit_and_the_two_deletions(server: Server, stamped: Stamped) -> None:
    between = format_datestamp(stamped.first + 1)
    for prefix in ("oai_dc", "oai_datacite"):
        headers = list(sickle(server).ListIdentifiers(metadataPrefix=prefix, **{"from": between}))
        assert {(h.identifier, h.deleted) for h in headers} == {
            (identifier_of(server, stamped.edited_pid), False),
            (identifier_of(server, stamped.removed_project_pid), True),
            (identifier_of(server, stamped.removed_pid), True),
        }
        # One release, one datestamp: its activation time, or (a server started after it) the start.
        (datestamp,) = {h.datestamp for h in headers}
        assert datestamp >= format_datestamp(stamped.second)
    records = list(sickle(server).ListRecords(metadataPrefix="oai_dc", **{"from": between}))
    assert sorted(record.header.deleted for record in records) == [False, True, True]


def test_the_responses_with_deletions_are_valid_oai(server: Server, stamped: Stamped) -> None:
    document = oai_xml(
        server, verb="ListRecords", metadataPrefix="oai_dc", **{"from": format_datestamp(stamped.first + 1)}
    )
    deleted = document.findall(".//o:header[@status='deleted']", NS)
    assert len(deleted) == 2
    for header in deleted:
        assert header.getparent().find("o:metadata", NS) is None


def test_a_deletion_is_listed_in_the_sets_it_was_in(server: Server, stamped: Stamped) -> None:
    removed_record = identifier_of(server, stamped.removed_pid)
    removed_project = identifier_of(server, stamped.removed_project_pid)
    harvest = sickle(server)
    in_project_set = {
        h.identifier for h in harvest.ListIdentifiers(metadataPrefix="oai_dc", set=f"project:{RECORDS_OF}")
    }
    assert removed_record in in_project_set
    in_records = {h.identifier for h in harvest.ListIdentifiers(metadataPrefix="oai_dc", set="entityType:Record")}
    assert removed_record in in_records and removed_project not in in_records
    in_projects = {
        h.identifier for h in harvest.ListIdentifiers(metadataPrefix="oai_dc", set="entityType:ResearchProject")
    }
    assert removed_project in in_projects and removed_record not in in_projects


def test_get_record_of_a_deleted_item_answers_the_deleted_header(server: Server, stamped: Stamped) -> None:
    for pid in (stamped.removed_pid, stamped.removed_project_pid):
        identifier = identifier_of(server, pid)
        record = sickle(server).GetRecord(identifier=identifier, metadataPrefix="oai_dc")
        assert record.header.deleted and record.header.identifier == identifier
        assert record.header.datestamp >= format_datestamp(stamped.second)
        document = oai_xml(server, verb="GetRecord", identifier=identifier, metadataPrefix="oai_datacite")
        assert document.find(".//o:header", NS).get("status") == "deleted"


def test_identify_announces_persistent_deletions_and_the_earliest_ledger_time(server: Server, stamped: Stamped) -> None:
    identify = sickle(server).Identify()
    assert identify.deletedRecord == "persistent"
    # The sample records' own dates are older than the first stamp: the earliest is one of them or the stamp.
    assert identify.earliestDatestamp <= format_datestamp(stamped.first)


def test_pages_and_documents_of_withdrawn_items_answer_410(server: Server, stamped: Stamped) -> None:
    suffix = stamped.removed_pid.rpartition("/")[2]
    for path in (f"/projects/{REMOVED_PROJECT}", f"/projects/{RECORDS_OF}/records/{suffix}"):
        status, headers, body = fetch(server, path)
        assert status == 410 and headers["Content-Type"].startswith("text/html")
        assert b"withdrawn" in body and b'href="/projects"' in body
        assert withdrawn_at(body) == moment(stamped.second), path
    for path in (f"/api/v2/projects/{REMOVED_PROJECT}", f"/api/v2/projects/{RECORDS_OF}/records/{suffix}"):
        status, headers, body = fetch(server, path)
        assert status == 410 and headers["Content-Type"] == "application/problem+json"
        assert json.loads(body)["status"] == 410
    assert fetch(server, "/projects/NOPE")[0] == 404


def test_every_view_of_a_withdrawn_project_answers_410_in_the_page_language(server: Server, stamped: Stamped) -> None:
    """Exports, linksets and feeds look the project up like its page does: none may answer 404 or fail."""
    for path in ("metadata.jsonld", "datacite.xml", "citation.bib", "linkset", "records", "changes.atom"):
        assert fetch(server, f"/projects/{REMOVED_PROJECT}/{path}")[0] == 410, path
    status, headers, body = fetch(server, f"/de/projects/{REMOVED_PROJECT}")
    assert status == 410 and headers["Content-Language"] == "de"
    assert '<html lang="de"' in body.decode() and "aus dem Katalog zurückgezogen" in body.decode()


def test_last_modified_comes_from_the_ledger_and_if_modified_since_answers_304(
    server: Server, stamped: Stamped
) -> None:
    second, first = formatdate(stamped.second, usegmt=True), formatdate(stamped.first, usegmt=True)
    expectations = {
        f"/projects/{EDITED}": second,
        f"/api/v2/projects/{EDITED}": second,
        "/projects/08A3": first,
        "/api/v2/projects/08A3": first,
        "/projects": second,
        "/sitemap.xml": second,
    }
    for path, modified in expectations.items():
        status, headers, _ = fetch(server, path)
        assert status == 200 and headers["Last-Modified"] == modified, path
        assert fetch(server, path, {"If-Modified-Since": modified})[0] == 304, path
        earlier = formatdate(stamped.first - 60, usegmt=True)
        assert fetch(server, path, {"If-Modified-Since": earlier})[0] == 200, path


def test_the_sitemap_dates_projects(server: Server, stamped: Stamped) -> None:
    _, _, body = fetch(server, "/sitemap.xml")
    urls = etree.fromstring(body).findall("{http://www.sitemaps.org/schemas/sitemap/0.9}url")
    lastmod = {u.findtext("{*}loc").rpartition("/")[2]: u.findtext("{*}lastmod") for u in urls}
    assert datetime.fromisoformat(lastmod[EDITED]) == moment(stamped.second)


def test_the_atom_feeds_list_the_changes(server: Server, stamped: Stamped) -> None:
    status, headers, body = fetch(server, "/feeds/changes.atom")
    assert status == 200 and headers["Content-Type"].startswith("application/atom+xml")
    feed = feedparser.parse(body)
    assert not feed.bozo and feed.version == "atom10"
    latest = [entry for entry in feed.entries if entry.updated_parsed == time.gmtime(stamped.second)]
    assert sorted(entry.title for entry in latest) == ["Changed: An edited name", f"Withdrawn: {stamped.removed_name}"]
    assert {entry.link.rpartition("/")[2] for entry in latest} == {EDITED, REMOVED_PROJECT}
    assert len({entry.id for entry in feed.entries}) == len(feed.entries)

    records_feed = feedparser.parse(fetch(server, f"/projects/{RECORDS_OF}/changes.atom")[2])
    assert not records_feed.bozo
    newest = records_feed.entries[0]
    assert newest.title.startswith("Withdrawn: record " + stamped.removed_pid.rpartition("/")[2])
    assert newest.updated_parsed == time.gmtime(stamped.second)


def test_the_listing_and_project_pages_link_their_feeds(server: Server) -> None:
    assert (
        b'type="application/atom+xml" title="Catalogue changes" href="/feeds/changes.atom"'
        in fetch(server, "/projects")[2]
    )
    project_page = fetch(server, f"/projects/{EDITED}")[2]
    assert (
        f'type="application/atom+xml" title="Changes" href="/projects/{EDITED}/changes.atom"'.encode() in project_page
    )


def test_a_ledger_that_does_not_match_the_data_warns_once_and_falls_back(
    stamped: Stamped, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data_dir = tmp_path / "data"
    shutil.copytree(stamped.data_dir, data_dir)
    added = json.loads(next((data_dir / "projects").glob(f"{EDITED}_*.json")).read_text())
    added.update(shortcode="0FFF", pid="https://ark.dasch.swiss/ark:/72163/1/0FFF", dateModified="2020-02-02")
    (data_dir / "projects" / "0FFF_new.json").write_text(json.dumps(added))
    with caplog.at_level(logging.WARNING, logger="catalog"):
        catalog = with_ledger(load_catalog(data_dir))
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "0FFF" in warnings[0].getMessage()
    repository = Repository(catalog, "example.org", "https://example.org")
    index = next(i for i, p in enumerate(catalog.projects) if p.shortcode == "0FFF")
    assert repository.entries[index].datestamp == "2020-02-02T00:00:00Z"
    assert repository.entries[index - 1].stamp >= stamped.first


# --- the command ----------------------------------------------------------------------------------


def test_stamping_unchanged_data_changes_no_byte(stamped: Stamped) -> None:
    ledger = stamped.data_dir / LEDGER_PATH
    snapshot, part = ledger.with_name("snapshot.bin"), ledger.with_name("snapshot-catalog.bin")
    before, snapshot_before, part_before = ledger.read_bytes(), snapshot.read_bytes(), part.read_bytes()
    search_before = os.readlink(ledger.with_name("search"))
    result = run_svc("stamp", str(stamped.data_dir))
    assert result.returncode == 0
    assert result.stdout.strip().splitlines()[-1].startswith("added 0, changed 0, deleted 0, unchanged ")
    assert ledger.read_bytes() == before
    assert snapshot.read_bytes() == snapshot_before
    assert part.read_bytes() == part_before
    assert os.readlink(ledger.with_name("search")) == search_before  # the search index matched: kept as it was
    # no temporary file left (the search index: its link and the one directory it names)
    assert sorted(p.name for p in ledger.parent.iterdir()) == [
        "ledger.tsv",
        "search",
        search_before,
        "snapshot-catalog.bin",
        "snapshot.bin",
        "stamp.lock",
        "token-key",
    ]


def test_a_dry_run_reports_and_writes_nothing(stamped: Stamped, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    shutil.copytree(stamped.data_dir, data_dir)
    before = (data_dir / LEDGER_PATH).read_bytes()
    (next((data_dir / "projects").glob("0B30_*.json"))).unlink()
    result = run_svc("stamp", "--dry-run", str(data_dir))
    assert result.returncode == 0
    assert "added 0, changed 0, deleted 1, unchanged" in result.stdout and "dry run" in result.stdout
    assert (data_dir / LEDGER_PATH).read_bytes() == before


def _start_stamp(data_dir: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [SVC, "stamp", str(data_dir), "--activate-in", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _wait_for_readers(stamp: subprocess.Popen, records_dir: Path | None = None) -> list[int]:
    """The stamp's reading processes once one is seen (with a file of ``records_dir`` open, if given)."""
    deadline = time.monotonic() + 120
    while True:
        readers = _readers_of(stamp.pid)
        if readers and (records_dir is None or any(_has_open(reader, records_dir) for reader in readers)):
            return readers
        assert stamp.poll() is None, "the stamp ended before a process was seen reading the records"
        assert time.monotonic() < deadline, "no process read the records within 120 s"
        time.sleep(0.01)


def _readers_of(stamp_pid: int, name: bytes = READER_NAME) -> list[int]:
    """The stamp's reading processes: its children that bear the reader's name (/proc/<pid>/comm), or ``name``."""
    found = []
    for child in _children(stamp_pid):
        with contextlib.suppress(OSError):  # ended meanwhile
            if Path(f"/proc/{child}/comm").read_bytes().strip() == name:
                found.append(child)
    return found


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # ended meanwhile
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _has_open(pid: int, directory: Path) -> bool:
    """Whether process ``pid`` has a file of ``directory`` open."""
    try:
        descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False  # ended meanwhile
    for descriptor in descriptors:
        with contextlib.suppress(OSError):  # closed meanwhile
            if os.readlink(descriptor).startswith(f"{directory}/"):
                return True
    return False


def _ended(pid: int) -> bool:
    """Whether process ``pid`` has ended (gone, or a zombie its new parent has not reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


@pytest.mark.slow
@pytest.mark.parametrize("when", ["as soon as it runs", "with a records file open"])
def test_a_stamp_whose_reading_process_is_killed_exits_2_with_one_line(tmp_path: Path, when: str) -> None:
    """The out-of-memory killer may end one of the processes that read the records, at any moment of the stamp."""
    data_dir = tmp_path / "data"
    make_corpus(data_dir, 40_000)
    stamp = _start_stamp(data_dir)
    try:
        readers = _wait_for_readers(stamp, data_dir / "records" if when == "with a records file open" else None)
        os.kill(readers[0], signal.SIGKILL)
        _, stderr = stamp.communicate(timeout=120)
    finally:
        stamp.kill()
    assert stamp.returncode == 2
    (line,) = stderr.splitlines()
    assert line.startswith("svc stamp: a process reading the records ended before it was done, at project ")
    assert line.endswith("; the ledger is unchanged")
    assert not (data_dir / LEDGER_PATH).exists()


@pytest.mark.slow
def test_a_stamp_whose_index_process_is_killed_says_the_release_is_stamped_and_the_next_writes_the_index(
    tmp_path: Path,
) -> None:
    """The processes that make the search index's documents come after the ledger: the release is stamped then."""
    data_dir = tmp_path / "data"
    make_corpus(data_dir, 40_000)
    stamp = _start_stamp(data_dir)
    try:
        deadline = time.monotonic() + 300
        while not (indexers := _readers_of(stamp.pid, engine.INDEXER_NAME)):
            assert stamp.poll() is None, "the stamp ended before a process was seen making the index's documents"
            assert time.monotonic() < deadline, "no process made the index's documents within 300 s"
            time.sleep(0.005)
        os.kill(indexers[0], signal.SIGKILL)
        stdout, stderr = stamp.communicate(timeout=120)
    finally:
        stamp.kill()
    assert stamp.returncode == 2
    stamped = re.match(r"added (\d+), changed 0, deleted 0, unchanged 0; served from ", stdout)
    assert stamped is not None, stdout
    assert stderr.splitlines() == [
        "svc stamp: the search index was not written: a process making the search index's documents ended before "
        f"its chunk; the release is stamped, and `svc stamp {data_dir}` again writes the search index"
    ]
    assert (data_dir / LEDGER_PATH).is_file()
    assert "there is no search index" in str(engine.unusable(engine.index_directory(data_dir), load_catalog(data_dir)))

    result = run_svc("stamp", str(data_dir), "--activate-in", "0", timeout=600)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"added 0, changed 0, deleted 0, unchanged {stamped[1]}")
    assert engine.unusable(engine.index_directory(data_dir), load_catalog(data_dir)) is None


@pytest.mark.slow  # a stamp of 40,000 records after the killed one: tens of seconds of CPU
def test_a_killed_stamp_takes_its_readers_along_and_the_next_stamp_removes_what_it_left(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    make_corpus(data_dir, 40_000)
    stamp = _start_stamp(data_dir)
    try:
        readers = _wait_for_readers(stamp, data_dir / "records")  # mid-way: part files and the snapshot begun
    finally:
        stamp.kill()
        stamp.wait()
    # The kernel ends them with the stamp, instead of letting them read on for seconds.
    deadline = time.monotonic() + 5
    while not all(_ended(reader) for reader in readers):
        assert time.monotonic() < deadline, "the stamp's readers outlived it by 5 s"
        time.sleep(0.01)
    svc_dir = data_dir / LEDGER_PATH.parent
    left = sorted(path.name for path in svc_dir.iterdir() if path.name.startswith("."))
    assert any(name.startswith(".parts-") for name in left) and any(name.startswith(".snapshot-") for name in left)

    result = run_svc("stamp", str(data_dir), "--activate-in", "0", timeout=600)
    assert result.returncode == 0, result.stderr
    assert sorted(path.name for path in svc_dir.iterdir()) == [
        "ledger.tsv",
        "search",
        os.readlink(svc_dir / "search"),  # the search index: its link and the one directory it names
        "snapshot-catalog.bin",
        "snapshot.bin",
        "stamp.lock",
        "token-key",
    ]
    (warning,) = [line for line in result.stdout.splitlines() if "WARNING" in line]  # log lines go to stdout
    assert f"removed what a stamp that did not finish left in {svc_dir}: {', '.join(left)}" in warning


@pytest.mark.slow
def test_a_second_stamp_while_one_runs_exits_2_naming_the_first(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    make_corpus(data_dir, 40_000)
    first = _start_stamp(data_dir)
    try:
        _wait_for_readers(first)  # it holds the lock: taken before any record is read
        first.send_signal(signal.SIGSTOP)  # it cannot finish (nor let go of the lock) while the second one runs
        try:
            second = run_svc("stamp", str(data_dir), "--activate-in", "0")
        finally:
            first.send_signal(signal.SIGCONT)
    finally:
        first.kill()
        first.wait()
    assert second.returncode == 2
    (line,) = second.stderr.splitlines()
    holder = rf"pid {first.pid} on {re.escape(socket.gethostname())}, since \d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
    expected = rf"svc stamp: another svc stamp is writing {re.escape(str(data_dir / '.svc'))} \({holder}\); "
    assert re.fullmatch(expected + "the ledger is unchanged", line), line
    assert second.stdout == ""


@pytest.mark.slow
def test_data_that_does_not_load_exits_2_and_leaves_the_ledger_alone(stamped: Stamped, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    shutil.copytree(stamped.data_dir, data_dir)
    before = (data_dir / LEDGER_PATH).read_bytes()
    (data_dir / "records" / f"{RECORDS_OF}-records.json").write_text('[{"pid": "half a fi')
    result = run_svc("stamp", str(data_dir), "--activate-in", "0")
    assert result.returncode == 2
    assert f"records/{RECORDS_OF}-records.json" in result.stderr and "ledger is unchanged" in result.stderr
    assert (data_dir / LEDGER_PATH).read_bytes() == before

    missing = run_svc("stamp", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def test_pages_of_one_item_resume_across_the_deletions(stamped: Stamped) -> None:
    """Paging item by item (as resumption tokens do) lists what one page lists, deletions included."""
    catalog = with_ledger(load_catalog(stamped.data_dir))
    repository = Repository(catalog, "example.org", "https://example.org")
    for set_spec in (None, "entityType:ResearchProject", f"project:{RECORDS_OF}"):
        oai_set = repository.find_set(set_spec) if set_spec else None
        selection, dates = repository.selection(oai_set), DateRange()
        everything = repository.scan(selection, dates, (0, -1), 10**6, set_spec)
        paged, position = [], (0, -1)
        while page := repository.scan(selection, dates, position, 1, set_spec):
            paged += page
            position = (page[-1][0], page[-1][1] + 1)
        assert paged == everything and len(everything) == repository.count(oai_set, dates)
        assert sum(1 for item in everything if repository.deletion(item)) == (1 if set_spec else 2)
