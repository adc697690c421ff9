"""What ``svc stamp`` records of a catalogue: every published item, in ledger order, with its fingerprint.

A project's ledger line also remembers what its tombstone will need once it
is gone: its name (for the 410 page and the feed), its OAI
identifier, its records' shared pid prefix and the sets it and its records
belong to (so a deletion is listed in every set the item was in).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from catalog.domain.ledger import Item, ProjectMeta, fingerprint
from catalog.domain.model import Catalog, Project, RecordTable, to_json_bytes
from oaipmh.repository import project_local_ids, shared_pid_prefix
from oaipmh.sets import build_sets

# Entities that have pages but are not OAI items, keyed by their kind's name.
OTHER_ENTITIES = ("clusters", "collections", "organizations", "persons")


def ledger_items(catalog: Catalog, tables: Iterable[tuple[Project, RecordTable | None]]) -> Iterator[Item]:
    """Every project (then its records, by pid) and every other entity, in ledger order.

    ``tables`` gives each project of the catalogue, in order, with its records
    (:func:`catalog.domain.loader.iter_record_tables` reads them one project at a time).
    """
    sets = build_sets(catalog)
    local_ids = project_local_ids(catalog.projects)
    for index, (project, table) in enumerate(tables):
        assert project is catalog.projects[index]
        specs = (sets.project_specs[index], sets.record_specs[index])
        meta = ProjectMeta(project.name, local_ids[index], shared_pid_prefix(table), *specs)
        yield Item("P", project.key, project.shortcode, fingerprint(to_json_bytes(project.raw)), meta.fields())
        for row in range(len(table) if table else 0):
            assert table is not None
            yield Item("R", project.key, table.pids[row], fingerprint(table.document(row)))
    for kind in OTHER_ENTITIES:
        entities = getattr(catalog, kind)
        for key in sorted(entities):
            yield Item("E", kind, key, fingerprint(to_json_bytes(entities[key].raw)))
