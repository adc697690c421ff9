"""What ``svc stamp`` records of a catalogue: every published item, in ledger order, with its fingerprint.

An OAI item's fingerprint is a digest of what harvesters receive: its set
memberships and its metadata in every format, rendered exactly as
``svc serve`` renders them. So a change that reaches an item from anywhere
(its own file, a linked person, organization, cluster or funder, a
vocabulary, a new svc that renders differently) changes its fingerprint,
and with it the item's datestamp.

Rendering a million records is most of a stamp's cost, so a record is
rendered only when its *source* changed: a digest of its stored JSON, of
everything it takes from its project (:class:`item_metadata.ProjectContext`,
its sets), of which of the free-text names it gives are persons' names
(:class:`FreeTextPersons`: the one way the catalogue's persons reach a
record's bytes) and of the code and vocabularies that render it
(:func:`renderer_digest`). A record whose source the ledger already holds
keeps its fingerprint unrendered, so renaming a person re-renders only the
records that give the old or the new name as text. When many records of a
project must be rendered (a first stamp, a new svc), processes forked for
the purpose render them, one per CPU. Projects are few and always rendered.

A project's ledger line also remembers what its tombstone will need once it
is gone: its name (for the 410 page and the feed), its OAI identifier, its
records' shared pid prefix and the sets it and its records belong to (so a
deletion is listed in every set the item was in).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import IO

from catalog.domain import ledger
from catalog.domain.ledger import Item, ProjectMeta, fingerprint
from catalog.domain.loader import DataDirError, iter_record_tables, load_catalog
from catalog.domain.model import Catalog, Project, RecordTable, to_json_bytes
from catalog.domain.snapshot import SnapshotPass, write_catalog_part
from catalog.formats import item_metadata
from catalog.publishing.formats import FORMATS
from catalog.publishing.oai_identifiers import fallback_year, project_local_ids, shared_pid_prefix
from catalog.publishing.sets import build_sets, with_openaire

# Entities that have pages but are not OAI items, keyed by their kind's name.
OTHER_ENTITIES = ("clusters", "collections", "organizations", "persons")
_ROOT = Path(__file__).resolve().parents[2]
# The code and vocabularies an item's metadata is rendered by: a change in any of them may change the bytes.
_RENDERERS = (
    "catalog/domain",
    "catalog/formats",
    "catalog/publishing/datestamps.py",
    "catalog/publishing/formats.py",
    "catalog/publishing/oai_identifiers.py",
)


# A project with at least this many records to render has them rendered by several processes.
PARALLEL_FROM = 2000


class StampRefused(Exception):
    """The data directory (or its ledger) cannot be stamped; nothing was written."""


@cache
def renderer_digest() -> str:
    """A digest of svc's rendering code and vocabularies: a new svc re-renders, once, what it publishes."""
    digest = hashlib.blake2b(digest_size=8)
    for name in _RENDERERS:
        path = _ROOT / name
        files = sorted(p for p in path.rglob("*") if p.suffix in (".py", ".toml", ".json")) if path.is_dir() else [path]
        for file in files:
            digest.update(file.relative_to(_ROOT).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def published_fingerprint(specs: Iterable[str], rendered: Iterable[str]) -> str:
    """The fingerprint of what a harvester receives of an item: its sets, then each format's metadata."""
    digest = hashlib.blake2b(digest_size=8)
    digest.update(" ".join(specs).encode() + b"\0")
    for text in rendered:
        digest.update(text.encode() + b"\0")
    return digest.hexdigest()


class KnownSources:
    """The record sources an existing ledger holds, read project by project in ledger order (one pass)."""

    def __init__(self, lines: IO[str] | None) -> None:
        self._lines = lines
        self._group: str | None = None  # the project of the line read ahead
        self._ahead: list[str] | None = None
        if lines is not None and not lines.readline().startswith(f"{ledger.MAGIC}\t{ledger.VERSION}\t"):
            self._lines = None  # another version: its records have no sources

    def of(self, project_key: str) -> dict[str, str]:
        """pid → source of the ledger's records of ``project_key`` (asked in ascending key order)."""
        found: dict[str, str] = {}
        while self._lines is not None:
            fields = self._ahead or self._lines.readline().rstrip("\n").split("\t", 7)
            self._ahead = None
            if fields[0] == "P":
                self._group = fields[1].lower()
            if fields[0] not in ("P", "R") or (self._group or "") > project_key:
                self._ahead = fields  # the next project's (or the entities'): keep it for later
                return found
            if fields[0] == "R" and self._group == project_key and len(fields) > 6:
                found[fields[1]] = fields[6]
        return found


def ledger_items(
    catalog: Catalog,
    tables: Iterable[tuple[Project, RecordTable | None]],
    site_url: str,
    known: KnownSources | None = None,
    workers: int = 1,
) -> Iterator[Item]:
    """Every project (then its records, by pid) and every other entity, in ledger order.

    ``tables`` gives each project of the catalogue, in order, with its records
    (:func:`catalog.domain.loader.iter_record_tables` reads them one project at
    a time); ``site_url`` is the origin the OAI metadata links landing pages to.
    With ``known`` (the sources the ledger holds) and several ``workers``, the
    records whose source is new are rendered ahead, by that many processes.
    """
    sets = build_sets(catalog)
    local_ids = project_local_ids(catalog.projects)
    formats = tuple(FORMATS.values())
    renderer = renderer_digest()
    for index, (project, table) in enumerate(tables):
        assert project is catalog.projects[index]
        # What a project says may depend on its records (its issue date): render it with them, as svc serve does.
        with_table = dataclasses.replace(catalog, records={project.key: table} if table is not None else {})
        openaire = item_metadata.meets_openaire_mandatory(with_table, project)
        project_specs = with_openaire(sets.project_specs[index], openaire)
        record_specs = with_openaire(sets.record_specs[index], openaire)
        meta = ProjectMeta(project.name, local_ids[index], shared_pid_prefix(table), project_specs, record_specs)
        year = fallback_year(project)
        metadata = item_metadata.project_metadata(with_table, project, site_url, year)
        rendered = published_fingerprint(project_specs, (f.render(metadata) for f in formats))
        yield Item("P", project.key, project.shortcode, rendered, meta.fields())
        if not table:
            continue
        context = item_metadata.project_context(with_table, project, site_url, year)
        shared = _context_digest(context, record_specs, renderer)
        persons = FreeTextPersons(context.person_names)
        sources = [_record_source(table.document(row), shared, persons) for row in range(len(table))]
        rendered_ahead: dict[int, str] = {}
        if known is not None and workers > 1:
            old = known.of(project.key)
            new = [row for row, source in enumerate(sources) if old.get(table.pids[row]) != source]
            if len(new) >= PARALLEL_FROM:
                fingerprints = _render_in_parallel(table, context, record_specs, new, workers)
                rendered_ahead = dict(zip(new, fingerprints, strict=True))
        for row, source in enumerate(sources):
            ahead = rendered_ahead.get(row)
            if ahead is not None:
                yield Item("R", project.key, table.pids[row], ahead, (), source)
            else:
                render = _record_renderer(table, row, context, record_specs)
                yield Item("R", project.key, table.pids[row], "", (), source, render)
    for kind in OTHER_ENTITIES:
        entities = getattr(catalog, kind)
        for key in sorted(entities):
            yield Item("E", kind, key, fingerprint(to_json_bytes(entities[key].raw)))


# The keys of the free-text names a record gives (its legalInfo's authors and copyright holders), in compact JSON.
_FREE_TEXT_KEYS = (b'"authorship":', b'"copyrightHolder":')
# What closes a value that starts with a quote or a bracket, if nothing inside it has the same byte.
_CLOSING = {ord('"'): b'"', ord("["): b"]"}
_MAX_REMEMBERED = 4096


class FreeTextPersons:
    """Which of the free-text names a record gives are persons' names: all a record's bytes take from the persons.

    :func:`item_metadata.free_text_agent` makes such a name Personal when a
    person bears it and Organizational otherwise, so renaming, adding or
    removing a person changes exactly the records that give the old or the
    new name as text. Every ``authorship`` and ``copyrightHolder`` value of
    the record's JSON is read, at any depth: more names than the rendering
    reads, never fewer.
    """

    def __init__(self, person_names: frozenset[str]) -> None:
        self._names = person_names
        self._decoder = json.JSONDecoder()
        self._remembered: dict[bytes, tuple[str, ...]] = {}

    def named_in(self, document: bytes) -> bytes:
        """The persons' names among the free-text names of a record's compact JSON (b"" when none is)."""
        found: set[str] = set()
        for key in _FREE_TEXT_KEYS:
            start = document.find(key)
            while start >= 0:
                start += len(key)
                found.update(self._persons_at(document, start))
                start = document.find(key, start)
        return "\n".join(sorted(found)).encode() if found else b""

    def _persons_at(self, document: bytes, start: int) -> tuple[str, ...]:
        """The persons' names of the value at ``start``; a value records repeat byte for byte is read once."""
        closing = _CLOSING.get(document[start]) if start < len(document) else None
        stop = document.find(closing, start + 1) if closing else -1
        value_bytes = document[start : stop + 1] if stop >= 0 else None
        persons = self._remembered.get(value_bytes) if value_bytes is not None else None
        if persons is not None:
            return persons
        text = document[start:].decode()
        value, end = self._decoder.raw_decode(text)
        names = value if isinstance(value, list) else [value]
        persons = tuple(name.strip() for name in names if isinstance(name, str) and name.strip() in self._names)
        # Only a value that ends at that first closing byte is all of value_bytes (not so: "a\"b", ["a]b"]).
        if value_bytes is not None and len(text[:end].encode()) == len(value_bytes):
            if len(self._remembered) >= _MAX_REMEMBERED:
                self._remembered.clear()
            self._remembered[value_bytes] = persons
        return persons


def _record_source(document: bytes, shared: bytes, persons: FreeTextPersons) -> str:
    """The digest of what a record is rendered from: its JSON, its project's part (``shared``), its persons."""
    digest = hashlib.blake2b(document, digest_size=8, key=shared)
    named = persons.named_in(document)
    if named:  # JSON text holds no NUL byte: the names cannot be mistaken for the document
        digest.update(b"\0" + named)
    return digest.hexdigest()


def _context_digest(context: item_metadata.ProjectContext, specs: tuple[str, ...], renderer: str) -> bytes:
    """Everything a record's bytes depend on besides its own JSON and its persons, as a 16-byte key."""
    parts = (
        repr(context.project_related),
        context.fallback_year,
        repr(context.languages),
        repr(context.issued),
        " ".join(specs),
        renderer,
    )
    return hashlib.blake2b("\0".join(parts).encode(), digest_size=16).digest()


# What a rendering process works on: set in the process (forked for one project's records), never in svc's own.
_forked_work: tuple[RecordTable, item_metadata.ProjectContext, tuple[str, ...]] | None = None


def _start_rendering(table: RecordTable, context: item_metadata.ProjectContext, specs: tuple[str, ...]) -> None:
    global _forked_work
    _forked_work = (table, context, specs)


def _render_row(row: int) -> str:
    assert _forked_work is not None
    table, context, specs = _forked_work
    return _record_renderer(table, row, context, specs)()


def _render_in_parallel(
    table: RecordTable, context: item_metadata.ProjectContext, specs: tuple[str, ...], rows: list[int], workers: int
) -> list[str]:
    """The fingerprints of ``rows``, rendered by ``workers`` forked processes that share the table (copy on write)."""
    forking = multiprocessing.get_context("fork")
    with forking.Pool(workers, initializer=_start_rendering, initargs=(table, context, specs)) as pool:
        return pool.map(_render_row, rows, chunksize=max(1, len(rows) // (workers * 16)))


def _record_renderer(
    table: RecordTable, row: int, context: item_metadata.ProjectContext, specs: tuple[str, ...]
) -> Callable[[], str]:
    def render() -> str:
        metadata = item_metadata.record_metadata(table.record(row), context)
        return published_fingerprint(specs, (f.render(metadata) for f in FORMATS.values()))

    return render


def stamp_release(
    data_dir: str | os.PathLike[str], site_url: str, now: int, *, activate_in: int = 0, dry_run: bool = False
) -> ledger.Summary:
    """Compare the data with its ledger and write the new release (see docs/change-ledger.md).

    Raises :class:`StampRefused` when the data or the ledger does not load
    cleanly: a half-copied records file would otherwise look like the
    withdrawal of thousands of records.
    """
    try:
        # Records are read one project at a time while stamping: a million never sit in memory at once.
        catalog = load_catalog(data_dir, with_records=False)
    except DataDirError as error:
        raise StampRefused(str(error)) from None
    if catalog.problems:
        reasons = "; ".join(f"{problem.path}: {problem.reason}" for problem in catalog.problems[:5])
        raise StampRefused(f"{len(catalog.problems)} problem(s) loading {data_dir}: {reasons}")
    path = ledger.ledger_path(data_dir)
    old = path.open(encoding="utf-8") if path.is_file() else None
    snapshot: SnapshotPass | None = None
    try:
        tables = iter_record_tables(data_dir, catalog.projects)
        if not dry_run:  # the same single pass writes the snapshot svc serve opens (docs/snapshot.md)
            snapshot = SnapshotPass(data_dir)
            tables = snapshot.passing(tables)
        items = ledger_items(catalog, tables, site_url, KnownSources(old), len(os.sched_getaffinity(0)))
        summary = ledger.stamp(data_dir, items, now, dry_run=dry_run, activate_in=activate_in)
        if snapshot is not None:  # what the snapshot keeps of the whole catalogue and the ledger just written
            write_catalog_part(data_dir, catalog, snapshot.written)
        return summary
    except DataDirError as error:
        raise StampRefused(str(error)) from None
    except (ledger.LedgerError, OSError, UnicodeDecodeError) as error:
        raise StampRefused(f"{path}: {error}") from None
    finally:
        if snapshot is not None:
            snapshot.close()
        if old is not None:
            old.close()
