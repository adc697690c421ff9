"""What ``svc stamp`` records of a catalogue: every published item, in ledger order, with its fingerprint.

A project's ledger line also remembers what its tombstone will need once it
is gone: its name (for the 410 page and the feed), its OAI
identifier, its records' shared pid prefix and the sets it and its records
belong to (so a deletion is listed in every set the item was in).
"""

from __future__ import annotations

from collections.abc import Iterator

from catalog.domain.ledger import Item, ProjectMeta, fingerprint
from catalog.domain.model import Catalog, to_json_bytes
from oaipmh.repository import Repository

# Entities that have pages but are not OAI items, keyed by their kind's name.
OTHER_ENTITIES = ("clusters", "collections", "organizations", "persons")


def ledger_items(catalog: Catalog) -> Iterator[Item]:
    """Every project (then its records, by pid) and every other entity, in ledger order."""
    repository = Repository(catalog, "stamp")
    for index, entry in enumerate(repository.entries):
        project = entry.project
        meta = ProjectMeta(
            project.name,
            entry.local_id,
            entry.pid_prefix,
            repository.sets.project_specs[index],
            repository.sets.record_specs[index],
        )
        yield Item("P", project.key, project.shortcode, fingerprint(to_json_bytes(project.raw)), meta.fields())
        table = repository.tables[index]
        for row in range(len(table) if table else 0):
            assert table is not None
            yield Item("R", project.key, table.pids[row], fingerprint(table.document(row)))
    for kind in OTHER_ENTITIES:
        entities = getattr(catalog, kind)
        for key in sorted(entities):
            yield Item("E", kind, key, fingerprint(to_json_bytes(entities[key].raw)))
