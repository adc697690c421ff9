"""Search and sort inside one project's records, fast at millions of records.

Built once per catalogue (see :mod:`catalog.domain.memo`), before the workers
fork, so they share it. Per project the index holds

* a sorted, packed vocabulary of the records' normalised words (the same
  case- and accent-folding as the project listing, :func:`search.words`) and,
  in vocabulary order, the records each word occurs in (one int32 array): the
  records whose words *start with* a query word are one contiguous slice;
* the record order for each sort (natural label order, date), as int32 arrays,
  and their inverses (each record's place in that order), derived on opening;
  identifier order is the table's own (pid) order.

A query marks the matching records in a boolean array per word (numpy), at
their places in the wanted sort order, and ANDs them; the marks then give the
total and, read in order, the page: no Python loop runs over the records, and
only the page's places are turned back into records. Word-prefix rather than substring matching keeps that property:
"o2" finds "o2r", "zur" finds "Zürich".
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, ClassVar

import numpy as np

from catalog.domain.model import RecordTable, _Strings, is_placeholder, language_items, parse_timestamp
from catalog.domain.paging import PagePositions
from catalog.domain.search import PageOutOfRange, TextSortPage, cut_at_matches, normalise, words

PAGE_SIZE = 50
MAX_QUERY_WORDS = 20
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


SEARCHED_FIELDS = ("label", "description", "keywords", "typeOfData", "publisher")


def record_words(record: Mapping[str, object], pid: str) -> set[str]:
    """The normalised words a record is found by: its text fields and the last part of its pid."""
    texts = [text for name in SEARCHED_FIELDS for text in _texts(record.get(name))]
    texts.append(pid.rpartition("/")[2])
    # One pass over the texts joined: a space ends every word, so the words are those of each text.
    return set(words(" ".join(texts)))


@dataclass(frozen=True, slots=True)
class ProjectRecordIndex:
    size: int
    vocabulary: _Strings  # sorted normalised words
    starts: np.ndarray  # int64, len(vocabulary) + 1: where each word's postings start
    postings: np.ndarray  # int32 record positions, grouped by word in vocabulary order
    by_label: np.ndarray  # int32 record positions in natural label order
    by_date: np.ndarray  # int32 record positions, oldest first, undated last
    dated: int  # how many records have a date (the head of by_date)

    @classmethod
    def build(
        cls, table: RecordTable, each_record: Callable[[int, Mapping[str, Any]], None] | None = None
    ) -> ProjectRecordIndex:
        """The index of ``table``; ``each_record`` is given every record's position and parsed JSON too."""
        # Words and their records go into two flat lists (C-level extends, one string object per
        # distinct word); numpy then groups them by word, keeping each word's records in order.
        distinct: dict[str, str] = {}
        same_word = distinct.setdefault
        found_words: list[str] = []
        found_in = array("i")
        labels: list[tuple[tuple[object, ...], int]] = []
        dates = np.empty(len(table), dtype=np.int64)
        for position in range(len(table)):
            record = table.record(position)
            if each_record is not None:
                each_record(position, record)
            found = record_words(record, table.pids[position])
            found_words.extend(map(same_word, found, found))
            found_in.extend(repeat(position, len(found)))
            labels.append((natural_key(record_label(record)), position))
            stamp = parse_timestamp(record_date(record))
            dates[position] = _NO_DATE if stamp is None else stamp
        vocabulary = sorted(distinct)
        rank = {word: number for number, word in enumerate(vocabulary)}
        word_numbers = np.fromiter(map(rank.__getitem__, found_words), dtype=np.int32, count=len(found_words))
        starts = np.zeros(len(vocabulary) + 1, dtype=np.int64)
        np.cumsum(np.bincount(word_numbers, minlength=len(vocabulary)), out=starts[1:])
        postings = np.frombuffer(found_in, dtype=np.int32)[np.argsort(word_numbers, kind="stable")]
        labels.sort()
        dated = np.flatnonzero(dates != _NO_DATE)
        by_date = np.concatenate([dated[np.argsort(dates[dated], kind="stable")], np.flatnonzero(dates == _NO_DATE)])
        return cls(
            size=len(table),
            vocabulary=_Strings.pack([word.encode() for word in vocabulary]),
            starts=starts,
            postings=postings.astype(np.int32),
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

    def _postings_of(self, word: str) -> np.ndarray:
        """The records of every vocabulary word that starts with ``word`` (a record may come more than once)."""
        low = bisect.bisect_left(self.vocabulary, word)
        high = bisect.bisect_left(self.vocabulary, word + "\U0010ffff")
        return self.postings[self.starts[low] : self.starts[high]]

    def matching(self, query_words: Sequence[str]) -> np.ndarray | None:
        """A boolean mask of the records having a word that starts with each query word; None for no words."""
        return self._marked(query_words, None)

    def _marked(self, query_words: Sequence[str], ranks: np.ndarray | None) -> np.ndarray | None:
        """The records matching every query word, marked at their places in ``ranks``' order (or by position)."""
        mask = None
        for word in query_words:
            hits = self._postings_of(word)
            found = np.zeros(self.size, dtype=bool)
            found[hits if ranks is None else ranks[hits]] = True
            mask = found if mask is None else np.logical_and(mask, found, out=mask)
        return mask

    def page(self, sort: str, query_words: Sequence[str], start: int, stop: int) -> tuple[int, np.ndarray]:
        """How many records match every query word (all without words), and those ``start:stop`` in the sort.

        The matches are marked at their places in the sort's own order (through its ranks), so they come
        out in order by one pass over the marks, and only the page's are turned back into positions.
        """
        if sort == "identifier":
            mask = self._marked(query_words, None)
            if mask is None:
                return self.size, np.arange(start, min(stop, self.size), dtype=np.int32)
            matches = np.flatnonzero(mask)
            return len(matches), matches[start:stop].astype(np.int32)
        by_label = sort.startswith("label")
        order, ranks = (self.by_label, self.label_ranks) if by_label else (self.by_date, self.date_ranks)
        mask = self._marked(query_words, ranks)
        if mask is None:
            return self.size, _arranged(order, sort, self.dated, start, stop)
        places = np.flatnonzero(mask)
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
    SORTS = ("label", "label-desc", "newest", "oldest", "identifier")  # the first is the default

    @property
    def words(self) -> list[str]:
        return list(dict.fromkeys(words(self.text)))[:MAX_QUERY_WORDS]


@dataclass(frozen=True)
class RecordResult(PagePositions):
    page_size: ClassVar[int] = PAGE_SIZE
    total: int
    page: int
    page_count: int
    positions: tuple[int, ...]  # record positions in the table, this page only


def search_records(index: ProjectRecordIndex, query: RecordQuery) -> RecordResult:
    """One page of a project's records; raises :class:`PageOutOfRange` past the last page."""
    start = (query.page - 1) * PAGE_SIZE
    total, positions = index.page(query.effective_sort, query.words, start, start + PAGE_SIZE)
    page_count = max(1, -(-total // PAGE_SIZE))
    if query.page > page_count:
        raise PageOutOfRange(query.page, page_count)
    return RecordResult(total, query.page, page_count, tuple(int(p) for p in positions))


def highlight(text: str, query_words: Sequence[str]) -> tuple[tuple[str, bool], ...]:
    """``text`` cut into (part, is_match) pieces: a word is a match when it starts with a query word."""
    if not query_words:
        return ((text, False),) if text else ()
    return cut_at_matches(text, lambda folded: any(folded.startswith(word) for word in query_words))


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
