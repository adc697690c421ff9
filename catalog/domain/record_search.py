"""Sort and page inside one project's records, fast at millions of records.

Built once per catalogue (see :mod:`catalog.domain.memo`), before the workers
fork, so they share it. Per project the index holds the record order for each
sort (natural label order, date), as int32 arrays, and their inverses (each
record's place in that order), derived on opening; identifier order is the
table's own (pid) order.

Which records a search text matches, and how well, is the search engine's
answer (:mod:`catalog.domain.engine`): one score per record of the project, 0
where it does not match. The matches are marked in a boolean array at their
places in the wanted sort order, so the total and, read in order, the page
come without a Python loop over the records; only the page's places are turned
back into records. Relevance orders by score, best first, ties in label order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from catalog.domain import engine
from catalog.domain.model import RecordTable, is_placeholder, language_items, parse_timestamp
from catalog.domain.paging import PagePositions
from catalog.domain.search import PageOutOfRange, TextSortPage, normalise

PAGE_SIZE = 50
_DIGITS = re.compile(r"(\d+)")
_NO_DATE = np.iinfo(np.int64).min


def natural_key(text: str) -> tuple[object, ...]:
    """Sort key that orders digit runs by value: "2r" before "10r"."""
    parts = _DIGITS.split(normalise(text))
    return tuple(int(part) if i % 2 else part for i, part in enumerate(parts))


def _texts(value: object) -> Iterator[str]:
    """Every text of a stored value: strings, language maps, lists of them."""
    if isinstance(value, str):
        if value and not is_placeholder(value):
            yield value
    elif isinstance(value, Mapping):
        for _, text in language_items(value):
            if not is_placeholder(text):
                yield text
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)


def record_label(record: Mapping[str, object]) -> str:
    """The label the records table shows (first language of the stored map)."""
    return next(_texts(record.get("label")), "")


def record_date(record: Mapping[str, object]) -> object:
    """The date the records table shows and the date sort uses."""
    return record.get("datePublished") or record.get("dateCreated")


@dataclass(frozen=True, slots=True)
class ProjectRecordIndex:
    size: int
    by_label: np.ndarray  # int32 record positions in natural label order
    by_date: np.ndarray  # int32 record positions, oldest first, undated last
    dated: int  # how many records have a date (the head of by_date)

    @classmethod
    def build(
        cls, table: RecordTable, each_record: Callable[[int, Mapping[str, Any]], None] | None = None
    ) -> ProjectRecordIndex:
        """The index of ``table``; ``each_record`` is given every record's position and parsed JSON too."""
        labels: list[tuple[tuple[object, ...], int]] = []
        dates = np.empty(len(table), dtype=np.int64)
        for position in range(len(table)):
            record = table.record(position)
            if each_record is not None:
                each_record(position, record)
            labels.append((natural_key(record_label(record)), position))
            stamp = parse_timestamp(record_date(record))
            dates[position] = _NO_DATE if stamp is None else stamp
        labels.sort()
        dated = np.flatnonzero(dates != _NO_DATE)
        by_date = np.concatenate([dated[np.argsort(dates[dated], kind="stable")], np.flatnonzero(dates == _NO_DATE)])
        return cls(
            size=len(table),
            by_label=np.fromiter((position for _, position in labels), dtype=np.int32, count=len(labels)),
            by_date=by_date.astype(np.int32),
            dated=len(dated),
        )

    label_ranks: np.ndarray = field(init=False, repr=False, compare=False)  # position -> place in by_label
    date_ranks: np.ndarray = field(init=False, repr=False, compare=False)  # position -> place in by_date

    def __post_init__(self) -> None:
        # Derived, not stored: two scatters per project when the catalogue opens, before the workers fork.
        object.__setattr__(self, "label_ranks", ranks_of(self.by_label))
        object.__setattr__(self, "date_ranks", ranks_of(self.by_date))

    def page(self, sort: str, scores: np.ndarray | None, start: int, stop: int) -> tuple[int, np.ndarray]:
        """How many records match (``scores`` > 0; all without a search), and those ``start:stop`` in the sort.

        The matches are marked at their places in the sort's own order (through its ranks), so they come
        out in order by one pass over the marks, and only the page's are turned back into positions.
        Relevance without a search is label order.
        """
        if scores is None:
            if sort == "identifier":
                return self.size, np.arange(start, min(stop, self.size), dtype=np.int32)
            if sort == "relevance":
                sort = "label"
            order = self.by_label if sort.startswith("label") else self.by_date
            return self.size, _arranged(order, sort, self.dated, start, stop)
        matches = np.flatnonzero(scores > 0)
        if sort == "identifier":
            return len(matches), matches[start:stop].astype(np.int32)
        if sort == "relevance":
            best = matches[np.lexsort((self.label_ranks[matches], -scores[matches]))]
            return len(matches), best[start:stop].astype(np.int32)
        by_label = sort.startswith("label")
        order, ranks = (self.by_label, self.label_ranks) if by_label else (self.by_date, self.date_ranks)
        found = np.zeros(self.size, dtype=bool)
        found[ranks[matches]] = True
        places = np.flatnonzero(found)
        dated = int(np.searchsorted(places, self.dated))  # the matches with a date come first in by_date
        return len(places), order[_arranged(places, sort, dated, start, stop)]


def _arranged(ascending: np.ndarray, sort: str, head: int, start: int, stop: int) -> np.ndarray:
    """Items ``start:stop`` of ``ascending`` as ``sort`` shows it: all reversed (label-desc), or its first
    ``head`` reversed and the rest after them (newest: the undated stay last)."""
    if sort == "label-desc":
        head = len(ascending)
    elif sort != "newest":
        return ascending[start:stop]
    reversed_part = ascending[max(head - stop, 0) : max(head - start, 0)][::-1]
    rest = ascending[head + max(start - head, 0) : head + max(stop - head, 0)]
    return np.concatenate([reversed_part, rest])


def ranks_of(order: np.ndarray) -> np.ndarray:
    """The inverse of a permutation: for each record position, its place in ``order``."""
    ranks = np.empty(len(order), dtype=np.int32)
    ranks[order] = np.arange(len(order), dtype=np.int32)
    return ranks


@dataclass(frozen=True)
class RecordQuery(TextSortPage):
    SORTS = ("relevance", "label", "label-desc", "newest", "oldest", "identifier")

    @property
    def default_sort(self) -> str:
        """Best match for a search, else label: the order an empty ``sort`` means."""
        return "relevance" if self.text else "label"

    @property
    def parsed(self) -> engine.Query:
        return engine.parse(self.text)


@dataclass(frozen=True)
class RecordResult(PagePositions):
    page_size: ClassVar[int] = PAGE_SIZE
    total: int
    page: int
    page_count: int
    positions: tuple[int, ...]  # record positions in the table, this page only


def search_records(index: ProjectRecordIndex, query: RecordQuery, scores: np.ndarray | None) -> RecordResult:
    """One page of a project's records, ``scores`` the engine's for the query's text (None: no search).

    Raises :class:`PageOutOfRange` past the last page.
    """
    start = (query.page - 1) * PAGE_SIZE
    total, positions = index.page(query.effective_sort, scores, start, start + PAGE_SIZE)
    page_count = max(1, -(-total // PAGE_SIZE))
    if query.page > page_count:
        raise PageOutOfRange(query.page, page_count)
    return RecordResult(total, query.page, page_count, tuple(int(p) for p in positions))


class IndexedRecordTable(RecordTable):
    """A record table that comes with its search index already built (a snapshot's, :mod:`catalog.domain.snapshot`)."""

    __slots__ = ("index",)

    def __init__(self, table: RecordTable, index: ProjectRecordIndex, earliest_published: str | None) -> None:
        super().__init__(table.shortcode, table._documents, table.pids, table.ids, table.datestamps)
        self.index = index
        self._earliest_published = earliest_published  # RecordTable.earliest_published, computed when it was built


def build_record_indexes(tables: Mapping[str, RecordTable]) -> dict[str, ProjectRecordIndex]:
    """The index of every project's records, by project key (a table that brings its own is not indexed again)."""
    return {
        key: table.index if isinstance(table, IndexedRecordTable) else ProjectRecordIndex.build(table)
        for key, table in tables.items()
    }
