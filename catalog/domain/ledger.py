"""The change ledger: when each published item was first seen, last changed, or withdrawn.

The data files carry no modification times and the service holds no
database, so the publishing pipeline keeps this file beside the data
(``<data_dir>/.svc/ledger.tsv``, written by ``svc stamp``) and every replica
reads the same one. Framework-free: the stamping merge, the file format and
the serving view live here; which items exist (and what a tombstone must
remember to stay listed in OAI-PMH) is supplied by the caller.

File format (UTF-8 text, one item per line, tab-separated; see
docs/change-ledger.md): a header line with the release's activation time,
then ``P`` lines (a project), each followed by the ``R`` lines of its
records, then ``E`` lines (persons, organizations, clusters, collections).
Lines are in one fixed order, times are integer seconds since the epoch
(UTC), and the same data with the same ledger always writes the same bytes.

Every change a stamp finds is dated with the release's activation time, the
moment from which replicas serve it (never earlier): see
:func:`activation_time` and docs/oai-pmh.md for the guarantee this gives.
"""

from __future__ import annotations

import hashlib
import heapq
import io
import json
import os
import secrets
import tempfile
from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import BinaryIO, NamedTuple

import numpy as np

from catalog.domain.model import NO_DATESTAMP, Catalog

LEDGER_PATH = Path(".svc") / "ledger.tsv"
# The key resumption tokens are signed with: made once by the first stamp, shipped with the data, never served.
TOKEN_KEY_PATH = Path(".svc") / "token-key"
MAGIC = "svc-ledger"
VERSION = "2"
_ABSENT = ""  # an empty time field: not deleted / same as the time before it


def ledger_path(data_dir: str | os.PathLike[str]) -> Path:
    return Path(data_dir) / LEDGER_PATH


def header(activation: int) -> str:
    return f"{MAGIC}\t{VERSION}\t{activation}"


def read_token_key(data_dir: str | os.PathLike[str]) -> bytes | None:
    """The secret resumption tokens are signed with, if ``svc stamp`` made one."""
    path = Path(data_dir) / TOKEN_KEY_PATH
    try:
        key = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return key.encode() if len(key) >= 32 else None


def _ensure_token_key(data_dir: str | os.PathLike[str]) -> None:
    path = Path(data_dir) / TOKEN_KEY_PATH
    if read_token_key(data_dir) is not None:
        return
    path.parent.mkdir(exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".token-key-", suffix=".tmp")
    with os.fdopen(handle, "w", encoding="ascii") as out:
        out.write(secrets.token_hex(32) + "\n")
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)


# Names the one release whose withdrawals the operator accepted (svc stamp --accept-shrink): its activation time.
SHRINK_ACCEPTED_PATH = Path(".svc") / "shrink-accepted"


def accept_shrink(data_dir: str | os.PathLike[str], activation: int) -> None:
    """Record that the release activated at ``activation`` may withdraw what it withdraws (atomically)."""
    path = Path(data_dir) / SHRINK_ACCEPTED_PATH
    path.parent.mkdir(exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".shrink-accepted-", suffix=".tmp")
    with os.fdopen(handle, "w", encoding="ascii") as out:
        out.write(f"{activation}\n")
    os.chmod(temporary, 0o644)
    os.replace(temporary, path)


def shrink_accepted(data_dir: str | os.PathLike[str], activation: int | None) -> bool:
    """Whether the operator accepted the withdrawals of the release activated at ``activation``.

    The acceptance names one release, so it holds for every start and reload
    of that release and for no later one.
    """
    if activation is None:
        return False
    try:
        text = (Path(data_dir) / SHRINK_ACCEPTED_PATH).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return False
    return text == str(activation)


def activation_time(now: int, activate_in: int, previous: int | None) -> int:
    """When a new release becomes visible: ``activate_in`` seconds from now, and after the previous one.

    Every change of the release is dated with it, and replicas serve the
    release from that moment on (not before), so a change is never dated
    earlier than the moment it can first be harvested.
    """
    moment = now + max(activate_in, 0)
    return moment if previous is None else max(moment, previous + 1)


def fingerprint(content: bytes) -> str:
    """16 hex digits of BLAKE2b: 2⁻⁶⁴ chance that a change goes unnoticed."""
    return hashlib.blake2b(content, digest_size=8).hexdigest()


class Item(NamedTuple):
    """One published item as ``svc stamp`` sees it now (a tuple: a stamp makes one per record).

    ``kind`` is ``P`` (project), ``R`` (record of ``group``) or ``E`` (any other
    entity, ``group`` its kind); ``meta`` is what a tombstone of it must
    remember (for a project: shortcode, name, OAI identifier, sets), kept
    opaque here and written as given.

    A record also has a ``source``: a digest of everything its published
    bytes are made from, kept so that the next stamp renders it again only
    when that changes (:mod:`catalog.publishing.changes`).
    """

    kind: str
    group: str
    key: str
    fingerprint: str
    meta: tuple[str, ...] = ()
    source: str = ""

    @property
    def order(self) -> tuple[int, str, int, str]:
        return _order(self.kind, self.group, self.key)


_AFTER_ALL = (2, "", 0, "")  # after every line's order (the first field of a line's is 0 or 1)


def _order(kind: str, group: str, key: str) -> tuple[int, str, int, str]:
    """The ledger's line order: each project then its records (by pid), then other entities."""
    if kind == "E":
        return (1, group, 0, key)
    return (0, group, 0 if kind == "P" else 1, key)


class Entry(NamedTuple):
    """One ledger line (a tuple: a stamp reads and writes one per record)."""

    kind: str
    group: str
    key: str
    fingerprint: str
    first_seen: int
    changed: int
    deleted: int | None = None
    meta: tuple[str, ...] = ()
    source: str = ""  # records only: the digest of what its bytes were rendered from

    @property
    def order(self) -> tuple[int, str, int, str]:
        return _order(self.kind, self.group, self.key)

    def line(self) -> str:
        changed = _ABSENT if self.changed == self.first_seen else str(self.changed)
        deleted = _ABSENT if self.deleted is None else str(self.deleted)
        key = f"{self.group}\t{self.key}" if self.kind == "E" else self.key
        fields = [self.kind, key, self.fingerprint, str(self.first_seen), changed, deleted]
        if self.kind == "R":
            fields.append(self.source)
        return "\t".join([*fields, *self.meta])


class LedgerError(ValueError):
    """The ledger file is not one ``svc stamp`` wrote."""


def _text(value: str) -> str:
    """A field without tabs or line breaks (names may hold any text)."""
    return json.dumps(value, ensure_ascii=False) if any(c in value for c in '\t\n\r"\\') else value


def meta_field(value: str) -> str:
    return _text(value)


def read_meta_field(value: str) -> str:
    return json.loads(value) if value.startswith('"') else value


class ProjectMeta(NamedTuple):
    """What a project's ledger line remembers for its tombstone (written by ``svc stamp``).

    Its name (for the 410 page and the feed), its OAI identifier (after
    ``oai:<repository>:``), its records' shared pid prefix and the sets it and
    its records are in, so that a deletion is listed where the item was.
    """

    name: str
    local_id: str
    pid_prefix: str
    project_specs: tuple[str, ...]
    record_specs: tuple[str, ...]

    def fields(self) -> tuple[str, ...]:
        return (
            meta_field(self.name),
            meta_field(self.local_id),
            meta_field(self.pid_prefix),
            " ".join(self.project_specs),
            " ".join(self.record_specs),
        )

    @classmethod
    def parse(cls, fields: tuple[str, ...]) -> ProjectMeta:
        name, local_id, pid_prefix, project_specs, record_specs = fields
        return cls(
            read_meta_field(name),
            read_meta_field(local_id),
            read_meta_field(pid_prefix),
            tuple(project_specs.split()),
            tuple(record_specs.split()),
        )


def read_header(line: str) -> tuple[str, int | None]:
    """The format version and the activation time of the ledger's first line."""
    fields = line.rstrip("\n").split("\t")
    if fields[:2] == [MAGIC, "1"] and len(fields) == 2:
        return "1", None
    if fields[:2] == [MAGIC, VERSION] and len(fields) == 3 and fields[2].isdigit():
        return VERSION, int(fields[2])
    raise LedgerError(f"the ledger does not start with {MAGIC!r} and a version this svc reads (1 or {VERSION})")


def iter_entries(lines: Iterable[str]) -> Iterator[Entry]:
    """Parse ledger lines (the header first); raise :class:`LedgerError` on anything else.

    Version 1 ledgers (no activation time, no record sources) are read too.
    """
    lines = iter(lines)
    version, _ = read_header(next(lines, ""))
    with_sources = version != "1"
    group = ""
    for number, raw in enumerate(lines, start=2):
        fields = raw.rstrip("\n").split("\t")
        kind = fields[0]
        try:
            if kind == "R" and group:  # nearly every line: positional, and no branch it does not need
                first, changed, deleted = int(fields[3]), fields[4], fields[5]
                yield Entry(
                    kind,
                    group,
                    fields[1],
                    fields[2],
                    first,
                    int(changed) if changed else first,
                    int(deleted) if deleted else None,
                    tuple(fields[7:] if with_sources else fields[6:]),
                    fields[6] if with_sources else "",
                )
                continue
            if kind == "E":
                entity_kind, fields = fields[1], [fields[0], *fields[2:]]
            first = int(fields[3])
            entry = Entry(
                kind=kind,
                group=entity_kind if kind == "E" else fields[1].lower(),
                key=fields[1],
                fingerprint=fields[2],
                first_seen=first,
                changed=int(fields[4]) if fields[4] else first,
                deleted=int(fields[5]) if fields[5] else None,
                meta=tuple(fields[6:]),
            )
        except (IndexError, ValueError):
            raise LedgerError(f"line {number} of the ledger is damaged") from None
        if kind not in ("P", "E"):  # R before any P, or no kind at all
            raise LedgerError(f"line {number} of the ledger is damaged")
        if kind == "P":
            group = entry.group
        yield entry


@dataclass
class Summary:
    added: int = 0
    changed: int = 0
    deleted: int = 0
    unchanged: int = 0
    activation: int = 0  # the release's activation time (the previous one's when nothing changed)

    @property
    def unchanged_release(self) -> bool:
        return not (self.added or self.changed or self.deleted)

    def __str__(self) -> str:
        return f"added {self.added}, changed {self.changed}, deleted {self.deleted}, unchanged {self.unchanged}"


def merge(old: Iterable[Entry], current: Iterable[Item], now: int, summary: Summary) -> Iterator[Entry]:
    """The new ledger: a merge join of the old one and the items now published, both in line order.

    Streaming on purpose: a million records never sit in memory at once.
    A tombstone stays a tombstone (with its first deletion time); an item
    that comes back after a withdrawal counts as changed. A record that is
    withdrawn keeps the sets and the pid prefix its project's line gave its
    records until then (its tombstone's own meta), so it stays listed where
    it was, under the identifier it had.
    """
    old_iter, new_iter = iter(old), iter(current)
    entry, item = next(old_iter, None), next(new_iter, None)
    # Each side's order, computed once per line (an exhausted side's comes after every line's).
    entry_order = _AFTER_ALL if entry is None else entry.order
    item_order = _AFTER_ALL if item is None else item.order
    old_project_meta: tuple[str, ...] = ()
    while entry is not None or item is not None:
        if entry is not None and entry.kind == "P":
            old_project_meta = entry.meta
        if entry_order < item_order:
            assert entry is not None
            yield _gone(entry, old_project_meta, now, summary)
            entry = next(old_iter, None)
            entry_order = _AFTER_ALL if entry is None else entry.order
        elif item_order < entry_order:
            assert item is not None
            yield _added(item, now, summary)
            item = next(new_iter, None)
            item_order = _AFTER_ALL if item is None else item.order
        else:
            assert entry is not None and item is not None
            yield _published_again(entry, item, now, summary)
            entry, item = next(old_iter, None), next(new_iter, None)
            entry_order = _AFTER_ALL if entry is None else entry.order
            item_order = _AFTER_ALL if item is None else item.order


def _gone(entry: Entry, old_project_meta: tuple[str, ...], now: int, summary: Summary) -> Entry:
    """An old line with no item now: a tombstone (dated ``now`` unless it already was one).

    A record's tombstone keeps the sets and the pid prefix of its project's
    old line (``old_project_meta``), so it stays listed where it was.
    """
    if entry.deleted is not None:
        return entry
    summary.deleted += 1
    meta = entry.meta
    if entry.kind == "R" and len(old_project_meta) == len(ProjectMeta._fields):
        project_meta = ProjectMeta.parse(old_project_meta).fields()
        meta = (project_meta[4], project_meta[2])
    return entry._replace(deleted=now, meta=meta)


def _added(item: Item, now: int, summary: Summary) -> Entry:
    """An item the old ledger does not know: first seen and changed ``now``."""
    summary.added += 1
    return Entry(item.kind, item.group, item.key, item.fingerprint, now, now, None, item.meta, item.source)


def _published_again(entry: Entry, item: Item, now: int, summary: Summary) -> Entry:
    """An item the old ledger knows: changed ``now`` unless its fingerprint is the same and it was not deleted."""
    fingerprint = item.fingerprint
    same = entry.fingerprint == fingerprint and entry.deleted is None
    if same:
        summary.unchanged += 1
    else:
        summary.changed += 1
    changed = entry.changed if same else now
    return Entry(item.kind, item.group, item.key, fingerprint, entry.first_seen, changed, None, item.meta, item.source)


def previous_activation(data_dir: str | os.PathLike[str]) -> int | None:
    """The activation time of the ledger's last release (None: no ledger, or a version 1 ledger)."""
    path = ledger_path(data_dir)
    if not path.is_file():
        return None
    with path.open(encoding="utf-8") as lines:
        return read_header(lines.readline())[1]


def stamp(
    data_dir: str | os.PathLike[str],
    items: Iterable[Item],
    now: int,
    *,
    dry_run: bool = False,
    activate_in: int = 0,
) -> Summary:
    """Compare ``items`` with the ledger of ``data_dir`` and (unless ``dry_run``) replace it atomically.

    Every change found is dated with the new release's activation time
    (:func:`activation_time`), which the header records. The new ledger is
    written to a temporary file in the same directory and renamed over the
    old one, so a reader sees the old or the new ledger, never half of one;
    when nothing changed, the old file stays as it is, byte for byte.
    """
    path = ledger_path(data_dir)
    summary = Summary()
    previous = previous_activation(data_dir)
    activation = activation_time(now, activate_in, previous)
    summary.activation = activation
    old_lines = path.open(encoding="utf-8") if path.is_file() else iter([header(activation)])
    try:
        merged = merge(iter_entries(old_lines), _deduplicated(items), activation, summary)
        if dry_run:
            for _ in merged:
                pass
            return summary
        path.parent.mkdir(exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".ledger-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
                out.write(header(activation) + "\n")
                for entry in merged:
                    out.write(entry.line() + "\n")
                # Nothing changed: the old file stays, and this one goes without waiting for the disk.
                kept = previous if summary.unchanged_release else None
                if kept is None:  # on disk before it replaces the old one (a gigabyte at ten million records)
                    out.flush()
                    os.fsync(out.fileno())
            if kept is not None:
                Path(temporary).unlink()
                summary.activation = kept
            else:
                os.chmod(temporary, 0o644)
                os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        _ensure_token_key(data_dir)
    finally:
        if hasattr(old_lines, "close"):
            old_lines.close()
    return summary


def _deduplicated(items: Iterable[Item]) -> Iterator[Item]:
    """Items in line order, each key once (a duplicate pid in the data is stamped once)."""
    last: tuple[int, str, int, str] | None = None
    for item in items:
        order = item.order
        if order == last:
            continue
        if last is not None and order < last:
            raise ValueError(f"items out of ledger order at {item.kind} {item.key!r}")
        last = order
        yield item


# --- serving --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tombstone:
    """A withdrawn project or record, as OAI-PMH, the pages and the feed still show it."""

    kind: str  # "P" or "R"
    project_key: str
    key: str  # the shortcode of a project, the pid of a record
    deleted: int
    project_meta: tuple[str, ...]  # the meta of its project's ledger line (also for a record)
    sets: tuple[str, ...] | None = None  # a record's sets when it was withdrawn (None: its project line's)
    pid_prefix: str | None = None  # the pid prefix its project's records had then (None: its project line's)

    @property
    def specs(self) -> tuple[str, ...]:
        """The sets it was in when it was withdrawn, so set-based harvesters see its deletion."""
        meta = ProjectMeta.parse(self.project_meta)
        if self.kind == "P":
            return meta.project_specs
        return self.sets if self.sets is not None else meta.record_specs

    @property
    def position(self) -> tuple[str, str]:
        """Its place in ledger order: (project key, "" for the project itself or the record's pid)."""
        return (self.project_key, "" if self.kind == "P" else self.key)


@dataclass(frozen=True, slots=True)
class ProjectTimes:
    first_seen: int
    changed: int


@dataclass(frozen=True)
class LedgerView:
    """What ``svc serve`` keeps of the ledger: times aligned with the loaded data, and the tombstones.

    Record times sit in arrays parallel to each project's record table, so a
    million records cost 16 bytes each and no per-record objects.
    """

    digest: str
    activation: int | None  # when the release the ledger describes is served from (None: a version 1 ledger)
    projects: Mapping[str, ProjectTimes]  # by project key (lower-case shortcode)
    record_changed: Mapping[str, array[int]]  # by project key; NO_DATESTAMP where the ledger has no entry
    record_first_seen: Mapping[str, array[int]]
    entities: Mapping[tuple[str, str], ProjectTimes]  # (kind, id) of persons, organizations, …
    tombstones: tuple[Tombstone, ...]  # in ledger order
    project_meta: Mapping[str, tuple[str, ...]] = field(repr=False)  # every project line's meta, by key
    unmatched: tuple[str, ...] = ()  # items of the data that have no ledger entry (a few, as examples)
    unmatched_count: int = 0
    token_key: bytes | None = field(default=None, repr=False)  # signs resumption tokens (.svc/token-key)

    # How many items of each kind the release before the ledger's last one published: its live items,
    # less those the last release added, plus those it withdrew (the start-up shrink guard compares with it).
    previous_counts: Mapping[str, int] = field(default_factory=dict)
    # How many live items of each kind the ledger's last release publishes (a start of a release whose
    # withdrawals were accepted compares with it: data that lost more than the release withdrew is refused).
    release_counts: Mapping[str, int] = field(default_factory=dict)

    def deleted_project(self, key: str) -> Tombstone | None:
        return self._deleted.get((key, None))

    def deleted_record_by_suffix(self, project_key: str, suffix: str) -> Tombstone | None:
        """A withdrawn record by the last segment of its pid, which names it in page URLs."""
        return self._deleted.get((project_key, "/" + suffix))

    @cached_property
    def _deleted(self) -> dict[tuple[str, str | None], Tombstone]:
        found: dict[tuple[str, str | None], Tombstone] = {}
        for tombstone in self.tombstones:
            if tombstone.kind == "P":
                found[(tombstone.project_key, None)] = tombstone
            else:
                found[(tombstone.project_key, tombstone.key)] = tombstone
                found.setdefault((tombstone.project_key, "/" + tombstone.key.rpartition("/")[2]), tombstone)
        return found

    # Last-Modified: the latest change of anything a page or document shows.

    def project_time(self, key: str) -> int | None:
        """A project and what its pages show: its own line, its records, and the people and groups it names."""
        own = self.project_changed(key)
        if own is None:
            return None
        return max(own, self._entities_latest, self._records_latest.get(key, own))

    def record_time(self, project_key: str, index: int) -> int | None:
        """A record and its project's line (its page names the project)."""
        own, project = self.record_changed_at(project_key, index), self.project_changed(project_key)
        return None if own is None or project is None else max(own, project)

    @cached_property
    def _records_latest(self) -> dict[str, int]:
        """Each project's latest record change, found once: a large project's scan costs tens of milliseconds."""
        return {key: int(np.asarray(stamps).max()) for key, stamps in self.record_changed.items() if len(stamps)}

    @cached_property
    def _entities_latest(self) -> int:
        return max((times.changed for times in self.entities.values()), default=NO_DATESTAMP)

    def project_changed(self, key: str) -> int | None:
        times = self.projects.get(key)
        return times.changed if times else None

    def record_changed_at(self, project_key: str, index: int) -> int | None:
        stamps = self.record_changed.get(project_key)
        if stamps is None or stamps[index] == NO_DATESTAMP:
            return None
        return stamps[index]

    @cached_property
    def latest(self) -> int | None:
        """The latest time anything changed or went: the Last-Modified of listings and the sitemap."""
        times = [t.changed for t in self.projects.values()] + [t.changed for t in self.entities.values()]
        times += [t.deleted for t in self.tombstones]
        times += [max(stamps) for stamps in self.record_changed.values() if len(stamps)]
        return max(times, default=None)


def iso_time(stamp: int) -> str:
    """``2026-11-24T09:40:00Z``: how a withdrawal time is written for people and in problem documents."""
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def withdrawn_project(catalog: Catalog, shortcode: str) -> Tombstone | None:
    """The tombstone of a project the catalogue no longer has, if its ledger has one."""
    if catalog.ledger is None or catalog.get_project(shortcode) is not None:
        return None
    return catalog.ledger.deleted_project(shortcode.lower())


def withdrawn_record(catalog: Catalog, shortcode: str, suffix: str) -> Tombstone | None:
    """The tombstone of a record (named by its pid's last segment) no longer in the catalogue."""
    if catalog.ledger is None:
        return None
    project = catalog.get_project(shortcode)
    table = catalog.records_of(project) if project else None
    if table is not None and table.index_of_suffix(suffix) is not None:
        return None
    return catalog.ledger.deleted_record_by_suffix(shortcode.lower(), suffix)


def read_view(catalog: Catalog) -> LedgerView | None:
    """The ledger of the catalogue's data directory aligned with it; None if there is none.

    Raises :class:`LedgerError` (or ``OSError``) if the file is there but unreadable.
    This parses every line; ``svc serve`` opens the view ``svc stamp`` stored in
    the snapshot instead when there is one (:mod:`catalog.domain.snapshot`).
    """
    path = ledger_path(catalog.data_dir)
    if not path.is_file():
        return None
    with path.open("rb") as file:
        digest = _digest_of(file)
        file.seek(0)
        lines = io.TextIOWrapper(file, encoding="utf-8", newline="\n")  # the same bytes as hashed
        _, activation = read_header(lines.readline())
        lines.seek(0)
        reader = _ViewReader(catalog, activation, digest)
        for entry in iter_entries(lines):
            reader.add(entry)
    return reader.view()


def ledger_digest(data_dir: str | os.PathLike[str]) -> str:
    """The digest :attr:`LedgerView.digest` has: of the ledger file's bytes (the release it describes)."""
    with ledger_path(data_dir).open("rb") as handle:
        return _digest_of(handle)


def _digest_of(file: BinaryIO) -> str:
    digest = hashlib.blake2b(digest_size=12)
    while chunk := file.read(1 << 20):
        digest.update(chunk)
    return digest.hexdigest()


class _ViewReader:
    """Builds a :class:`LedgerView` from the ledger's entries, in file order."""

    def __init__(self, catalog: Catalog, activation: int | None, digest: str) -> None:
        self.catalog = catalog
        self.activation = activation
        self.digest = digest
        self.projects: dict[str, ProjectTimes] = {}
        self.metas: dict[str, tuple[str, ...]] = {}
        self.entities: dict[tuple[str, str], ProjectTimes] = {}
        self.tombstones: list[Tombstone] = []
        # Per project: the ledger's live record pids and times, aligned with the table after the project's section.
        self.changed: dict[str, array[int]] = {}
        self.first: dict[str, array[int]] = {}
        self.section: tuple[str, list[str], array[int], array[int]] | None = None
        self.previous_counts: dict[str, int] = {}
        self.release_counts: dict[str, int] = {}

    def add(self, entry: Entry) -> None:
        if entry.kind == "R" and entry.deleted is None:  # nearly every line: a live record
            assert self.section is not None  # iter_entries gives a record after its project's line only
            self.previous_counts["records"] = self.previous_counts.get("records", 0) + (
                entry.first_seen != self.activation
            )
            self.release_counts["records"] = self.release_counts.get("records", 0) + 1
            self.section[1].append(entry.key)
            self.section[2].append(entry.changed)
            self.section[3].append(entry.first_seen)
            return
        kind = "projects" if entry.kind == "P" else "records" if entry.kind == "R" else entry.group
        if entry.deleted is None or entry.deleted == self.activation:
            was_live = entry.deleted is not None or entry.first_seen != self.activation
            self.previous_counts[kind] = self.previous_counts.get(kind, 0) + was_live
        if entry.deleted is None:
            self.release_counts[kind] = self.release_counts.get(kind, 0) + 1
        if entry.kind == "P":
            self._close_section()
            self.section = (entry.group, [], array("q"), array("q"))
            self.metas[entry.group] = entry.meta
            if entry.deleted is None:
                self.projects[entry.group] = ProjectTimes(entry.first_seen, entry.changed)
            else:
                self.tombstones.append(Tombstone("P", entry.group, entry.key, entry.deleted, entry.meta))
        elif entry.kind == "R":
            self._add_tombstone(entry)
        elif entry.deleted is None:
            self.entities[(entry.group, entry.key)] = ProjectTimes(entry.first_seen, entry.changed)

    def _add_tombstone(self, entry: Entry) -> None:
        """A withdrawn record (:meth:`add` takes the live ones)."""
        assert entry.deleted is not None
        sets = tuple(entry.meta[0].split()) if entry.meta else None
        prefix = read_meta_field(entry.meta[1]) if len(entry.meta) > 1 else None
        project_meta = self.metas[entry.group]
        self.tombstones.append(Tombstone("R", entry.group, entry.key, entry.deleted, project_meta, sets, prefix))

    def _close_section(self) -> None:
        if self.section is None:
            return
        key, pids, changes, firsts = self.section
        table = self.catalog.records.get(key)
        if table is None:
            return
        table_pids = list(table.pids)
        if pids == table_pids:  # as after every stamp: the ledger's live records are the table's
            self.changed[key], self.first[key] = changes, firsts
            return
        size = len(table_pids)
        aligned_changed = array("q", [NO_DATESTAMP]) * size
        aligned_first = array("q", [NO_DATESTAMP]) * size
        i = 0
        for j, pid in enumerate(pids):
            while i < size and table_pids[i] < pid:
                i += 1
            if i < size and table_pids[i] == pid:
                aligned_changed[i] = changes[j]
                aligned_first[i] = firsts[j]
        self.changed[key], self.first[key] = aligned_changed, aligned_first

    def view(self) -> LedgerView:
        self._close_section()
        catalog = self.catalog
        unmatched = [p.shortcode for p in catalog.projects if p.key not in self.projects]
        count = len(unmatched)
        for key, table in catalog.records.items():
            stamps = self.changed.get(key)
            missing = len(table) if stamps is None else stamps.count(NO_DATESTAMP)
            if missing:
                count += missing
                unmatched.append(f"{missing} record(s) of {key}")
        return LedgerView(
            digest=self.digest,
            activation=self.activation,
            projects=self.projects,
            record_changed=self.changed,
            record_first_seen=self.first,
            entities=self.entities,
            tombstones=tuple(self.tombstones),
            project_meta=self.metas,
            unmatched=tuple(unmatched[:5]),
            unmatched_count=count,
            token_key=read_token_key(catalog.data_dir),
            previous_counts=self.previous_counts,
            release_counts=self.release_counts,
        )


# --- the feed of changes ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Change:
    """One event of the feed: an item added, changed or withdrawn at ``time``."""

    event: str  # "added", "changed" or "withdrawn"
    time: int
    shortcode: str
    name: str
    pid: str | None = None  # a record's pid; None for the project itself


def _event(first_seen: int, changed: int) -> str:
    return "added" if first_seen == changed else "changed"


def project_changes(catalog: Catalog, limit: int) -> list[Change]:
    """The latest ``limit`` project events, newest first (ties by shortcode)."""
    view = catalog.ledger
    if view is None:
        return []
    changes = [
        Change(_event(times.first_seen, times.changed), times.changed, project.shortcode, project.name)
        for project in catalog.projects
        if (times := view.projects.get(project.key)) is not None
    ]
    changes += [
        Change("withdrawn", t.deleted, t.key, ProjectMeta.parse(t.project_meta).name)
        for t in view.tombstones
        if t.kind == "P"
    ]
    return sorted(changes, key=lambda change: (-change.time, change.shortcode))[:limit]


def record_changes(catalog: Catalog, shortcode: str, limit: int) -> list[Change]:
    """The latest ``limit`` events of one project's records (withdrawals included), newest first."""
    view = catalog.ledger
    project = catalog.get_project(shortcode)
    if view is None or project is None:
        return []
    changes: list[Change] = []
    table, changed, first = (
        catalog.records_of(project),
        view.record_changed.get(project.key),
        view.record_first_seen.get(project.key),
    )
    if table is not None and changed is not None and first is not None:
        latest = heapq.nlargest(
            limit, (i for i in range(len(table)) if changed[i] != NO_DATESTAMP), key=changed.__getitem__
        )
        changes += [
            Change(_event(first[i], changed[i]), changed[i], project.shortcode, project.name, table.pids[i])
            for i in latest
        ]
    changes += [
        Change("withdrawn", t.deleted, project.shortcode, project.name, t.key)
        for t in view.tombstones
        if t.kind == "R" and t.project_key == project.key
    ]
    return sorted(changes, key=lambda change: (-change.time, change.pid or ""))[:limit]
