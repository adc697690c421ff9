"""The ledger's merge and file format, without Django: what each stamp records."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog.domain.ledger import Entry, Item, LedgerError, ProjectMeta, iter_entries, ledger_path, read_view, stamp
from catalog.domain.loader import load_catalog
from tests.oai_support import project as oai_project
from tests.oai_support import record as oai_record
from tests.oai_support import write_data

META = ProjectMeta('a "name"\twith a tab', "ark:/1/a", "/", ("entityType", "cluster:x"), ())


def project(key: str, content: str) -> Item:
    return Item("P", key.lower(), key, content, META.fields())


def record(project_key: str, pid: str, content: str) -> Item:
    return Item("R", project_key, pid, content)


def entries(data_dir: Path) -> dict[str, tuple[int, int, int | None]]:
    with ledger_path(data_dir).open(encoding="utf-8") as lines:
        return {entry.key: (entry.first_seen, entry.changed, entry.deleted) for entry in iter_entries(lines)}


def test_added_changed_deleted_and_back_again(tmp_path: Path) -> None:
    first = stamp(tmp_path, [project("A", "a1"), record("a", "p/1", "r1"), record("a", "p/2", "r2")], 100)
    assert (first.added, first.changed, first.deleted, first.unchanged) == (3, 0, 0, 0)
    second = stamp(tmp_path, [project("A", "a2"), record("a", "p/1", "r1"), project("B", "b")], 200)
    assert (second.added, second.changed, second.deleted, second.unchanged) == (1, 1, 1, 1)
    assert entries(tmp_path) == {
        "A": (100, 200, None),
        "p/1": (100, 100, None),
        "p/2": (100, 100, 200),
        "B": (200, 200, None),
    }
    # A tombstone keeps its first deletion time; an item that comes back is a change.
    third = stamp(tmp_path, [project("A", "a2"), record("a", "p/1", "r1"), record("a", "p/2", "r2")], 300)
    assert (third.added, third.changed, third.deleted, third.unchanged) == (0, 1, 1, 2)
    assert entries(tmp_path) == {
        "A": (100, 200, None),
        "p/1": (100, 100, None),
        "p/2": (100, 300, None),
        "B": (200, 200, 300),
    }


def test_the_file_round_trips_text_with_tabs_and_is_stable(tmp_path: Path) -> None:
    stamp(tmp_path, [project("A", "a1")], 100)
    before = ledger_path(tmp_path).read_bytes()
    with ledger_path(tmp_path).open(encoding="utf-8") as lines:
        (entry,) = iter_entries(lines)
    assert ProjectMeta.parse(entry.meta) == META
    assert stamp(tmp_path, [project("A", "a1")], 999).unchanged == 1
    assert ledger_path(tmp_path).read_bytes() == before


def test_changes_are_dated_with_the_release_activation_which_only_moves_forward(tmp_path: Path) -> None:
    first = stamp(tmp_path, [project("A", "a1")], 100, activate_in=300)
    assert first.activation == 400 and entries(tmp_path)["A"] == (400, 400, None)
    # Stamped again before the first release activated: the next one still comes after it.
    second = stamp(tmp_path, [project("A", "a2")], 150, activate_in=0)
    assert second.activation == 401 and entries(tmp_path)["A"] == (400, 401, None)
    # Nothing changed: the file and its activation time stay as they are.
    before = ledger_path(tmp_path).read_bytes()
    assert stamp(tmp_path, [project("A", "a2")], 999).activation == 401
    assert ledger_path(tmp_path).read_bytes() == before


def test_a_withdrawn_record_keeps_the_sets_and_pid_prefix_its_project_gave_it(tmp_path: Path) -> None:
    with_sets = ProjectMeta("A", "ark:/1/a", "p/", ("entityType",), ("entityType", "project:A"))
    emptied = ProjectMeta("A", "ark:/1/a", "/", ("entityType",), ("entityType",))
    stamp(tmp_path, [Item("P", "a", "A", "a1", with_sets.fields()), record("a", "p/1", "r1")], 100)
    stamp(tmp_path, [Item("P", "a", "A", "a1", emptied.fields())], 200)
    with ledger_path(tmp_path).open(encoding="utf-8") as lines:
        withdrawn = [entry for entry in iter_entries(lines) if entry.kind == "R"]
    assert [(entry.deleted, entry.meta) for entry in withdrawn] == [(200, ("entityType project:A", "p/"))]


def test_the_served_view_knows_the_activation_and_what_the_release_before_had(tmp_path: Path) -> None:
    data = write_data(
        tmp_path / "data",
        {"projects/a.json": oai_project("0AAA"), "records/0AAA-records.json": [oai_record("0AAA", "r1")]},
    )
    catalog = load_catalog(data)
    own = Item("P", "0aaa", "0AAA", "a", META.fields())
    kept = record("0aaa", catalog.records_of(catalog.projects[0]).pids[0], "r")
    stamp(data, [own, record("0aaa", "gone", "g"), kept], 100)
    stamp(data, [own, kept], 200)  # "gone" withdrawn at 200
    view = read_view(catalog)
    assert view is not None and view.activation == 200
    assert view.previous_counts == {"projects": 1, "records": 2}
    # What the release publishes: its live items (the start-up of an accepted withdrawal compares with it).
    assert view.release_counts == {"projects": 1, "records": 1}


GOOD_LINES = ["svc-ledger\t2\t100\n", "P\tA\tf1\t90\t\t\tname\n", "R\tp/1\tf2\t90\t95\t\tsrc\n"]


def test_the_lines_of_the_file_are_read_back_as_written() -> None:
    assert list(iter_entries(GOOD_LINES)) == [
        Entry("P", "a", "A", "f1", 90, 90, None, ("name",)),
        Entry("R", "a", "p/1", "f2", 90, 95, None, (), "src"),
    ]


@pytest.mark.parametrize(
    "line",
    [
        "R\tp/2\tf\tninety\t\t\tsrc\n",  # a time that is no number
        "R\tp/2\tf\t90\n",  # cut short
        "X\tp/2\tf\t90\t\t\tsrc\n",  # no such kind
        "\n",
    ],
)
def test_a_damaged_line_names_its_number(line: str) -> None:
    with pytest.raises(LedgerError, match=r"^line 4 of the ledger is damaged$"):
        list(iter_entries([*GOOD_LINES, line]))


def test_a_record_before_any_project_is_damage() -> None:
    with pytest.raises(LedgerError, match=r"^line 2 of the ledger is damaged$"):
        list(iter_entries([GOOD_LINES[0], GOOD_LINES[2]]))
