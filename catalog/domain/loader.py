"""Read a data directory into an immutable :class:`~catalog.domain.model.Catalog`.

Framework-free on purpose: the validator, the benchmark and the tests use it
without Django. A file that cannot be read or parsed is logged (file and
reason) and skipped as a whole, never half of it; the rest is served. A lone
UTF-16 surrogate in a string is served as U+FFFD (:mod:`catalog.domain.text_repair`).
"""

from __future__ import annotations

import codecs
import hashlib
import json
import logging
import os
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import islice
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypedDict, TypeVar

from catalog.domain.identifiers import shared_pid_carriers
from catalog.domain.model import (
    FUNDER_ROLE,
    Catalog,
    Cluster,
    Collection,
    LoadProblem,
    Organization,
    Person,
    Project,
    RecordTable,
    freeze,
)
from catalog.domain.text_repair import may_hold_surrogates, repair_surrogates

logger = logging.getLogger("catalog.domain.loader")

ENTITY_DIRS = ("projects", "persons", "organizations", "clusters", "collections", "records")
RECORDS_SUFFIX = "-records.json"
OPTIONAL_FILES = ("chronontology-periods.json", "temporal-coverage-enrichment.json")
# The largest entity file (projects/, persons/, … but not records/) that is read: a file of hundreds of
# megabytes there is a mistake, and would cost many times its size in memory. Records files have no limit.
MAX_ENTITY_FILE_BYTES = 16 * 1024 * 1024
# How much of a file is read and decoded at a time (JsonText keeps about one such chunk of text).
READ_CHUNK_BYTES = 16 * 1024 * 1024

# Whether an object of a type directory ("persons") matches that type's JSON Schema.
Conforms = Callable[[str, Mapping[str, Any]], bool]

_decoder = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER_CHARACTERS = re.compile(r"[0-9.eE+-]*")

E = TypeVar("E", Project, Person, Organization, Cluster, Collection)


class DataDirError(Exception):
    """The data directory itself is missing or unreadable: nothing can be served."""


class _FileSkipped(Exception):
    """A file-level problem (already reported): nothing of the file may be kept."""


def json_files(directory: Path) -> list[Path]:
    """The ``*.json`` files of a type directory, in name order (never directory order).

    A symbolic link counts even when it cannot be followed (a loop, a missing
    target), so that reading it reports the problem instead of skipping it unseen.
    """
    if not directory.is_dir():
        return []
    return sorted(
        path
        for path in directory.iterdir()
        if path.suffix == ".json" and (path.is_symlink() or path.is_file()) and not path.is_dir()
    )


def shrinkage(before: Mapping[str, int], after: Mapping[str, int], max_share: float) -> list[str]:
    """What replacing data with counts ``before`` by data with counts ``after`` would lose, if too much.

    A type that had items and now has none, or one whose count falls by more
    than ``max_share`` of what it had, is named with both counts; an empty
    list means the new data may replace the old. Shared by the reload and
    ``svc validate --previous`` so that both apply one rule.
    """
    losses = []
    for kind, had in before.items():
        has = after.get(kind, 0)
        if had and (has == 0 or (had - has) > max_share * had):
            losses.append(f"{kind} {had} -> {has}")
    return losses


class JsonText:
    """A JSON file's text read a chunk at a time: only the text not parsed yet is kept.

    A records file of two gigabytes decoded whole is a string of two to eight
    gigabytes (non-ASCII text takes two or four bytes a character): read this way, its
    items are parsed from a window of a chunk or two. :meth:`items` gives the
    same items and raises the same errors as parsing the whole text would,
    but the positions a :class:`json.JSONDecodeError` gives count from the
    window's start (:meth:`_Reader.objects` parses the whole text again to
    name the place).
    """

    def __init__(self, chunks: Iterable[str]) -> None:
        self._chunks = iter(chunks)
        self.text = ""  # the window: what is not parsed yet
        self.offset = 0  # the position of the window's start in the whole text
        self.complete = False  # the window holds the end of the text
        self.suspect = False  # the window may hold a surrogate escape (:func:`may_hold_surrogates`)

    def _extend(self, start: int, chunks: int = 1) -> int:
        """Drop the window's text before ``start`` and add the next ``chunks`` chunks; ``start``'s new position."""
        added = list(islice(self._chunks, chunks))
        if len(added) < chunks:
            self.complete = True
            if not added:  # nothing to add: the window (and its positions) stay as they are
                return start
        self.text, self.offset = "".join([self.text[start:], *added]), self.offset + start
        self.suspect = may_hold_surrogates(self.text)
        return 0

    def _skip_whitespace(self, index: int) -> int:
        """The position of the next character that is not whitespace (the window's end: there is none)."""
        while True:
            index = _skip_whitespace(self.text, index)
            if index < len(self.text) or self.complete:
                return index
            index = self._extend(index)

    def _value(self, index: int) -> tuple[Any, int]:
        """The JSON value at ``index`` and the position after it, with as many chunks as it takes.

        Each try that fails for want of text adds twice as many chunks as the
        one before: an error early in a large file costs one more read of it,
        not one per chunk.
        """
        more = 1
        while True:
            try:
                value, end = _decoder.raw_decode(self.text, index)
            except json.JSONDecodeError:
                if self.complete:
                    raise
            else:  # a number ends where no character that may continue a number follows it
                if (
                    self.complete
                    or not isinstance(value, int | float)
                    or _NUMBER_CHARACTERS.match(self.text, end).end() < len(self.text)  # type: ignore[union-attr]
                ):
                    return value, end
            index, more = self._extend(index, more), 2 * more

    def items(self) -> Iterator[Any]:
        """Yield the items of a JSON array (or the single object) one at a time.

        Parsing item by item keeps only one record's objects alive at a time, so a
        million-record file loads without a gigabyte of short-lived dicts.
        """
        index = self._skip_whitespace(0)
        if index >= len(self.text):
            raise ValueError("empty file")
        if self.text[index] != "[":
            while not self.complete:
                index = self._extend(index, 64)
            value, end = _decoder.raw_decode(self.text, index)
            if _skip_whitespace(self.text, end) != len(self.text):
                raise ValueError(f"extra data at character {self.offset + end}")
            yield value
            return
        index = self._skip_whitespace(index + 1)
        if index < len(self.text) and self.text[index] == "]":
            index += 1
        else:
            while True:
                value, index = self._value(index)
                yield value
                index = self._skip_whitespace(index)
                if index < len(self.text) and self.text[index] == ",":
                    index = self._skip_whitespace(index + 1)
                    continue
                if index < len(self.text) and self.text[index] == "]":
                    index += 1
                    break
                raise ValueError(f"expected ',' or ']' at character {self.offset + index}")
        after = self.offset + index
        if self._skip_whitespace(index) != len(self.text):
            raise ValueError(f"extra data at character {after}")


def _skip_whitespace(text: str, index: int) -> int:
    match = _WHITESPACE.match(text, index)  # matches everywhere: the class may match nothing
    return match.end() if match else index


def file_chunks(path: Path) -> Iterator[bytes]:
    """A file's bytes, :data:`READ_CHUNK_BYTES` at a time: a large file never sits in memory whole."""
    with path.open("rb") as file:
        while chunk := file.read(READ_CHUNK_BYTES):
            yield chunk


def _decoded(chunks: Iterable[bytes], file_hash: hashlib.blake2b) -> Iterator[str]:
    """The UTF-8 text of ``chunks``, a chunk at a time (a character split between two waits for the second).

    Each chunk is added to ``file_hash`` as it is read.
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    for chunk in chunks:
        file_hash.update(chunk)
        yield decoder.decode(chunk)
    yield decoder.decode(b"", final=True)


class _Reader:
    """Reads files, hashing every byte for the data version and noting problems."""

    def __init__(self, data_dir: Path, conforms: Conforms | None = None) -> None:
        self.data_dir = data_dir
        self.conforms = conforms
        self.digest = version_digest()
        self.file_digests: dict[str, bytes] = {}  # of each file read (file_hash), by its relative path
        self.problems: list[LoadProblem] = []

    def relative(self, path: Path) -> str:
        return path.relative_to(self.data_dir).as_posix()

    def problem(self, path: Path, reason: str, level: int = logging.ERROR) -> None:
        name = self.relative(path)
        logger.log(level, "skipped %s: %s", name, reason)
        self.problems.append(LoadProblem(name, reason))

    def repaired(self, path: Path, what: str) -> None:
        """One WARNING for a file served with U+FFFD for lone surrogates: changed data, but nothing lost to skip."""
        logger.warning(
            "%s: %s held lone UTF-16 surrogates (\\ud800-\\udfff escapes without a pair); served with U+FFFD "
            "instead (svc validate says where)",
            self.relative(path),
            what,
        )

    def too_large(self, path: Path) -> bool:
        """Whether an entity file is above :data:`MAX_ENTITY_FILE_BYTES` (then skipped, with one WARNING)."""
        try:
            size = path.stat().st_size
        except OSError:
            return False  # reading it reports why
        if size <= MAX_ENTITY_FILE_BYTES:
            return False
        self.problem(path, entity_file_too_large(size), logging.WARNING)
        return True

    def read_text(self, path: Path) -> str | None:
        try:
            data = path.read_bytes()
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            self.problem(path, f"cannot read: {getattr(error, 'strerror', None) or error}")
            return None
        self._fold(path, file_hash(data).digest())
        return text

    def objects(self, path: Path) -> Iterator[Mapping[str, Any]]:
        """The JSON objects of one file, streamed; raises :class:`_FileSkipped` at a file-level problem.

        The caller keeps what it built from the file only once the iteration
        completes, so a file broken half-way (truncated, too deeply nested) is
        skipped whole. The file is read a chunk at a time (:class:`JsonText`).
        """
        hashed, repaired = file_hash(), 0
        try:
            text = JsonText(_decoded(file_chunks(path), hashed))
            for position, value in enumerate(text.items()):
                if not isinstance(value, dict):
                    self.problem(path, f"item {position} is not a JSON object")
                elif text.suspect and (fixed := repair_surrogates(value)) is not value:
                    repaired += 1
                    yield fixed
                else:
                    yield value
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
            self._file_problem(path, error)
            raise _FileSkipped from None
        self._fold(path, hashed.digest())
        if repaired:
            self.repaired(path, f"{repaired} object(s)")

    def _fold(self, path: Path, file_digest: bytes) -> None:
        self.file_digests[self.relative(path)] = file_digest
        fold_into_version(self.digest, self.relative(path), file_digest)

    def _file_problem(self, path: Path, error: BaseException) -> None:
        """Note why a file is skipped, as reading and parsing its whole text says (positions count from its start)."""
        text = self.read_text(path)  # a file that cannot be read or decoded is noted there
        if text is None:
            return
        try:
            for _ in JsonText([text]).items():
                pass
        except (ValueError, RecursionError) as whole_text_error:
            self.problem(path, f"invalid JSON, file skipped: {_reason(whole_text_error)}")
            return
        # Whole, it reads and parses: the chunked read failed (a read error, or the file changed meanwhile).
        self.problem(path, f"cannot read: {getattr(error, 'strerror', None) or _reason(error)}")

    def entities(self, kind: str, build: Callable[[Mapping[str, Any]], E], key: str = "id") -> list[E]:
        loaded: list[E] = []
        for path in json_files(self.data_dir / kind):
            if self.too_large(path):
                continue
            in_file: list[E] = []
            objects = not_conforming = 0
            try:
                for raw in self.objects(path):
                    objects += 1
                    if self.conforms is not None and not self.conforms(kind, raw):
                        not_conforming += 1
                    if not isinstance(raw.get(key), str) or not raw[key].strip():
                        self.problem(path, f"an object has no {key!r}")
                        continue
                    in_file.append(build(freeze(raw)))
            except _FileSkipped:
                continue
            except RecursionError as error:  # freeze of an object nested deeper than the parser allows
                self.problem(path, f"invalid JSON, file skipped: {_reason(error)}")
                continue
            if not_conforming:
                logger.warning(
                    "%s: %d of %d object(s) do not match the schema of %s/; served as they are (svc validate says why)",
                    self.relative(path),
                    not_conforming,
                    objects,
                    kind,
                )
            loaded.extend(in_file)
        return loaded

    def optional_mapping(self, name: str) -> Mapping[str, Any]:
        path = self.data_dir / name
        if not path.is_file():
            return MappingProxyType({})
        text = self.read_text(path)
        try:
            value = json.loads(text) if text is not None else {}
            if not isinstance(value, dict):
                self.problem(path, "expected a JSON object")
                return MappingProxyType({})
            if may_hold_surrogates(text or "") and (fixed := repair_surrogates(value)) is not value:
                self.repaired(path, "the file")
                value = fixed
            frozen: Mapping[str, Any] = freeze(value)  # a JSON object, read-only
            return frozen
        except (ValueError, RecursionError) as error:
            self.problem(path, f"invalid JSON, file skipped: {_reason(error)}")
            return MappingProxyType({})

    def record_paths(self, known_projects: Mapping[str, Project]) -> dict[str, Path]:
        """The records file of each project key (a file of no known project is a problem)."""
        paths: dict[str, Path] = {}
        for path in json_files(self.data_dir / "records"):
            if not path.name.endswith(RECORDS_SUFFIX):
                self.problem(path, f"record files are named <SHORTCODE>{RECORDS_SUFFIX}")
                continue
            key = path.name[: -len(RECORDS_SUFFIX)].lower()
            if key not in known_projects:
                self.problem(path, f"records of unknown project {key!r}")
                continue
            paths[key] = path
        return paths

    def record_tables(self, known_projects: Mapping[str, Project]) -> dict[str, RecordTable]:
        tables: dict[str, RecordTable] = {}
        for key, path in self.record_paths(known_projects).items():
            table = self.record_table(known_projects[key].shortcode, path)
            if table is not None:
                tables[key] = table
        return tables

    def record_table(self, shortcode: str, path: Path) -> RecordTable | None:
        """One project's records, or None when the file is skipped whole (a finding names it)."""
        try:
            return RecordTable.build(shortcode, self.objects(path))
        except _FileSkipped:
            return None
        except RecursionError as error:  # a record nested deeper than its re-encoding allows
            self.problem(path, f"invalid JSON, file skipped: {_reason(error)}")
            return None


def entity_file_too_large(size: int) -> str:
    """Why an entity file of ``size`` bytes is not read (the loader's WARNING, the validator's finding)."""
    return f"{size} bytes, more than the {MAX_ENTITY_FILE_BYTES} bytes (16 MiB) an entity file may hold"


def version_digest() -> hashlib.blake2b:
    """A fresh data-version hash: :func:`fold_into_version` each file into it, in :func:`data_files` order."""
    return hashlib.blake2b(digest_size=12)


def file_hash(data: bytes = b"") -> hashlib.blake2b:
    """A hash of one data file's bytes, given whole or fed a chunk at a time (``update``)."""
    return hashlib.blake2b(data, digest_size=16)


def file_digest(path: Path) -> bytes:
    """The :func:`file_hash` digest of a file, read a chunk at a time."""
    hashed = file_hash()
    for chunk in file_chunks(path):
        hashed.update(chunk)
    return hashed.digest()


def fold_into_version(digest: hashlib.blake2b, name: str, file_digest: bytes) -> None:
    """Add one file (its path relative to the data directory, its :func:`file_hash`'s digest) to a data version.

    A hash of each file's hash, so that the file can be hashed by whoever reads
    it (``svc stamp``'s reading processes), in pieces.
    """
    digest.update(name.encode() + b"\0" + file_digest)


def data_files(data_dir: str | os.PathLike[str]) -> list[Path]:
    """The files :func:`load_catalog` reads, in the order it reads them (the order of the data version)."""
    root = Path(data_dir)
    files = [path for kind in ENTITY_DIRS for path in json_files(root / kind)]
    return files + [root / name for name in OPTIONAL_FILES if (root / name).is_file()]


def _reason(error: BaseException) -> str:
    """The reason of a file-level error, without the file's absolute path (the finding names the file)."""
    if isinstance(error, RecursionError):
        return "nested too deeply"
    return str(error)


def _unique(kind: str, entities: list[E], key: Callable[[E], str], reader: _Reader) -> dict[str, E]:
    """Index by key; a duplicate is reported and the first one (in file order) wins."""
    index: dict[str, E] = {}
    for entity in entities:
        name = key(entity)
        if name in index:
            reader.problems.append(LoadProblem(kind, f"duplicate {name!r}: the first one is served"))
            logger.error("%s: duplicate %r: the first one is served", kind, name)
            continue
        index[name] = entity
    return index


def check_data_dir(root: Path) -> None:
    """Raise :class:`DataDirError` unless ``root`` is a readable directory."""
    if not root.is_dir():
        raise DataDirError(f"data directory {str(root)!r} does not exist or is not a directory")
    if not os.access(root, os.R_OK | os.X_OK):
        raise DataDirError(f"data directory {str(root)!r} is not readable")


def check_holds_data(root: Path) -> None:
    """Raise :class:`DataDirError` unless ``root`` holds at least one entity file of a known type.

    An empty directory, one holding something else, or the parent of the data
    (a volume mounted one level too high) would otherwise be served as a
    healthy, empty catalogue. For the parent, the error names the
    subdirectory that looks like the data.
    """
    if _holds_entity_files(root):
        return
    try:
        children = sorted(child for child in root.iterdir() if child.is_dir())
    except OSError:
        children = []
    looks_like_data = [child.name for child in children if _holds_entity_files(child)]
    if looks_like_data:
        raise DataDirError(
            f"data directory {str(root)!r} holds no entity files; its subdirectory {looks_like_data[0]!r} "
            f"looks like the data directory ({str(root / looks_like_data[0])!r})"
        )
    raise DataDirError(
        f"data directory {str(root)!r} holds no entity files: expected *.json files in "
        + ", ".join(f"{kind}/" for kind in ENTITY_DIRS)
    )


def _holds_entity_files(directory: Path) -> bool:
    try:
        return any(json_files(directory / kind) for kind in ENTITY_DIRS)
    except OSError:
        return False


def load_catalog(
    data_dir: str | os.PathLike[str], *, with_records: bool = True, conforms: Conforms | None = None
) -> Catalog:
    """Load a whole data directory. Raises :class:`DataDirError` if it is unusable.

    ``with_records=False`` checks the records files' names but reads none (for a
    single pass over them with :func:`iter_record_tables`). With ``conforms``,
    an entity file holding objects that do not match their schema is named in
    one WARNING (they are served as they are).
    """
    root = Path(data_dir)
    check_data_dir(root)

    reader = _Reader(root, conforms)
    project_by_key = _unique(
        "projects", reader.entities("projects", Project.from_raw, "shortcode"), lambda p: p.key, reader
    )
    persons = _unique("persons", reader.entities("persons", Person.from_raw), lambda e: e.id, reader)
    organizations = _unique(
        "organizations", reader.entities("organizations", Organization.from_raw), lambda e: e.id, reader
    )
    clusters = _unique("clusters", reader.entities("clusters", Cluster.from_raw), lambda e: e.id, reader)
    collections = _unique("collections", reader.entities("collections", Collection.from_raw), lambda e: e.id, reader)
    if with_records:
        records = reader.record_tables(project_by_key)
    else:
        reader.record_paths(project_by_key)  # names checked, nothing read
        records = {}
    periods = reader.optional_mapping(OPTIONAL_FILES[0])
    enrichment = reader.optional_mapping(OPTIONAL_FILES[1])

    projects = tuple(sorted(project_by_key.values(), key=lambda p: (p.key, p.shortcode)))
    catalog = Catalog(
        data_dir=str(root),
        data_version=reader.digest.hexdigest(),
        projects=projects,
        persons=MappingProxyType(dict(sorted(persons.items()))),
        organizations=MappingProxyType(dict(sorted(organizations.items()))),
        clusters=MappingProxyType(dict(sorted(clusters.items()))),
        collections=MappingProxyType(dict(sorted(collections.items()))),
        records=MappingProxyType(dict(sorted(records.items()))),
        chronontology_periods=periods,
        temporal_coverage_enrichment=enrichment,
        problems=tuple(reader.problems),
        project_by_key=MappingProxyType(project_by_key),
        **_reverse_indexes(projects, persons, organizations, clusters, collections),
        person_names=frozenset(name for person in persons.values() for name in (person.display_name, person.sort_name)),
        shared_pid_carriers=MappingProxyType(shared_pid_carriers(projects, clusters.values())),
    )
    if with_records:
        logger.info("loaded %s from %s", ", ".join(f"{n} {kind}" for kind, n in catalog.counts().items()), root)
    return catalog


def iter_record_tables(
    data_dir: str | os.PathLike[str], projects: Sequence[Project]
) -> Iterator[tuple[Project, RecordTable | None]]:
    """Each project's record table, one at a time and in the order given.

    For one pass over a million records in the memory of the largest project.
    Raises :class:`DataDirError` as soon as a records file does not load.
    """
    paths = record_files(data_dir, projects)
    for project in projects:
        path = paths.get(project.key)
        yield project, read_record_table(data_dir, project.shortcode, path)[0] if path else None


def record_files(data_dir: str | os.PathLike[str], projects: Sequence[Project]) -> dict[str, Path]:
    """The records file of each project that has one; raises :class:`DataDirError` for a file of no project."""
    reader = _Reader(Path(data_dir))
    paths = reader.record_paths({project.key: project for project in projects})
    _raise_problems(reader)
    return paths


def read_record_table(data_dir: str | os.PathLike[str], shortcode: str, path: Path) -> tuple[RecordTable, bytes]:
    """The records file of project ``shortcode`` as its table, and the digest of the bytes it was read from.

    The digest (:func:`file_hash`) is what the file adds to the data version
    (:func:`fold_into_version`). Raises :class:`DataDirError` when the file does not load.
    """
    reader = _Reader(Path(data_dir))
    table = reader.record_table(shortcode, path)
    _raise_problems(reader)
    assert table is not None  # a file that does not load is a problem
    return table, reader.file_digests[reader.relative(path)]


def _raise_problems(reader: _Reader) -> None:
    if reader.problems:
        raise DataDirError("; ".join(f"{problem.path}: {problem.reason}" for problem in reader.problems[:5]))


def _frozen_groups(groups: Mapping[str, list[_Member]]) -> Mapping[str, tuple[_Member, ...]]:
    return MappingProxyType({key: tuple(items) for key, items in groups.items()})


class _ReverseIndexes(TypedDict):
    projects_by_person: Mapping[str, tuple[tuple[Project, tuple[str, ...]], ...]]
    projects_by_organization: Mapping[str, tuple[tuple[Project, tuple[str, ...]], ...]]
    persons_by_organization: Mapping[str, tuple[Person, ...]]
    clusters_by_project: Mapping[str, tuple[Cluster, ...]]
    collections_by_project: Mapping[str, tuple[Collection, ...]]
    parent_collections: Mapping[str, tuple[Collection, ...]]


def _reverse_indexes(
    projects: tuple[Project, ...],
    persons: Mapping[str, Person],
    organizations: Mapping[str, Organization],
    clusters: Mapping[str, Cluster],
    collections: Mapping[str, Collection],
) -> _ReverseIndexes:
    """person→projects, organization→projects/persons, project→clusters/collections."""
    by_person, by_organization = _projects_by_contributor(projects, persons)
    persons_by_organization: dict[str, list[Person]] = defaultdict(list)
    for person in persons.values():
        for organization_id in dict.fromkeys(person.affiliation_ids):
            persons_by_organization[organization_id].append(person)
    parent_collections: dict[str, list[Collection]] = defaultdict(list)
    for collection in collections.values():
        for child_id in dict.fromkeys(collection.collection_ids):
            parent_collections[child_id].append(collection)
    return {
        "projects_by_person": _frozen_groups(by_person),
        "projects_by_organization": _frozen_groups(by_organization),
        "persons_by_organization": _frozen_groups(persons_by_organization),
        "clusters_by_project": _frozen_groups(_groups_by_project(projects, clusters, lambda p: p.cluster_ids)),
        "collections_by_project": _frozen_groups(_groups_by_project(projects, collections, lambda p: p.collection_ids)),
        "parent_collections": _frozen_groups(parent_collections),
    }


_Credit = tuple[Project, tuple[str, ...]]
_Member = TypeVar("_Member")
_Group = TypeVar("_Group", Cluster, Collection)  # a project and the roles one contributor holds in it


def _projects_by_contributor(
    projects: tuple[Project, ...], persons: Mapping[str, Person]
) -> tuple[dict[str, list[_Credit]], dict[str, list[_Credit]]]:
    """Person id → its projects, and organization id → its projects (a funder holds the Funder role)."""
    by_person: dict[str, list[_Credit]] = defaultdict(list)
    by_organization: dict[str, list[_Credit]] = defaultdict(list)
    for project in projects:
        roles_by_contributor: dict[str, list[str]] = defaultdict(list)
        for attribution in project.attributions:
            roles_by_contributor[attribution.contributor_id].extend(attribution.roles)
        for funder_id in project.funder_ids:
            roles_by_contributor.setdefault(funder_id, []).append(FUNDER_ROLE)
        for contributor_id, roles in roles_by_contributor.items():
            target = by_person if contributor_id in persons else by_organization
            target[contributor_id].append((project, tuple(dict.fromkeys(roles))))
    return by_person, by_organization


def _groups_by_project(
    projects: tuple[Project, ...], groups: Mapping[str, _Group], named_by: Callable[[Project], tuple[str, ...]]
) -> dict[str, list[_Group]]:
    """Project key → the clusters (or collections) that list it, then those it names itself, each once."""
    by_project: dict[str, list[_Group]] = defaultdict(list)
    for group in groups.values():
        for shortcode in dict.fromkeys(s.lower() for s in group.project_shortcodes):
            by_project[shortcode].append(group)
    for project in projects:
        for group_id in named_by(project):
            named = groups.get(group_id)
            if named and named not in by_project[project.key]:
                by_project[project.key].append(named)
    return by_project
