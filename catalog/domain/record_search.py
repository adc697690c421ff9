"""Search and sort inside one project's records, fast at a quarter million records.

Built once per catalogue (see :mod:`catalog.domain.memo`), before the workers
fork, so they share it. Per project the index holds

* a sorted, packed vocabulary of the records' normalised words (the same
  case- and accent-folding as the project listing, :func:`search.words`) and,
  in vocabulary order, the records each word occurs in (one int32 array): the
  records whose words *start with* a query word are one contiguous slice;
* the record order for each sort (natural label order, date), as int32 arrays;
  identifier order is the table's own (pid) order.

A query marks the matching records in a boolean array per word (numpy), ANDs
them and reads the wanted sort order through the mask: no Python loop runs over
the records. Word-prefix rather than substring matching keeps that property:
"o2" finds "o2r", "zur" finds "Zürich".
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
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

    def matching(self, query_words: Sequence[str]) -> np.ndarray | None:
        """A boolean mask of the records having a word that starts with each query word; None for no words."""
        mask = None
        for word in query_words:
            low = bisect.bisect_left(self.vocabulary, word)
            high = bisect.bisect_left(self.vocabulary, word + "\U0010ffff")
            found = np.zeros(self.size, dtype=bool)
            found[self.postings[self.starts[low] : self.starts[high]]] = True
            mask = found if mask is None else mask & found
        return mask

    def ordered(self, sort: str, mask: np.ndarray | None) -> np.ndarray:
        """Record positions in the sort order, only those the mask keeps."""
        if sort == "identifier":
            return np.arange(self.size, dtype=np.int32) if mask is None else np.flatnonzero(mask)
        order = self.by_label if sort.startswith("label") else self.by_date
        if sort == "newest":
            order = np.concatenate([order[: self.dated][::-1], order[self.dated :]])
        elif sort == "label-desc":
            order = order[::-1]
        return order if mask is None else order[mask[order]]


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
    query_words = query.words
    order = index.ordered(query.effective_sort, index.matching(query_words) if query_words else None)
    total = len(order)
    page_count = max(1, -(-total // PAGE_SIZE))
    if query.page > page_count:
        raise PageOutOfRange(query.page, page_count)
    start = (query.page - 1) * PAGE_SIZE
    return RecordResult(total, query.page, page_count, tuple(int(p) for p in order[start : start + PAGE_SIZE]))


def highlight(text: str, query_words: Sequence[str]) -> tuple[tuple[str, bool], ...]:
    """``text`` cut into (part, is_match) pieces: a word is a match when it starts with a query word."""
    if not query_words:
        return ((text, False),) if text else ()
    return cut_at_matches(text, lambda folded: any(folded.startswith(word) for word in query_words))


class IndexedRecordTable(RecordTable):
    """A record table that comes with its search index already built (a snapshot's, :mod:`catalog.domain.snapshot`)."""

    __slots__ = ("earliest_published", "index")

    def __init__(self, table: RecordTable, index: ProjectRecordIndex, earliest_published: str | None) -> None:
        super().__init__(table.shortcode, table._documents, table.pids, table.ids, table.datestamps)
        self.index = index
        self.earliest_published = earliest_published  # dates.earliest_record_published, computed when it was built


def build_record_indexes(tables: Mapping[str, RecordTable]) -> dict[str, ProjectRecordIndex]:
    """The index of every project's records, by project key (a table that brings its own is not indexed again)."""
    return {
        key: table.index if isinstance(table, IndexedRecordTable) else ProjectRecordIndex.build(table)
        for key, table in tables.items()
    }
