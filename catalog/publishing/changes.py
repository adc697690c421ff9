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
records that give the old or the new name as text. The snapshot writer's
processes do this work while they index each project's records
(:class:`Publication`), so a record's JSON is parsed once for all of it.
Projects are few and always rendered.

A project's ledger line also remembers what its tombstone will need once it
is gone: its name (for the 410 page and the feed), its OAI identifier, its
records' shared pid prefix and the sets it and its records belong to (so a
deletion is listed in every set the item was in).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any, cast

from catalog.domain import engine, ledger, stamp_processes
from catalog.domain.ledger import Item, ProjectMeta, fingerprint
from catalog.domain.loader import DataDirError, iter_record_tables, load_catalog, record_files
from catalog.domain.model import Catalog, Project, RecordTable, to_json_bytes
from catalog.domain.progress import Progress
from catalog.domain.snapshot import SnapshotPass, open_catalog, write_catalog_part
from catalog.domain.stamp_processes import ProcessLost
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


class StampRefused(Exception):
    """The data directory (or its ledger) cannot be stamped; nothing was written."""


class StampUnfinished(Exception):
    """The release is stamped (its ledger and records written), but what is written after them was not.

    ``what``: the part that was not written; ``reason``: why. The next stamp writes it.
    """

    def __init__(self, summary: ledger.Summary, what: str, reason: str) -> None:
        super().__init__(f"{what}: {reason}")
        self.summary, self.what, self.reason = summary, what, reason


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
    """The lines of an existing ledger's records, project by project (found by one scan of the file)."""

    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._sections: dict[str, tuple[int, int]] = {}  # project key → where its records' lines start and end
        if path is None:
            return
        with path.open("rb") as lines:
            if not lines.readline().startswith(f"{ledger.MAGIC}\t{ledger.VERSION}\t".encode()):
                return  # another version: its records have no sources
            offset, start, key = lines.tell(), 0, None
            for line in lines:
                if line.startswith((b"P\t", b"E\t")):
                    if key is not None:
                        self._sections[key] = (start, offset)
                    key = line.split(b"\t", 2)[1].decode().lower() if line.startswith(b"P") else None
                    start = offset + len(line)
                offset += len(line)
            if key is not None:
                self._sections[key] = (start, offset)

    def of(self, project_key: str) -> bytes:
        """The ledger's lines of the records of ``project_key``, by pid (b"" when it has none)."""
        span = self._sections.get(project_key)
        if self._path is None or span is None:
            return b""
        with self._path.open("rb") as lines:
            lines.seek(span[0])
            return lines.read(span[1] - span[0])


def known_stamps(lines: bytes) -> Iterator[tuple[str, str, str]]:
    """(pid, source, fingerprint) of each record line of :meth:`KnownSources.of`, in their order (by pid)."""
    start = 0
    while start < len(lines):
        end = lines.find(b"\n", start)
        end = len(lines) if end < 0 else end
        fields = lines[start:end].decode().split("\t", 7)
        if fields[0] == "R" and len(fields) > 6:
            yield fields[1], fields[6], fields[2]
        start = end + 1


@dataclasses.dataclass(frozen=True)
class ProjectScope:
    """What a project's item and its records are published with: its sets, and what its records take from it."""

    project_specs: tuple[str, ...]
    record_specs: tuple[str, ...]
    fallback_year: str
    with_table: Catalog  # the catalogue with this project's records only: a project's issue date depends on them


class Publication:
    """The catalogue as ``svc stamp`` publishes it: each project's scope, and its records' sources and fingerprints.

    Built before the snapshot writer's processes start, which compute the
    records' part (:meth:`records`) while they index them: every record's
    JSON is parsed once for its index, its facets and, when its source is
    new, its rendering.
    """

    def __init__(self, catalog: Catalog, site_url: str) -> None:
        self.catalog = catalog
        self.site_url = site_url
        self.sets = build_sets(catalog)
        self.positions = {project.key: index for index, project in enumerate(catalog.projects)}
        self.renderer = renderer_digest()

    def scope(self, project: Project, table: RecordTable | None) -> ProjectScope:
        index = self.positions[project.key]
        with_table = dataclasses.replace(self.catalog, records={project.key: table} if table is not None else {})
        openaire = item_metadata.meets_openaire_mandatory(with_table, project)
        return ProjectScope(
            with_openaire(self.sets.project_specs[index], openaire),
            with_openaire(self.sets.record_specs[index], openaire),
            fallback_year(project),
            with_table,
        )

    def records(
        self, project_key: str, table: RecordTable, known: bytes
    ) -> tuple[Callable[[int, Mapping[str, Any]], None], Callable[[], RecordStamps]]:
        """A function to give each record of ``table`` (position, parsed JSON), and one that gives their stamps.

        ``known`` is what the ledger holds of the project's records
        (:meth:`KnownSources.of`): a record whose source is there keeps its
        fingerprint; the others are rendered.
        """
        project = self.catalog.projects[self.positions[project_key]]
        scope = self.scope(project, table)
        context = item_metadata.project_context(scope.with_table, project, self.site_url, scope.fallback_year)
        shared = _context_digest(context, scope.record_specs, self.renderer)
        persons = FreeTextPersons(context.person_names)
        sources = [_record_source(table.document(row), shared, persons) for row in range(len(table))]
        fingerprints = []
        ledger_records = known_stamps(known)
        recorded = next(ledger_records, None)
        for pid, source in zip(table.pids, sources, strict=True):  # both by pid: a merge join
            while recorded is not None and recorded[0] < pid:
                recorded = next(ledger_records, None)
            same = recorded is not None and recorded[0] == pid and recorded[1] == source
            fingerprints.append(recorded[2] if same and recorded is not None else "")
        specs, formats = scope.record_specs, tuple(FORMATS.values())

        def render(row: int, record: Mapping[str, Any]) -> None:
            if not fingerprints[row]:
                metadata = item_metadata.record_metadata(cast(dict[str, Any], record), context)  # read, never changed
                fingerprints[row] = published_fingerprint(specs, (f.render(metadata) for f in formats))

        return render, lambda: RecordStamps(sources, fingerprints)


@dataclasses.dataclass(frozen=True)
class RecordStamps:
    """Each record's source (what its bytes are rendered from) and fingerprint (of those bytes), in table order."""

    sources: list[str]
    fingerprints: list[str]


def ledger_items(
    publication: Publication, tables: Iterable[tuple[Project, RecordTable | None, RecordStamps | None]]
) -> Iterator[Item]:
    """Every project (then its records, by pid) and every other entity, in ledger order.

    ``tables`` gives each project of the catalogue, in order, with its records
    and their stamps (:meth:`Publication.records`).
    """
    catalog, site_url = publication.catalog, publication.site_url
    local_ids = project_local_ids(catalog.projects)
    formats = tuple(FORMATS.values())
    for index, (project, table, stamps) in enumerate(tables):
        assert project is catalog.projects[index]
        scope = publication.scope(project, table)
        meta = ProjectMeta(
            project.name, local_ids[index], shared_pid_prefix(table), scope.project_specs, scope.record_specs
        )
        metadata = item_metadata.project_metadata(scope.with_table, project, site_url, scope.fallback_year)
        rendered = published_fingerprint(scope.project_specs, (f.render(metadata) for f in formats))
        yield Item("P", project.key, project.shortcode, rendered, meta.fields())
        if table and stamps is not None:
            for pid, fingerprint_, source in zip(table.pids, stamps.fingerprints, stamps.sources, strict=True):
                yield Item("R", project.key, pid, fingerprint_, (), source)
    for kind in OTHER_ENTITIES:
        entities = getattr(catalog, kind)
        for key in sorted(entities):
            yield Item("E", kind, key, fingerprint(to_json_bytes(entities[key].raw)))


def _stamped_inline(
    publication: Publication, tables: Iterable[tuple[Project, RecordTable | None]], known: KnownSources
) -> Iterator[tuple[Project, RecordTable | None, RecordStamps | None]]:
    """The tables with their stamps, computed here (a dry run writes no snapshot, so no writer computes them)."""
    for project, table in tables:
        if table is None:
            yield project, None, None
            continue
        each, stamps = publication.records(project.key, table, known.of(project.key))
        for row in range(len(table)):
            each(row, table.record(row))
        yield project, table, stamps()


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


def _counted(
    data_dir: str | os.PathLike[str],
    catalog: Catalog,
    tables: Iterator[tuple[Project, RecordTable | None]],
    progress: Progress | None,
) -> Iterator[tuple[Project, RecordTable | None]]:
    """``tables`` as they are, each project's records file counted by ``progress`` once it is read."""
    if progress is None:
        yield from tables
        return
    sizes = {key: path.stat().st_size for key, path in record_files(Path(data_dir), catalog.projects).items()}
    progress.start(sum(sizes.values()))
    for project, table in tables:
        progress.add(sizes.get(project.key, 0), len(table) if table is not None else 0)
        yield project, table


def _step(progress: Progress | None, what: str) -> None:
    if progress is not None:
        progress.step(what)


def _finish(
    data_dir: str | os.PathLike[str],
    catalog: Catalog,
    snapshot: SnapshotPass,
    summary: ledger.Summary,
    progress: Progress | None,
) -> None:
    """What is written once the ledger is: the snapshot's catalogue part, then the search index.

    Raises :class:`StampUnfinished` naming the part not written: the release itself is stamped by then.
    """
    what = "the snapshot's catalogue part"
    try:  # what the snapshot keeps of the whole catalogue and the ledger just written
        _step(progress, "writing the snapshot")
        write_catalog_part(data_dir, catalog, snapshot.written)
        # The search index, over the records just written (read back from the snapshot: no JSON parsed twice).
        what = "the search index"
        _step(progress, "building the search index")
        written = None if snapshot.written is None else int(snapshot.written.checksum, 16)
        stamped = open_catalog(data_dir, announce=False, written=written)
        engine.write_stamped(stamped, data_dir, processes=stamp_processes.PROCESSES)
    except (ProcessLost, OSError) as error:
        raise StampUnfinished(summary, what, str(error)) from None


def stamp_release(
    data_dir: str | os.PathLike[str],
    site_url: str,
    now: int,
    *,
    activate_in: int = 0,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> ledger.Summary:
    """Compare the data with its ledger and write the new release (see docs/change-ledger.md).

    ``progress`` is given the bytes of the records files and the records as they are read.

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
    snapshot: SnapshotPass | None = None
    try:
        publication, known = Publication(catalog, site_url), KnownSources(path if path.is_file() else None)
        if dry_run:
            read = iter_record_tables(data_dir, catalog.projects)
            tables = _stamped_inline(publication, _counted(data_dir, catalog, read, progress), known)
        else:  # the snapshot's writer reads, indexes and stamps the records (docs/snapshot.md)
            snapshot = SnapshotPass(data_dir, publication, progress)
            tables = snapshot.tables(catalog.projects, lambda project: known.of(project.key))
        items = ledger_items(publication, tables)  # read (and counted) as the ledger is stamped
        summary = ledger.stamp(data_dir, items, now, dry_run=dry_run, activate_in=activate_in)
        if snapshot is not None:
            _finish(data_dir, catalog, snapshot, summary, progress)
        return summary
    except (DataDirError, ProcessLost) as error:
        raise StampRefused(str(error)) from None
    except (ledger.LedgerError, OSError, UnicodeDecodeError) as error:
        raise StampRefused(f"{path}: {error}") from None
    finally:
        if snapshot is not None:
            snapshot.close()
