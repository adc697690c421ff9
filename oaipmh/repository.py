"""The OAI-PMH view of one catalogue: items, identifiers, datestamps, sets, paging.

Items are the projects (ordered by shortcode), each followed by its records
(ordered by pid), then the withdrawn items in the same order. A position in
that sequence is ``(project index, record index)``, the record index -1
standing for the project itself, so a page starts straight at its position
instead of skipping from the start: page N costs what page 1 costs. A
position is also named by a key that means the same in every release (the
project's key and the record's pid, :meth:`Repository.key_of`), which is what
resumption tokens carry.

Everything per project (identifier, header, set memberships, its own
metadata) is derived once per catalogue; a record is rendered from its stored
JSON and its project's derived parts. Nothing here scans all records per
request; counts over date ranges scan the packed datestamp arrays once and
are cached.
"""

from __future__ import annotations

import hashlib
import threading
import time
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import islice
from urllib.parse import unquote

import numpy as np

from catalog.domain.ledger import LedgerView, ProjectMeta, Tombstone
from catalog.domain.memo import memo_for
from catalog.domain.model import NO_DATESTAMP, Catalog, Project, RecordTable
from catalog.formats import item_metadata
from catalog.formats.xmltext import esc
from catalog.publishing.datestamps import FALLBACK_DATESTAMP, DateRange, format_datestamp
from catalog.publishing.formats import MetadataFormat
from catalog.publishing.oai_identifiers import (
    DEFAULT_ARK_PREFIX,
    FULL_PID_MARK,
    fallback_year,
    project_local_ids,
    record_suffix_of,
    shared_pid_prefix,
)
from catalog.publishing.sets import OaiSet, Selection, SetIndex, build_sets

_MAX_CACHED_COUNTS = 1024
_MAX_CACHED_DATESTAMPS = 4096

Position = tuple[int, int]  # (project index, record index or -1 for the project)


def _set_specs(specs: Sequence[str]) -> str:
    return "".join(f"<setSpec>{spec}</setSpec>" for spec in specs)


@dataclass(frozen=True, slots=True)
class ProjectEntry:
    """What every item of one project needs, computed once."""

    project: Project
    local_id: str
    identifier: str
    stamp: int
    datestamp: str
    header: str  # the project item's complete <header>
    record_header_open: str  # "<header><identifier>oai:…/" up to the record's own part
    record_header_close: str  # set memberships and "</header>"
    pid_prefix: str  # the pid prefix its records share, with the trailing "/"
    context: item_metadata.ProjectContext  # what its records take from it
    fallback_year: str


@dataclass(frozen=True, slots=True)
class Deletion:
    """A withdrawn item, listed with ``status="deleted"`` in the sets it belonged to."""

    identifier: str
    stamp: int
    specs: tuple[str, ...]

    @property
    def header(self) -> str:
        return (
            f'<header status="deleted"><identifier>{esc(self.identifier)}</identifier>'
            f"<datestamp>{format_datestamp(self.stamp)}</datestamp>{_set_specs(self.specs)}</header>"
        )


class Repository:
    """Built lazily once per catalogue (and repository identifier); read-only afterwards."""

    def __init__(self, catalog: Catalog, repository_identifier: str, site_url: str) -> None:
        self.catalog = catalog
        self.repository_identifier = repository_identifier
        self.site_url = site_url  # the origin of the landing pages that identify items without a pid of their own
        self.data_version = catalog.data_version
        self.identifier_prefix = f"oai:{repository_identifier}:"
        self.sets: SetIndex = build_sets(catalog)
        self.tables: tuple[RecordTable | None, ...] = tuple(catalog.records_of(p) for p in catalog.projects)
        self.ledger = catalog.ledger
        self.ceiling = _datestamp_ceiling(self.ledger)
        # Each table's datestamps, or with a ledger the later of its own and the ledger's change time.
        self.record_stamps: tuple[array[int] | None, ...] = tuple(
            self._record_stamps(project, table) for project, table in zip(catalog.projects, self.tables, strict=True)
        )
        # When each item was first published (with a ledger): a list continues only with items it could have seen.
        self.record_first: tuple[array[int] | None, ...] = tuple(
            self._record_first(project) for project in catalog.projects
        )
        # The latest of them per project: a list issued after it takes every record, without looking at each.
        self.record_first_latest = tuple(max(first) if first else NO_DATESTAMP for first in self.record_first)
        self.project_first = array("q", (self._project_first(project) for project in catalog.projects))
        self.project_keys = tuple(project.key for project in catalog.projects)
        local_ids = project_local_ids(catalog.projects)
        self.entries = tuple(
            self._entry(index, project, local_id)
            for index, (project, local_id) in enumerate(zip(catalog.projects, local_ids, strict=True))
        )
        self.project_stamps = array("q", (entry.stamp for entry in self.entries))
        self.project_by_local_id = {local_id: index for index, local_id in enumerate(local_ids)}
        tombstones = self.ledger.tombstones if self.ledger else ()
        self.deletions = tuple(self._deletion(tombstone) for tombstone in tombstones)
        self.deletion_keys = tuple(tombstone.position for tombstone in tombstones)
        self.deletion_by_identifier = {d.identifier: i for i, d in enumerate(self.deletions)}
        # Sets that only withdrawn items are still in (a project whose records were all withdrawn).
        self.deleted_specs = frozenset(spec for deletion in self.deletions for spec in deletion.specs)
        if self.ledger:
            # The ledger is part of what the data version depends on.
            self.data_version = hashlib.blake2b(
                f"{catalog.data_version}/{self.ledger.digest}".encode(), digest_size=12
            ).hexdigest()
        # What resumption tokens are signed with: the secret svc stamp keeps (the same for every release and
        # replica), or without one the data version (a token then ends with the data).
        self.token_key = (self.ledger.token_key if self.ledger else None) or self.data_version.encode()
        self._counts: dict[tuple[str, int | None, int | None], int] = {}
        self._project_metadata: dict[tuple[str, int], str] = {}
        self._datestamps: dict[int, str] = {}
        self._lock = threading.Lock()

    def _record_stamps(self, project: Project, table: RecordTable | None) -> array[int] | None:
        """Each record's datestamp: its own date, or with a ledger the later of it and the ledger's change time.

        Never after :attr:`ceiling` (a record dated in the future, which ``svc validate`` warns about); the
        table's own array is kept, not copied, when nothing needs to change.
        """
        if table is None:
            return None
        changed = self.ledger.record_changed.get(project.key) if self.ledger is not None else None
        stamps = np.frombuffer(table.datestamps, dtype=np.int64) if len(table.datestamps) else None
        if stamps is None or (changed is None and int(stamps.max()) <= self.ceiling):
            return table.datestamps
        if changed is not None:
            stamps = np.maximum(stamps, np.frombuffer(changed, dtype=np.int64))
        served = array("q")
        served.frombytes(np.minimum(stamps, self.ceiling).tobytes())
        return served

    def _record_first(self, project: Project) -> array[int] | None:
        return self.ledger.record_first_seen.get(project.key) if self.ledger else None

    def _project_first(self, project: Project) -> int:
        times = self.ledger.projects.get(project.key) if self.ledger else None
        return NO_DATESTAMP if times is None else times.first_seen

    def _project_stamp(self, project: Project) -> int:
        """The ledger's change time; without one, the project's own date (SPEC §5.3), not after the ceiling."""
        if self.ledger is not None:
            changed = self.ledger.project_changed(project.key)
            if changed is not None:
                return changed
        own = project.datestamp if project.datestamp is not None else FALLBACK_DATESTAMP
        return min(own, self.ceiling)

    def _deletion(self, tombstone: Tombstone) -> Deletion:
        assert self.ledger is not None
        meta = ProjectMeta.parse(tombstone.project_meta)
        identifier = self.identifier_prefix + meta.local_id
        stamp = tombstone.deleted
        if tombstone.kind == "P":
            return Deletion(identifier, stamp, tombstone.specs)
        suffix = record_suffix_of(tombstone.pid_prefix or meta.pid_prefix, tombstone.key)
        return Deletion(f"{identifier}/{suffix}", stamp, tombstone.specs)

    def _entry(self, index: int, project: Project, local_id: str) -> ProjectEntry:
        identifier = self.identifier_prefix + local_id
        stamp = self._project_stamp(project)
        datestamp = format_datestamp(stamp)
        table = self.tables[index]
        return ProjectEntry(
            project=project,
            local_id=local_id,
            identifier=identifier,
            stamp=stamp,
            datestamp=datestamp,
            header=(
                f"<header><identifier>{esc(identifier)}</identifier><datestamp>{datestamp}</datestamp>"
                f"{_set_specs(self.sets.project_specs[index])}</header>"
            ),
            record_header_open=f"<header><identifier>{esc(identifier)}/",
            record_header_close=f"{_set_specs(self.sets.record_specs[index])}</header>",
            pid_prefix=shared_pid_prefix(table),
            context=item_metadata.project_context(self.catalog, project, self.site_url, fallback_year(project)),
            fallback_year=fallback_year(project),
        )

    # --- identifiers ----------------------------------------------------------------

    def record_suffix(self, entry: ProjectEntry, pid: str) -> str:
        return record_suffix_of(entry.pid_prefix, pid)

    def resolve(self, identifier: str) -> Position | None:
        """The item an identifier names, by dictionary and binary search; None if unknown."""
        if not identifier.startswith(self.identifier_prefix):
            return None
        local = identifier[len(self.identifier_prefix) :]
        project = self.project_by_local_id.get(local)
        if project is not None:
            return (project, -1)
        slash = len(local)
        while (slash := local.rfind("/", 0, slash)) > 0:
            project = self.project_by_local_id.get(local[:slash])
            if project is not None:
                record = self._find_record(project, local[slash + 1 :])
                if record is not None:
                    return (project, record)
        deletion = self.deletion_by_identifier.get(identifier)
        return None if deletion is None else (len(self.entries) + deletion, -1)

    def _find_record(self, project: int, suffix: str) -> int | None:
        table = self.tables[project]
        if not table or not suffix:
            return None
        entry = self.entries[project]
        candidates = [entry.pid_prefix + suffix]
        if "%" in suffix:
            candidates.append(entry.pid_prefix + unquote(suffix))
        if suffix.startswith(FULL_PID_MARK):
            candidates.append(unquote(suffix[len(FULL_PID_MARK) :]))
        for pid in candidates:
            index = table.index_of_pid(pid)
            # Only the identifier the repository lists resolves, so each item has exactly one.
            if index is not None and self.record_suffix(entry, pid) == suffix:
                return index
        return None

    # --- datestamps ----------------------------------------------------------------------

    @property
    def latest_first_seen(self) -> int:
        """No item of this release was first published later (every ledger time is at most its activation)."""
        view = self.ledger
        return view.activation if view is not None and view.activation is not None else 0

    @cached_property
    def earliest_stamp(self) -> int:
        """The smallest datestamp of any item (a record without a date has its project's)."""
        stamps = list(self.project_stamps) + [deletion.stamp for deletion in self.deletions]
        for table_stamps in self.record_stamps:
            if table_stamps:
                smallest: int | None = min(table_stamps)
                if smallest == NO_DATESTAMP:
                    smallest = min((s for s in table_stamps if s != NO_DATESTAMP), default=None)
                if smallest is not None:
                    stamps.append(smallest)
        return min(stamps, default=FALLBACK_DATESTAMP)

    @cached_property
    def sample_identifier(self) -> str:
        return self.entries[0].identifier if self.entries else f"{self.identifier_prefix}{DEFAULT_ARK_PREFIX}/0000"

    # --- listing ---------------------------------------------------------------------------

    def find_set(self, spec: str | None) -> OaiSet | None:
        """The set of a setSpec, also one that only withdrawn items are still in (listing just them)."""
        if spec is None:
            return None
        found = self.sets.find(spec)
        if found is None:
            for candidate in (spec, spec.lower()):
                if candidate in self.deleted_specs:
                    return OaiSet(candidate, candidate, Selection(False, False, ()))
        return found

    # --- positions that mean the same in every release ------------------------------------

    def key_of(self, position: Position) -> tuple[bool, tuple[str, str]]:
        """Whether a position is a deletion, and its key: (project key, "" or the record's pid)."""
        project, record = position
        if project >= len(self.entries):
            return True, self.deletion_keys[project - len(self.entries)]
        table = self.tables[project]
        return False, (self.project_keys[project], table.pids[record] if record >= 0 and table else "")

    def position_after(self, deletions: bool, key: tuple[str, str]) -> Position:
        """The first position after the item with ``key`` (which this release may not have)."""
        if deletions:
            return (len(self.entries) + bisect_right(self.deletion_keys, key), -1)
        project_key, pid = key
        index = bisect_left(self.project_keys, project_key)
        if index < len(self.project_keys) and self.project_keys[index] == project_key:
            table = self.tables[index]
            return (index, bisect_right(table.pids, pid) if table and pid else 0)
        return (index, -1)

    def selection(self, oai_set: OaiSet | None) -> Selection:
        return oai_set.selection if oai_set else self.sets.by_spec["entityType"].selection

    def count(self, oai_set: OaiSet | None, dates: DateRange) -> int:
        """How many items a list request selects (completeListSize); cached per set and range."""
        key = (oai_set.spec if oai_set else "", dates.low, dates.high)
        cached = self._counts.get(key)
        if cached is not None:
            return cached
        selection = self.selection(oai_set)
        total = 0
        for project in selection.indexes:
            project_in_range = dates.contains(self.project_stamps[project])
            if selection.projects and project_in_range:
                total += 1
            stamps = self.record_stamps[project]
            if selection.records and stamps:
                total += len(stamps) if dates.unbounded else _count_in_range(stamps, dates, project_in_range)
        total += sum(1 for _ in self._deletions_in(oai_set.spec if oai_set else None, dates, 0))
        with self._lock:
            if len(self._counts) >= _MAX_CACHED_COUNTS:
                self._counts.clear()
            self._counts[key] = total
        return total

    def _deletions_in(self, set_spec: str | None, dates: DateRange, start: int) -> Iterator[int]:
        """Indexes (from ``start`` on) of the deletions in a set (None: all) and date range."""
        for index in range(start, len(self.deletions)):
            deletion = self.deletions[index]
            if (set_spec is None or set_spec in deletion.specs) and dates.contains(deletion.stamp):
                yield index

    def scan(
        self,
        selection: Selection,
        dates: DateRange,
        start: Position,
        limit: int,
        set_spec: str | None = None,
        issued: int | None = None,
    ) -> list[Position]:
        """Up to ``limit`` items of the selection from ``start`` on (inclusive), in order.

        The deletions (of the set ``set_spec``; None for all) follow the live
        items. With ``issued`` (a list continued by a token), live items first
        published after it are left out: they belong to the next incremental harvest.
        """
        found: list[Position] = []
        first_project, first_record = start
        if first_project >= len(self.entries):
            # (deletion, -1) is the deletion itself; (deletion, 0) is "after it", where a page ending on it resumes.
            start_at = first_project - len(self.entries) + (1 if first_record >= 0 else 0)
            deletions = self._deletions_in(set_spec, dates, start_at)
            return [(len(self.entries) + index, -1) for index in islice(deletions, limit)]
        indexes = selection.indexes
        for k in range(bisect_left(indexes, first_project), len(indexes)):
            project = indexes[k]
            record = first_record if project == first_project else -1
            found.extend(self._scan_project(selection, dates, project, record, limit - len(found), issued))
            if len(found) == limit:
                return found
        deletions = self._deletions_in(set_spec, dates, 0)
        found.extend((len(self.entries) + index, -1) for index in islice(deletions, limit - len(found)))
        return found

    def _scan_project(
        self, selection: Selection, dates: DateRange, project: int, record: int, room: int, issued: int | None
    ) -> list[Position]:
        """Up to ``room`` items of one project, from its ``record`` on (-1: the project itself, then its records)."""
        found: list[Position] = []
        low = dates.low if dates.low is not None else NO_DATESTAMP + 1
        high = dates.high if dates.high is not None else -NO_DATESTAMP
        newest = issued if issued is not None else -NO_DATESTAMP
        project_in_range = low <= self.project_stamps[project] <= high
        if record < 0:
            if selection.projects and project_in_range and self.project_first[project] <= newest:
                found.append((project, -1))
                if len(found) == room:
                    return found
            record = 0
        stamps = self.record_stamps[project]
        if not selection.records or not stamps or record >= len(stamps):
            return found
        first = (
            self.record_first[project] if issued is not None and self.record_first_latest[project] > newest else None
        )
        if dates.unbounded and first is None:
            found.extend((project, index) for index in range(record, min(len(stamps), record + room - len(found))))
            return found
        matching = self._records_in_window(stamps, first, record, low, high, newest, project_in_range)
        found.extend((project, index) for index in islice(matching, room - len(found)))
        return found

    @staticmethod
    def _records_in_window(
        stamps: Sequence[int],
        first: Sequence[int] | None,
        start: int,
        low: int,
        high: int,
        newest: int,
        project_in_range: bool,
    ) -> Iterator[int]:
        """Indexes (from ``start`` on) of the records stamped in [low, high] and first published by ``newest``.

        A record without a datestamp of its own is in range when its project is.
        """
        for index in range(start, len(stamps)):
            stamp = stamps[index]
            if first is not None and first[index] > newest:
                continue
            if (low <= stamp <= high) if stamp != NO_DATESTAMP else project_in_range:
                yield index

    def deletion(self, position: Position) -> Deletion | None:
        """The withdrawn item at a position, or None for a live one."""
        project = position[0]
        return self.deletions[project - len(self.entries)] if project >= len(self.entries) else None

    # --- rendering ----------------------------------------------------------------------------

    def header(self, position: Position) -> str:
        deletion = self.deletion(position)
        if deletion is not None:
            return deletion.header
        project, record = position
        entry = self.entries[project]
        if record < 0:
            return entry.header
        table, stamps = self.tables[project], self.record_stamps[project]
        assert table is not None and stamps is not None
        stamp = stamps[record]
        datestamp = entry.datestamp if stamp == NO_DATESTAMP else self._datestamp(stamp)
        return (
            f"{entry.record_header_open}{esc(self.record_suffix(entry, table.pids[record]))}</identifier>"
            f"<datestamp>{datestamp}</datestamp>{entry.record_header_close}"
        )

    def _datestamp(self, stamp: int) -> str:
        """Formatted once per distinct time: records share the few times of their releases."""
        formatted = self._datestamps.get(stamp)
        if formatted is None:
            if len(self._datestamps) >= _MAX_CACHED_DATESTAMPS:
                self._datestamps.clear()
            formatted = self._datestamps[stamp] = format_datestamp(stamp)
        return formatted

    def metadata(self, position: Position, metadata_format: MetadataFormat) -> str:
        project, record = position
        entry = self.entries[project]
        if record < 0:
            key = (metadata_format.prefix, project)
            rendered = self._project_metadata.get(key)
            if rendered is None:
                item = item_metadata.project_metadata(self.catalog, entry.project, self.site_url, entry.fallback_year)
                rendered = self._project_metadata[key] = metadata_format.render(item)
            return rendered
        table = self.tables[project]
        assert table is not None
        item = item_metadata.record_metadata(table.record(record), entry.context)
        return metadata_format.render(item)

    def record(self, position: Position, metadata_format: MetadataFormat) -> str:
        deletion = self.deletion(position)
        if deletion is not None:
            return f"<record>{deletion.header}</record>"
        return (
            f"<record>{self.header(position)}<metadata>{self.metadata(position, metadata_format)}</metadata></record>"
        )


def _count_in_range(stamps: array[int], dates: DateRange, project_in_range: bool) -> int:
    low = dates.low if dates.low is not None else NO_DATESTAMP + 1
    high = dates.high if dates.high is not None else -NO_DATESTAMP
    undated = stamps.count(NO_DATESTAMP) if project_in_range else 0
    return undated + sum(1 for stamp in stamps if low <= stamp <= high)


def _datestamp_ceiling(view: LedgerView | None) -> int:
    """No datestamp is later than the moment its item can first be served: the release's activation time
    (OAI-PMH answers wait for it), or without one the moment the view is built, at the start or a reload."""
    activation = view.activation if view is not None else None
    return activation if activation is not None else int(time.time())


def repository_for(catalog: Catalog, repository_identifier: str, site_url: str) -> Repository:
    """The repository view of ``catalog``, built on first use and kept while it is current."""
    return memo_for(catalog).get(
        ("oai-repository", repository_identifier, site_url),
        lambda: Repository(catalog, repository_identifier, site_url),
    )
