"""The records and their search indexes, written once by ``svc stamp`` and opened by ``mmap`` at start-up.

Loading a million records from JSON and indexing them takes the better part
of a minute and a gigabyte; opening this file takes a second or two and the
operating system's page cache holds one copy of it for every worker (and
every replica on the host). It is derived data beside the ledger
(``<data_dir>/.svc/snapshot.bin``), never the source of truth: it records
which files it was built from (path, size, modification time) and their data
version, and is used only while they are unchanged (docs/snapshot.md).

Layout (all integers little-endian)::

    prelude, 64 bytes: MAGIC, format (u32), 0 (u32), body length (u64),
                       header length (u64), BLAKE2b-128 of body + header
    body:   the sections, each starting at a multiple of 64 bytes
    header: UTF-8 JSON (sorted keys): svc version, data version, the files,
            and per project where each section lies

Per project with records the sections are the record table (documents, pids
and ids as one blob plus n + 1 offsets each, datestamps) and its
:class:`~catalog.domain.record_search.ProjectRecordIndex` (vocabulary blob and
offsets, starts, postings, the two sort orders). Nothing in it is a Python
object per record: strings are read by slicing the map, arrays are numpy
views on it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import logging
import mmap
import os
import struct
import tempfile
from array import array
from collections.abc import Iterable, Iterator
from importlib import metadata
from pathlib import Path
from types import MappingProxyType
from typing import Any, BinaryIO

import numpy as np

from catalog.domain.loader import Conforms, check_data_dir, data_files, fold_into_version, load_catalog, version_digest
from catalog.domain.model import Catalog, Project, RecordTable, _Strings
from catalog.domain.record_search import IndexedRecordTable, ProjectRecordIndex

logger = logging.getLogger("catalog.domain.snapshot")

SNAPSHOT_PATH = Path(".svc") / "snapshot.bin"
MAGIC = b"svcsnap\0"
# Bump when the layout, the record table or the index rules (record_search, search.words) change.
FORMAT = 1
_PRELUDE = struct.Struct("<8sIIQQ16s")
PRELUDE_SIZE = 64
ALIGN = 64
_CHUNK = 1 << 20

# The arrays of one project, in file order: (name, numpy dtype) of each fixed-width section.
_STRING_SECTIONS = ("documents", "pids", "ids", "vocabulary")
_ARRAY_SECTIONS = {
    "datestamps": "<i8",
    "starts": "<i8",
    "postings": "<i4",
    "by_label": "<i4",
    "by_date": "<i4",
}


class SnapshotUnusable(Exception):
    """The snapshot is missing, does not match the data or this svc, or is damaged: the reason says which."""


def snapshot_path(data_dir: str | os.PathLike[str]) -> Path:
    return Path(data_dir) / SNAPSHOT_PATH


def svc_version() -> str:
    """The installed svc's version (a snapshot of another one is not used)."""
    try:
        return metadata.version("svc")
    except metadata.PackageNotFoundError:
        return "unknown"


def _file_states(data_dir: Path) -> list[list[Any]]:
    """[path, size, mtime in ns] of every file the loader reads, in its order."""
    states = []
    for path in data_files(data_dir):
        stat = path.stat()
        states.append([path.relative_to(data_dir).as_posix(), stat.st_size, stat.st_mtime_ns])
    return states


def _data_version(data_dir: Path, names: Iterable[str]) -> str:
    """The data version :func:`~catalog.domain.loader.load_catalog` computes, from the files alone."""
    digest = version_digest()
    for name in names:
        fold_into_version(digest, name, (data_dir / name).read_bytes())
    return digest.hexdigest()


# Writing --------------------------------------------------------------------


class _Body:
    """The body being written: sections appended at aligned offsets, hashed on the way."""

    def __init__(self, file: BinaryIO) -> None:
        self.file = file
        self.digest = hashlib.blake2b(digest_size=16)
        self.length = 0

    def add(self, data: bytes | memoryview) -> list[int]:
        padding = -self.length % ALIGN
        if padding:
            self._write(b"\0" * padding)
        start = self.length
        self._write(data)
        return [start, len(data)]

    def _write(self, data: bytes | memoryview) -> None:
        self.file.write(data)
        self.digest.update(data)
        self.length += len(data)


def _offsets_bytes(strings: _Strings) -> bytes:
    return np.asarray(strings._offsets, dtype="<u8").tobytes()


def _write_project(body: _Body, table: RecordTable, index: ProjectRecordIndex) -> dict[str, Any]:
    sections: dict[str, list[int]] = {}
    for name, strings in (
        ("documents", table._documents),
        ("pids", table.pids),
        ("ids", table.ids),
        ("vocabulary", index.vocabulary),
    ):
        sections[name] = body.add(strings._blob)
        sections[name + ".offsets"] = body.add(_offsets_bytes(strings))
    arrays = {
        "datestamps": np.asarray(table.datestamps, dtype="<i8"),
        "starts": index.starts,
        "postings": index.postings,
        "by_label": index.by_label,
        "by_date": index.by_date,
    }
    for name, dtype in _ARRAY_SECTIONS.items():
        sections[name] = body.add(np.ascontiguousarray(arrays[name], dtype=dtype).tobytes())
    return {"shortcode": table.shortcode, "size": len(table), "dated": index.dated, "sections": sections}


class SnapshotWriter:
    """Writes a snapshot one project at a time (a million records never sit in memory at once).

    To a temporary file, renamed over the old snapshot by :meth:`commit`, so a
    reader sees the old snapshot or the new one, never half of one; leaving
    the ``with`` block without committing removes the temporary file. The same
    files give the same bytes.
    """

    def __init__(self, data_dir: str | os.PathLike[str]) -> None:
        self.root = Path(data_dir)
        self.path = snapshot_path(self.root)
        self.files = _file_states(self.root)
        # Before the tables are read: a file edited while stamping then leaves the snapshot unused, never wrong.
        self.data_version = _data_version(self.root, (name for name, _, _ in self.files))
        self.projects: dict[str, Any] = {}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".snapshot-", dir=self.path.parent)
        self.temporary = Path(temporary)
        self.file = os.fdopen(handle, "wb")
        self.file.write(b"\0" * PRELUDE_SIZE)
        self.body = _Body(self.file)

    def __enter__(self) -> SnapshotWriter:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.file.close()
        self.temporary.unlink(missing_ok=True)

    def add(self, project: Project, table: RecordTable | None) -> None:
        if table is not None:
            self.projects[project.key] = _write_project(self.body, table, ProjectRecordIndex.build(table))

    def commit(self) -> Path:
        header = json.dumps(
            {
                "svc": svc_version(),
                "data_version": self.data_version,
                "files": self.files,
                "projects": self.projects,
            },
            sort_keys=True,
            separators=(",", ":"),
        ).encode()
        self.file.write(header)
        self.body.digest.update(header)
        self.file.seek(0)
        self.file.write(_PRELUDE.pack(MAGIC, FORMAT, 0, self.body.length, len(header), self.body.digest.digest()))
        self.file.close()
        os.chmod(self.temporary, 0o644)
        os.replace(self.temporary, self.path)
        return self.path


def write_snapshot(data_dir: str | os.PathLike[str], tables: Iterable[tuple[Project, RecordTable | None]]) -> Path:
    """Write the snapshot of ``tables`` (each project's, in any order) for the files in ``data_dir`` now."""
    with SnapshotWriter(data_dir) as writer:
        for project, table in tables:
            writer.add(project, table)
        return writer.commit()


def passing_into_snapshot(
    data_dir: str | os.PathLike[str], tables: Iterable[tuple[Project, RecordTable | None]]
) -> Iterator[tuple[Project, RecordTable | None]]:
    """Yield ``tables`` on, adding each to the snapshot, which is written once they are all through.

    So that ``svc stamp`` reads each records file once for the ledger and the
    snapshot together, one project at a time.
    """
    with SnapshotWriter(data_dir) as writer:
        for project, table in tables:
            writer.add(project, table)
            yield project, table
        writer.commit()


# Opening --------------------------------------------------------------------


class _MappedStrings(_Strings):
    """Strings packed in a mapped file: the map (sliced directly, the quickest way to bytes), where
    the blob starts in it, and the blob's offsets as a view on the map."""

    __slots__ = ("_start",)

    def __init__(self, mapped: mmap.mmap, start: int, offsets: memoryview) -> None:
        super().__init__(mapped, offsets)  # type: ignore[arg-type]
        self._start = start

    def raw(self, index: int) -> bytes:
        start, offsets = self._start, self._offsets
        return self._blob[start + offsets[index] : start + offsets[index + 1]]


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """An opened, verified snapshot: the data version it was built for and its record tables."""

    data_version: str
    tables: dict[str, IndexedRecordTable]


def open_snapshot(data_dir: str | os.PathLike[str]) -> Snapshot:
    """Map and verify the snapshot of ``data_dir``; raises :class:`SnapshotUnusable` with the reason.

    Verified are its length and checksum (a truncated or damaged file), its
    format and svc version, and that the data files are the ones it was built
    from: same names and sizes, and same modification times, or else (a copy
    that did not keep them) the same data version, which reads every file.
    """
    root = Path(data_dir)
    path = snapshot_path(root)
    try:
        with path.open("rb") as file:
            header = _verified_header(path, file)
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except FileNotFoundError:
        raise SnapshotUnusable(f"there is no snapshot ({path})") from None
    except OSError as error:
        raise SnapshotUnusable(f"{path} cannot be read: {error.strerror or error}") from None
    try:
        _check_files(root, header)
        tables = {key: _mapped_table(mapped, entry["shortcode"], entry) for key, entry in header["projects"].items()}
        return Snapshot(data_version=header["data_version"], tables=tables)
    except (KeyError, TypeError, ValueError) as error:  # a sound checksum over a header this svc cannot read
        raise SnapshotUnusable(f"{path} does not have the layout of format {FORMAT}: {error!r}") from None


def _verified_header(path: Path, file: io.BufferedReader) -> dict[str, Any]:
    """The header of a complete, undamaged snapshot of this format and svc version.

    The checksum is computed by reading, not through the map: the pages land
    in the page cache for the workers, not in this process's memory.
    """
    size = os.fstat(file.fileno()).st_size
    prelude = file.read(PRELUDE_SIZE)
    if len(prelude) < PRELUDE_SIZE:
        raise SnapshotUnusable(f"{path} is truncated")
    magic, version, _, body_length, header_length, checksum = _PRELUDE.unpack_from(prelude)
    if magic != MAGIC:
        raise SnapshotUnusable(f"{path} is not an svc snapshot")
    if version != FORMAT:
        raise SnapshotUnusable(f"{path} has format {version}, this svc reads format {FORMAT}")
    if PRELUDE_SIZE + body_length + header_length != size:
        raise SnapshotUnusable(f"{path} is truncated or has extra bytes")
    digest = hashlib.blake2b(digest_size=16)
    chunk = bytearray(_CHUNK)
    while read := file.readinto(chunk):
        digest.update(memoryview(chunk)[:read])
    if digest.digest() != checksum:
        raise SnapshotUnusable(f"{path} is damaged (checksum mismatch)")
    file.seek(PRELUDE_SIZE + body_length)
    try:
        header = json.loads(file.read(header_length))
        written_by = header["svc"]
    except (ValueError, KeyError, TypeError):
        raise SnapshotUnusable(f"{path} does not have the layout of format {FORMAT}") from None
    if written_by != svc_version():
        raise SnapshotUnusable(f"{path} was written by svc {written_by}, this is svc {svc_version()}")
    return header


def _check_files(root: Path, header: dict[str, Any]) -> None:
    built_from = [tuple(state) for state in header["files"]]
    try:
        now = [tuple(state) for state in _file_states(root)]
    except OSError as error:
        raise SnapshotUnusable(f"a data file cannot be read: {error}") from None
    if now == built_from:
        return
    if [state[:2] for state in now] != [state[:2] for state in built_from]:
        changed = sorted({state[0] for state in now} ^ {state[0] for state in built_from}) or [
            a[0] for a, b in zip(now, built_from, strict=True) if a[:2] != b[:2]
        ]
        raise SnapshotUnusable(f"the data changed since it was written ({', '.join(changed[:3])})")
    try:
        same = _data_version(root, (state[0] for state in now)) == header["data_version"]
    except OSError as error:
        raise SnapshotUnusable(f"a data file cannot be read: {error}") from None
    if not same:
        raise SnapshotUnusable("the data changed since it was written (same sizes, other contents)")


def _mapped_table(mapped: mmap.mmap, shortcode: str, entry: dict[str, Any]) -> IndexedRecordTable:
    sections = entry["sections"]
    view = memoryview(mapped)

    def part(name: str) -> memoryview:
        start, length = sections[name]
        return view[start + PRELUDE_SIZE : start + PRELUDE_SIZE + length]

    def strings(name: str) -> _MappedStrings:
        return _MappedStrings(mapped, sections[name][0] + PRELUDE_SIZE, part(name + ".offsets").cast("Q"))

    def numbers(name: str) -> np.ndarray:
        return np.frombuffer(part(name), dtype=_ARRAY_SECTIONS[name])

    table = RecordTable(
        shortcode,
        documents=strings("documents"),
        pids=strings("pids"),
        ids=strings("ids"),
        # An array, not a view: the OAI side counts and combines it like the JSON path's.
        datestamps=array("q", part("datestamps").cast("q")),
    )
    index = ProjectRecordIndex(
        size=entry["size"],
        vocabulary=strings("vocabulary"),
        starts=numbers("starts"),
        postings=numbers("postings"),
        by_label=numbers("by_label"),
        by_date=numbers("by_date"),
        dated=entry["dated"],
    )
    return IndexedRecordTable(table, index)


# Serving --------------------------------------------------------------------


def open_catalog(data_dir: str | os.PathLike[str], *, conforms: Conforms | None = None) -> Catalog:
    """The catalogue of ``data_dir``: the records from its snapshot when that matches, else from the JSON files.

    Projects, persons and the other entities (a few thousand) are always read
    from their JSON files. Without a usable snapshot, one WARNING says why
    and how to make one, and everything is loaded as :func:`load_catalog` does.
    """
    check_data_dir(Path(data_dir))  # no directory: that error alone, not a word about its snapshot
    try:
        snapshot = open_snapshot(data_dir)
    except SnapshotUnusable as reason:
        logger.warning(
            "snapshot not used: %s; loading the records from JSON instead (slow at scale); "
            "run `svc stamp %s` to write one",
            reason,
            data_dir,
        )
        return load_catalog(data_dir, conforms=conforms)
    catalog = load_catalog(data_dir, with_records=False, conforms=conforms)
    records = {key: table for key, table in snapshot.tables.items() if key in catalog.project_by_key}
    catalog = dataclasses.replace(catalog, data_version=snapshot.data_version, records=MappingProxyType(records))
    counts = ", ".join(f"{n} {kind}" for kind, n in catalog.counts().items())
    logger.info("loaded %s from %s (records from its snapshot)", counts, data_dir)
    return catalog
