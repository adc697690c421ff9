"""The ledger's merge and file format, without Django: what each stamp records."""

from __future__ import annotations

from pathlib import Path

from catalog.domain.ledger import Item, ProjectMeta, iter_entries, ledger_path, stamp

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
