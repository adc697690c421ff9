"""The records and their search indexes, written once by ``svc stamp`` and opened by ``mmap`` at start-up.

Loading a million records from JSON and indexing them takes the better part
of a minute and a gigabyte; opening this file takes a second or two and the
operating system's page cache holds one copy of it for every worker (and
every replica on the host). It is derived data beside the ledger
(``<data_dir>/.svc/snapshot.bin``), never the source of truth: it records
which files it was built from (path, size, modification time) and their data
version, and is used only while they are unchanged (docs/snapshot.md).

Once the ledger is written, ``svc stamp`` adds the *catalogue part*
(``<data_dir>/.svc/snapshot-catalog.bin``, same layout): what is computed
over the whole catalogue and its ledger, so that start-up neither parses the
ledger line by line nor every record's JSON — the ledger's serving view and
the all-records index. It names the snapshot and the ledger it was computed
from, and is used only with them.

Layout (all integers little-endian)::

    prelude, 64 bytes: MAGIC, format (u32), 0 (u32), body length (u64),
                       header length (u64), CRC-32 of body + header (u32)
    body:   the sections, each starting at a multiple of 64 bytes
    header: UTF-8 JSON (sorted keys): svc version, data version, the files,
            and per project where each section lies

Per project with records the sections are the record table (documents, pids
and ids as one blob plus n + 1 offsets each, datestamps) and its
:class:`~catalog.domain.record_search.ProjectRecordIndex` (the two sort orders;
the text search is the search engine's, :mod:`catalog.domain.engine`). Nothing in it is a Python
object per record: strings are read by slicing the map, arrays are numpy
views on it.
"""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import mmap
import os
import struct
import tempfile
import zlib
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

import numpy as np

from catalog.domain import dates, ledger, stamp_processes
from catalog.domain.all_records import (
    AllRecordsIndex,
    RecordsWithIndex,
    TableFacets,
    all_records_parts,
    facet_collector,
)
from catalog.domain.loader import (
    Conforms,
    check_data_dir,
    data_files,
    file_digest,
    fold_into_version,
    load_catalog,
    read_record_table,
    record_files,
    version_digest,
)
from catalog.domain.model import Catalog, Project, RecordTable, _Strings
from catalog.domain.progress import Progress, SharedCounts
from catalog.domain.record_search import IndexedRecordTable, ProjectRecordIndex, build_record_indexes
from catalog.domain.stamp_processes import ProcessLost, forked_pool
from catalog.domain.version import svc_version

logger = logging.getLogger("catalog.domain.snapshot")

SNAPSHOT_PATH = Path(".svc") / "snapshot.bin"
_RECORDS_DIR = "records/"  # where the records files are, in the names of the data files
MAGIC = b"svcsnap\0"
# What is computed over the whole catalogue after the ledger is written (the ledger's serving view).
CATALOG_PART_PATH = Path(".svc") / "snapshot-catalog.bin"
CATALOG_PART_MAGIC = b"svccatl\0"
# Bump when the layout, the record table or the record index (record_search) change.
FORMAT = 3
_PRELUDE = struct.Struct("<8sIIQQI")
PRELUDE_SIZE = 64
ALIGN = 64
_CHUNK = 1 << 20

# The arrays of one project, in file order: (name, numpy dtype) of each fixed-width section.
_STRING_SECTIONS = ("documents", "pids", "ids")
_ARRAY_SECTIONS = {
    "datestamps": "<i8",
    "by_label": "<i4",
    "by_date": "<i4",
}


class SnapshotUnusable(Exception):
    """The snapshot is missing, does not match the data or this svc, or is damaged: the reason says which."""


def snapshot_path(data_dir: str | os.PathLike[str]) -> Path:
    return Path(data_dir) / SNAPSHOT_PATH


def _file_states(data_dir: Path) -> list[list[Any]]:
    """[path, size, mtime in ns] of every file the loader reads, in its order."""
    states = []
    for path in data_files(data_dir):
        stat = path.stat()
        states.append([path.relative_to(data_dir).as_posix(), stat.st_size, stat.st_mtime_ns])
    return states


def _data_version(data_dir: Path, names: Iterable[str], known: Mapping[str, bytes] = MappingProxyType({})) -> str:
    """The data version :func:`~catalog.domain.loader.load_catalog` computes, from the files alone.

    ``known`` gives the digest of some files already (:func:`~catalog.domain.loader.file_digest`), by name.
    """
    digest = version_digest()
    for name in names:
        fold_into_version(digest, name, known[name] if name in known else file_digest(data_dir / name))
    return digest.hexdigest()


# Writing --------------------------------------------------------------------


class _SectionsFile:
    """A file being written: sections at aligned offsets (hashed on the way), then a JSON header, then the prelude.

    To a temporary file, renamed over the old one by :meth:`commit`, so a
    reader sees the old file or the new one, never half of one; leaving the
    ``with`` block without committing removes the temporary file.
    """

    def __init__(self, path: Path, magic: bytes) -> None:
        self.path, self.magic = path, magic
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.stem}-", dir=self.path.parent)
        self.temporary = Path(temporary)
        self.file = os.fdopen(handle, "wb")
        self.file.write(b"\0" * PRELUDE_SIZE)
        self.crc = 0
        self.length = 0

    def __enter__(self) -> _SectionsFile:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.file.close()
        self.temporary.unlink(missing_ok=True)

    def add(self, data: bytes | memoryview) -> list[int]:
        """Append a section; returns [offset in the body, length], what a header names it by."""
        padding = -self.length % ALIGN
        if padding:
            self._write(b"\0" * padding)
        start = self.length
        self._write(data)
        return [start, len(data)]

    def copy(self, source: io.BufferedReader, length: int) -> int:
        """Append ``length`` bytes read from ``source``, a chunk at a time, at an aligned offset; returns the offset."""
        self._write(b"\0" * (-self.length % ALIGN))
        start, chunk = self.length, bytearray(_CHUNK)
        while length:
            read = source.readinto(memoryview(chunk)[: min(length, _CHUNK)])
            if not read:
                raise OSError(f"{source.name} ended {length} bytes early")
            self._write(memoryview(chunk)[:read])
            length -= read
        return start

    def _write(self, data: bytes | memoryview) -> None:
        self.file.write(data)
        self.crc = zlib.crc32(data, self.crc)
        self.length += len(data)

    def commit(self, header: dict[str, Any]) -> Path:
        encoded = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
        self.file.write(encoded)
        self.crc = zlib.crc32(encoded, self.crc)
        self.file.seek(0)
        self.file.write(_PRELUDE.pack(self.magic, FORMAT, 0, self.length, len(encoded), self.crc))
        self.file.close()
        os.chmod(self.temporary, 0o644)
        os.replace(self.temporary, self.path)
        return self.path


def _offsets_bytes(strings: _Strings) -> bytes:
    return np.asarray(strings._offsets, dtype="<u8").tobytes()


def _write_project(body: _SectionsFile, table: RecordTable, index: ProjectRecordIndex) -> dict[str, Any]:
    sections: dict[str, list[int]] = {}
    for name, strings in (
        ("documents", table._documents),
        ("pids", table.pids),
        ("ids", table.ids),
    ):
        sections[name] = body.add(strings._blob)
        sections[name + ".offsets"] = body.add(_offsets_bytes(strings))
    arrays = {
        "datestamps": np.asarray(table.datestamps, dtype="<i8"),
        "by_label": index.by_label,
        "by_date": index.by_date,
    }
    for name, dtype in _ARRAY_SECTIONS.items():
        sections[name] = body.add(np.ascontiguousarray(arrays[name], dtype=dtype).tobytes())
    return {
        "shortcode": table.shortcode,
        "size": len(table),
        "dated": index.dated,
        "earliest_published": dates.earliest_record_published(table),
        "sections": sections,
    }


@dataclasses.dataclass(frozen=True)
class WrittenSnapshot:
    """A snapshot just written and its all-records index: the catalogue part is computed from them and the ledger."""

    checksum: str
    data_version: str
    # AllRecordsIndex.parts(), computed in a thread (numpy's sorts let go of the GIL) while the stamp finishes the
    # ledger and reads its serving view back: ten million records take seconds.
    all_records: Future[tuple[dict[str, Any], dict[str, np.ndarray]]]


class RecordWork(Protocol):
    """More to compute from each project's records while they are indexed (``svc stamp``'s fingerprints)."""

    def records(
        self, project_key: str, table: RecordTable, given: Any
    ) -> tuple[Callable[[int, Mapping[str, Any]], None], Callable[[], Any]]:
        """A function given each record (position, parsed JSON) and one giving the result (sent back pickled)."""
        ...


class SnapshotWriter:
    """Writes a snapshot one project at a time (a million records never sit in memory at once).

    Atomically (:class:`_SectionsFile`); the same files give the same bytes.
    Each project's records file is read and indexed — the search index, the
    all-records facets and the ``work`` given, from one parse of each
    record's JSON: nearly all a stamp costs — by one of :attr:`PROCESSES`
    processes forked before any records are read (small, so forking them
    costs nothing), ahead of the caller, who meanwhile works on the tables
    already there. That process writes the project's sections to a part file
    of its own, which the snapshot copies in a chunk at a time, so a large
    project's records are never pickled or held twice. A project is written
    in the order given, once its part is there. How far ahead is a matter of
    bytes, not projects: while one process works on a large project, the
    other goes on with the next ones.
    """

    PROCESSES = stamp_processes.PROCESSES
    # Records files read ahead of the caller, in bytes of JSON: as much again in part files on disk, and a tenth in
    # memory (each record's source and fingerprint). Enough that while the caller waits for a large project, the other
    # process goes on (256 MiB left one process idle a sixth of the time at ten million records).
    READ_AHEAD_BYTES = 1 << 30
    # A project is read first when its records file is more than 1/LARGE_SHARE of all of them (or a quarter of the
    # read-ahead): its part then waits on disk, its records' sources and fingerprints in memory, until its turn.
    LARGE_SHARE = 4 * PROCESSES

    def __init__(self, data_dir: str | os.PathLike[str], work: RecordWork, progress: Progress | None = None) -> None:
        self.root = Path(data_dir)
        self.progress = progress
        self.files = _file_states(self.root)
        # What each file adds to the data version, taken before the tables are read (a file edited while stamping
        # then leaves the snapshot unused, never wrong). A records file's comes from the process that reads it: of
        # the very bytes its table holds.
        self.file_digests = {
            name: file_digest(self.root / name) for name, _, _ in self.files if not name.startswith(_RECORDS_DIR)
        }
        self.projects: dict[str, Any] = {}
        self.facets: list[tuple[Project, str, TableFacets]] = []
        self.out = _SectionsFile(snapshot_path(self.root), MAGIC)
        # The processes' part files, removed with what they hold when the writer is done.
        self._parts = tempfile.TemporaryDirectory(
            prefix=".parts-", dir=self.out.path.parent, ignore_cleanup_errors=True
        )
        # Forked at the first project (the processes have ``work`` and all it holds without pickling it), and ended
        # with the stamp: see catalog.domain.stamp_processes.
        self._pool = forked_pool(
            self.PROCESSES, READER_NAME, _start_reader, (work, progress.counts if progress else None)
        )

    def __enter__(self) -> SnapshotWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        # Waiting for a project a process is still reading (after a failure elsewhere): its part file then goes
        # with the others, where a process still writing would leave one behind.
        self._pool.shutdown(wait=True, cancel_futures=True)
        self.out.__exit__(*exc)
        self._parts.cleanup()

    def tables(
        self, projects: Sequence[Project], given: Callable[[Project], Any]
    ) -> Iterator[tuple[Project, RecordTable | None, Any]]:
        """Each project with its records (None: no records file) and its work's result, in the order given.

        ``given(project)`` is what the work is given with the project's
        records, asked once for each project that has any (not always in
        their order: a large project is read first). Raises
        :class:`~catalog.domain.loader.DataDirError` when a records file does not load.
        """
        paths = record_files(self.root, projects)
        sizes = {key: path.stat().st_size for key, path in paths.items()}
        parts = Path(self._parts.name)

        def read(project: Project) -> Future[_Indexed]:
            task = (self.root, project.key, project.shortcode, paths[project.key], given(project), parts)
            try:
                return self._pool.submit(_read_and_index, *task)
            except BrokenProcessPool:  # a process ended before this project's turn came
                raise _lost(project) from None

        # Large projects are read first, the largest first, whatever their turn: read in its turn near the end, one
        # would keep a process busy long after the other has nothing left to do. Large: more than 1/LARGE_SHARE of
        # all records, or than a quarter of the read-ahead (which is what the other process goes on with meanwhile).
        total = sum(sizes.values())
        if self.progress is not None:
            self.progress.start(total)
        large = [
            key for key, size in sizes.items() if size * self.LARGE_SHARE > total or 4 * size > self.READ_AHEAD_BYTES
        ]
        by_key = {project.key: project for project in projects}
        early = {key: read(by_key[key]) for key in sorted(large, key=lambda key: (-sizes[key], key))}
        read_early = frozenset(early)
        ahead: deque[tuple[Project, Future[_Indexed] | None]] = deque()
        bytes_ahead = 0
        for project in projects:
            reading = early.pop(project.key, None)
            if reading is None and project.key in paths:
                reading = read(project)
                bytes_ahead += sizes[project.key]
            ahead.append((project, reading))
            while len(ahead) > self.PROCESSES and bytes_ahead > self.READ_AHEAD_BYTES:
                done = ahead.popleft()
                bytes_ahead -= 0 if done[0].key in read_early else sizes.get(done[0].key, 0)
                yield self._written(*done)
        while ahead:
            yield self._written(*ahead.popleft())

    def _written(self, project: Project, reading: Future[_Indexed] | None) -> tuple[Project, RecordTable | None, Any]:
        if reading is None:
            return project, None, None
        try:
            part, name, file_digest, facets, result = reading.result()
        except BrokenProcessPool:
            raise _lost(project) from None
        self.file_digests[name] = file_digest
        self.projects[project.key], table = self._copy_part(part)
        self.facets.append((project, table.shortcode, facets))
        return project, table, result

    def _copy_part(self, path: Path) -> tuple[dict[str, Any], IndexedRecordTable]:
        """Copy a project's part file into the snapshot: the project's header entry, and its table (read from the part).

        The part has the snapshot's layout, its sections aligned from the
        start of its body: copied at an aligned offset, they lie as if written
        here. Its table is a map of the part (removed at once: the map keeps
        it while the table lives), so only the pages read are in memory.
        """
        with path.open("rb") as part:
            header, body_length = _read_prelude_and_header(part)
            entry = header["project"]
            start = self.out.copy(part, body_length)
            table = _mapped_table(mmap.mmap(part.fileno(), 0, access=mmap.ACCESS_READ), entry["shortcode"], entry)
        path.unlink()
        sections = {name: [offset + start, length] for name, (offset, length) in entry["sections"].items()}
        return {**entry, "sections": sections}, table

    def commit(self) -> WrittenSnapshot:
        data_version = _data_version(self.root, (name for name, _, _ in self.files), self.file_digests)
        self.out.commit(
            {"svc": svc_version(), "data_version": data_version, "files": self.files, "projects": self.projects}
        )
        thread = ThreadPoolExecutor(1)
        index = thread.submit(all_records_parts, self.facets)
        thread.shutdown(wait=False)  # its thread ends with its one task
        return WrittenSnapshot(f"{self.out.crc:08x}", data_version, index)


def _lost(project: Project) -> ProcessLost:
    return ProcessLost(
        f"a process reading the records ended before it was done, at project {project.shortcode} "
        "or one near it (killed: out of memory?)"
    )


# The part file a process wrote a project's sections to, the records file's name and digest, the project's
# all-records facets and its work's result.
_Indexed = tuple[Path, str, bytes, TableFacets, Any]
# The name of a writer's reading process (/proc/<pid>/comm).
READER_NAME = b"svc-stamp-read"
# The work of this process, when it is one of a writer's (set as it starts), and the progress it adds to.
_process_work: RecordWork | None = None
_process_counts: SharedCounts | None = None
COUNTED_EVERY = 4096  # records between two additions to the progress counts


def _start_reader(work: RecordWork, counts: SharedCounts | None) -> None:
    """Set up one of a writer's processes: its work and the progress counts it adds to."""
    global _process_work, _process_counts
    _process_work, _process_counts = work, counts


def _counting(size: int, records: int) -> Callable[[int], None]:
    """A function given each record's position that adds to the progress counts every :data:`COUNTED_EVERY`
    records and at the last, the file's bytes in proportion to its records read."""
    counts = _process_counts
    if counts is None:
        return lambda position: None

    def count(position: int) -> None:
        done = position + 1
        if done % COUNTED_EVERY == 0 or done == records:
            counted = (done - 1) // COUNTED_EVERY * COUNTED_EVERY  # what earlier calls added
            counts.add(size * done // records - size * counted // records, done - counted)

    return count


def _read_and_index(data_dir: Path, key: str, shortcode: str, path: Path, given: Any, parts: Path) -> _Indexed:
    """A project's records file read into its table and indexed, and written to a part file in ``parts``.

    Run by one of the writer's processes.
    """
    table, file_digest = read_record_table(data_dir, shortcode, path)
    assert _process_work is not None  # set as the process started
    add_facets, facets = facet_collector(table)
    work, result = _process_work.records(key, table, given)
    count = _counting(path.stat().st_size, len(table))

    def each_record(position: int, record: Mapping[str, Any]) -> None:
        add_facets(position, record)
        work(position, record)
        count(position)

    index = ProjectRecordIndex.build(table, each_record)
    with _SectionsFile(parts / f"{key}.part", MAGIC) as part:
        written = part.commit({"project": _write_project(part, table, index)})
    return written, path.relative_to(data_dir).as_posix(), file_digest, facets(), result()


class SnapshotPass:
    """The record tables ``svc stamp`` reads for the ledger, read by the snapshot's writer, which writes them too."""

    def __init__(self, data_dir: str | os.PathLike[str], work: RecordWork, progress: Progress | None = None) -> None:
        self.writer = SnapshotWriter(data_dir, work, progress)
        self.written: WrittenSnapshot | None = None  # once all tables passed

    def tables(
        self, projects: Sequence[Project], given: Callable[[Project], Any]
    ) -> Iterator[tuple[Project, RecordTable | None, Any]]:
        """:meth:`SnapshotWriter.tables`; the snapshot is committed once all are through."""
        yield from self.writer.tables(projects, given)
        self.written = self.writer.commit()

    def close(self) -> None:
        """Remove what was not committed (the stamp failed) and stop the reading."""
        self.writer.__exit__()


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
    checksum: str  # of the file (hex): the catalogue part names the snapshot it was computed over by it


def open_snapshot(data_dir: str | os.PathLike[str], *, written: int | None = None) -> Snapshot:
    """Map and verify the snapshot of ``data_dir``; raises :class:`SnapshotUnusable` with the reason.

    Verified are its length and checksum (a truncated or damaged file), its
    format and svc version, and that the data files are the ones it was built
    from: same names and sizes, and same modification times, or else (a copy
    that did not keep them) the same data version, which reads every file.
    """
    root = Path(data_dir)
    path = snapshot_path(root)
    header, mapped, checksum = _open_verified(path, MAGIC, "there is no snapshot", written)
    try:
        _check_files(root, header)
        tables = {key: _mapped_table(mapped, entry["shortcode"], entry) for key, entry in header["projects"].items()}
        return Snapshot(data_version=header["data_version"], tables=tables, checksum=checksum)
    except (KeyError, TypeError, ValueError) as error:  # a sound checksum over a header this svc cannot read
        raise SnapshotUnusable(f"{path} does not have the layout of format {FORMAT}: {error!r}") from None


def _open_verified(
    path: Path, magic: bytes, missing: str, written: int | None = None
) -> tuple[dict[str, Any], mmap.mmap, str]:
    """The header, the map and the checksum (hex) of a complete, undamaged file of this format and svc version."""
    try:
        with path.open("rb") as file:
            header, checksum = _verified_header(path, file, magic, written)
            return header, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ), f"{checksum:08x}"
    except FileNotFoundError:
        raise SnapshotUnusable(f"{missing} ({path})") from None
    except OSError as error:
        raise SnapshotUnusable(f"{path} cannot be read: {error.strerror or error}") from None


def _read_prelude_and_header(file: io.BufferedReader) -> tuple[dict[str, Any], int]:
    """The header and body length of a file this process has just written (unverified); the body is read next."""
    _, _, _, body_length, header_length, _ = _PRELUDE.unpack_from(file.read(PRELUDE_SIZE))
    file.seek(PRELUDE_SIZE + body_length)
    header = json.loads(file.read(header_length))
    file.seek(PRELUDE_SIZE)
    return header, body_length


def _verified_header(
    path: Path, file: io.BufferedReader, expected: bytes, written: int | None = None
) -> tuple[dict[str, Any], int]:
    """The header and checksum of a complete, undamaged file of this format and svc version.

    The checksum (CRC-32: a fraction of a second for a gigabyte, where a
    cryptographic hash took over a second; it guards against damage, not
    against someone who may write the data directory anyway) is computed by
    reading, not through the map: the pages land in the page cache for the
    workers, not in this process's memory. ``written`` is the checksum of a
    file this process has just written: one with that checksum in its
    prelude is that file, and is not read again.
    """
    size = os.fstat(file.fileno()).st_size
    prelude = file.read(PRELUDE_SIZE)
    if len(prelude) < PRELUDE_SIZE:
        raise SnapshotUnusable(f"{path} is truncated")
    magic, version, _, body_length, header_length, checksum = _PRELUDE.unpack_from(prelude)
    if magic != expected:
        raise SnapshotUnusable(f"{path} is not an svc snapshot")
    if version != FORMAT:
        raise SnapshotUnusable(f"{path} has format {version}, this svc reads format {FORMAT}")
    if PRELUDE_SIZE + body_length + header_length != size:
        raise SnapshotUnusable(f"{path} is truncated or has extra bytes")
    if written is not None:
        if checksum != written:
            raise SnapshotUnusable(f"{path} changed since this process wrote it")
    else:
        crc, chunk = 0, bytearray(_CHUNK)
        while read := file.readinto(chunk):
            crc = zlib.crc32(memoryview(chunk)[:read], crc)
        if crc != checksum:
            raise SnapshotUnusable(f"{path} is damaged (checksum mismatch)")
    file.seek(PRELUDE_SIZE + body_length)
    try:
        header = json.loads(file.read(header_length))
        written_by = header["svc"]
    except (ValueError, KeyError, TypeError):
        raise SnapshotUnusable(f"{path} does not have the layout of format {FORMAT}") from None
    if written_by != svc_version():
        raise SnapshotUnusable(f"{path} was written by svc {written_by}, this is svc {svc_version()}")
    return header, checksum


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
        by_label=numbers("by_label"),
        by_date=numbers("by_date"),
        dated=entry["dated"],
    )
    return IndexedRecordTable(table, index, entry["earliest_published"])


# The catalogue part ---------------------------------------------------------


def catalog_part_path(data_dir: str | os.PathLike[str]) -> Path:
    return Path(data_dir) / CATALOG_PART_PATH


def _live_tables(snapshot: Snapshot, catalog: Catalog) -> dict[str, RecordTable]:
    """The snapshot's tables of the catalogue's projects, as the served catalogue holds them."""
    return {key: table for key, table in snapshot.tables.items() if key in catalog.project_by_key}


def write_catalog_part(
    data_dir: str | os.PathLike[str], catalog: Catalog, written: WrittenSnapshot | None
) -> Path | None:
    """Write what is computed over the whole catalogue once the ledger is written.

    That is the ledger's serving view and the all-records index, so that
    ``svc serve`` neither parses the ledger line by line nor every record.

    ``svc stamp`` calls it after the ledger, with the catalogue it stamped
    (without records: they are read from the snapshot just written, whose
    all-records index ``written`` brings). None, and no part (an old one
    removed), when that snapshot cannot be opened.
    """
    root = Path(data_dir)
    path = catalog_part_path(root)
    try:
        if written is None:
            raise SnapshotUnusable("the snapshot was not written")
        snapshot = open_snapshot(root, written=int(written.checksum, 16))  # changed since? (another stamp)
    except SnapshotUnusable as reason:
        logger.warning("snapshot's catalogue part not written: %s", reason)
        path.unlink(missing_ok=True)
        return None
    view = ledger.read_view(dataclasses.replace(catalog, records=_live_tables(snapshot, catalog)))
    with _SectionsFile(path, CATALOG_PART_MAGIC) as out:
        header = {
            "svc": svc_version(),
            "snapshot": [snapshot.checksum, snapshot.data_version],
            "projects": [project.key for project in catalog.projects],
            "ledger": None if view is None else _write_view(out, view),
            "all_records": _write_index(out, written.all_records.result()),
        }
        return out.commit(header)


def _write_view(out: _SectionsFile, view: ledger.LedgerView) -> dict[str, Any]:
    """A ledger view as the catalogue part keeps it: times per record as arrays, the rest (a few thousand) as JSON."""
    return {
        "digest": view.digest,
        "activation": view.activation,
        "projects": [[key, times.first_seen, times.changed] for key, times in view.projects.items()],
        "project_meta": [[key, list(meta)] for key, meta in view.project_meta.items()],
        "entities": [[kind, key, times.first_seen, times.changed] for (kind, key), times in view.entities.items()],
        "tombstones": [
            [t.kind, t.project_key, t.key, t.deleted, None if t.sets is None else list(t.sets), t.pid_prefix]
            for t in view.tombstones
        ],
        "records": [
            [key, out.add(changed.tobytes()), out.add(view.record_first_seen[key].tobytes())]
            for key, changed in view.record_changed.items()
        ],
        "unmatched": list(view.unmatched),
        "unmatched_count": view.unmatched_count,
        "previous_counts": list(view.previous_counts.items()),
        "release_counts": list(view.release_counts.items()),
    }


def _write_index(out: _SectionsFile, parts: tuple[dict[str, Any], dict[str, np.ndarray]]) -> dict[str, Any]:
    small, arrays = parts
    sections = {name: [out.add(np.ascontiguousarray(data).tobytes()), data.dtype.str] for name, data in arrays.items()}
    return {**small, "sections": sections}


def _read_index(mapped: mmap.mmap, stored: dict[str, Any], tables: Mapping[str, RecordTable]) -> AllRecordsIndex:
    """The all-records index as numpy views on the map (the page cache's one copy), over the tables' own indexes."""
    view = memoryview(mapped)
    arrays = {
        name: np.frombuffer(view[PRELUDE_SIZE + start : PRELUDE_SIZE + start + length], dtype=dtype)
        for name, ((start, length), dtype) in stored["sections"].items()
    }
    return AllRecordsIndex.from_parts(stored, arrays, build_record_indexes(tables))


def _read_view(mapped: mmap.mmap, stored: dict[str, Any], token_key: bytes | None) -> ledger.LedgerView:
    def times(section: list[int]) -> array[int]:
        start, length = section
        return array("q", memoryview(mapped)[PRELUDE_SIZE + start : PRELUDE_SIZE + start + length].cast("q"))

    metas = {key: tuple(meta) for key, meta in stored["project_meta"]}
    tombstones = tuple(
        ledger.Tombstone(
            kind, project_key, key, deleted, metas[project_key], None if sets is None else tuple(sets), prefix
        )
        for kind, project_key, key, deleted, sets, prefix in stored["tombstones"]
    )
    return ledger.LedgerView(
        digest=stored["digest"],
        activation=stored["activation"],
        projects={key: ledger.ProjectTimes(first, changed) for key, first, changed in stored["projects"]},
        record_changed={key: times(changed) for key, changed, _ in stored["records"]},
        record_first_seen={key: times(first) for key, _, first in stored["records"]},
        entities={(kind, key): ledger.ProjectTimes(first, changed) for kind, key, first, changed in stored["entities"]},
        tombstones=tombstones,
        project_meta=metas,
        unmatched=tuple(stored["unmatched"]),
        unmatched_count=stored["unmatched_count"],
        token_key=token_key,
        previous_counts=dict(stored["previous_counts"]),
        release_counts=dict(stored.get("release_counts", ())),  # a snapshot of svc before 1.0 has none
    )


def _stored_view(root: Path, mapped: mmap.mmap, stored: dict[str, Any] | None) -> ledger.LedgerView | None:
    """The stored ledger view, if the ledger is the one it was computed from (None: there was or is none)."""
    ledger_file = ledger.ledger_path(root)
    if stored is None or not ledger_file.is_file():
        return None  # no ledger then, or none now: the runtime reads what there is
    if ledger.ledger_digest(root) != stored["digest"]:
        raise SnapshotUnusable(f"{ledger_file} changed since `svc stamp` wrote {catalog_part_path(root)}")
    return _read_view(mapped, stored, ledger.read_token_key(root))


def _with_catalog_part(root: Path, snapshot: Snapshot, catalog: Catalog) -> Catalog:
    """The catalogue with what the catalogue part holds for it, if it is the part of this snapshot and data.

    And if the ledger is the one it was computed from (its digest, read in a
    fraction of a second). Else, as without a part, the ledger is read line
    by line and the all-records index built at warm-up (one WARNING says why).
    """
    path = catalog_part_path(root)
    try:
        header, mapped, _ = _open_verified(path, CATALOG_PART_MAGIC, "there is no catalogue part")
        if header["snapshot"] != [snapshot.checksum, snapshot.data_version]:
            raise SnapshotUnusable(f"{path} was written for another snapshot")
        if header["projects"] != [project.key for project in catalog.projects]:
            raise SnapshotUnusable(f"{path} was written for other projects (a project file does not validate?)")
        view = _stored_view(root, mapped, header["ledger"])
        index = _read_index(mapped, header["all_records"], catalog.records)
    except (KeyError, TypeError, ValueError) as error:
        reason: object = f"{path} does not have the layout of format {FORMAT}: {error!r}"
    except (SnapshotUnusable, OSError) as error:
        reason = error
    else:
        return dataclasses.replace(catalog, records=RecordsWithIndex(catalog.records, index), ledger=view)
    logger.warning(
        "snapshot's catalogue part not used: %s; reading the ledger line by line and indexing all records"
        " (slow at scale); "
        "run `svc stamp %s` to write it",
        reason,
        root,
    )
    return catalog


# Serving --------------------------------------------------------------------


def open_catalog(
    data_dir: str | os.PathLike[str],
    *,
    conforms: Conforms | None = None,
    announce: bool = True,
    written: int | None = None,
) -> Catalog:
    """The catalogue of ``data_dir``: the records from its snapshot when that matches, else from the JSON files.

    Projects, persons and the other entities (a few thousand) are always read
    from their JSON files. Without a usable snapshot, one WARNING says why
    and how to make one, and everything is loaded as :func:`load_catalog` does.
    ``written``: the checksum of the snapshot this process has just written, which is then not read again to be
    checked (7.8 GB at ten million records) when it is still that one (:func:`open_snapshot`).
    """
    check_data_dir(Path(data_dir))  # no directory: that error alone, not a word about its snapshot
    try:
        snapshot = open_snapshot(data_dir, written=written)
    except SnapshotUnusable as reason:
        logger.warning(
            "snapshot not used: %s; loading the records from JSON instead (slow at scale); "
            "run `svc stamp %s` to write one",
            reason,
            data_dir,
        )
        return load_catalog(data_dir, conforms=conforms)
    catalog = load_catalog(data_dir, with_records=False, conforms=conforms)
    records = _live_tables(snapshot, catalog)
    catalog = dataclasses.replace(catalog, data_version=snapshot.data_version, records=MappingProxyType(records))
    catalog = _with_catalog_part(Path(data_dir), snapshot, catalog)
    counts = ", ".join(f"{n} {kind}" for kind, n in catalog.counts().items())
    if announce:  # not for `svc stamp`, which reads back what it has just written: its summary says that
        logger.info("loaded %s from %s (records from its snapshot)", counts, data_dir)
    return catalog
