"""Search across the records of every project: the search engine's matches, facets, one order, fast at a million.

A query's text is answered by the search engine (:mod:`catalog.domain.engine`:
one score per record, 0 where it does not match) over one array of all
records: project after project (in catalogue order), each in its identifier
order. Built once per catalogue beside the per-project indexes, this index
adds per record

* a small integer per facet (project, type of data, licence, year), so that a
  facet's counts are one ``bincount`` and a filter is one lookup table;
* the orders of the sorts (natural label order, date), as int32 arrays.

Like the project listing, each facet value's count is what it would give with
the search and the *other* facets' selections.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Any, ClassVar, Self

import numpy as np

from catalog.domain import engine
from catalog.domain.memo import memo_for
from catalog.domain.model import Catalog, Project, RecordTable, parse_timestamp
from catalog.domain.paging import PagePositions, page_bounds, page_count
from catalog.domain.record_search import (
    PAGE_SIZE,
    ProjectRecordIndex,
    RecordQuery,
    build_record_indexes,
    ranks_of,
    record_date,
    record_label,
)
from catalog.domain.search import (
    MAX_FILTER_VALUES,
    BadQuery,
    FacetedQuery,
    FacetResult,
    FacetValue,
    PageOutOfRange,
    normalise,
    parse_year,
)
from catalog.domain.threads import Beside
from catalog.domain.values import canonical_licence_uri, licence_name, stored_list

# (URL parameter, label): the label is English, marked for translation in catalog/pages/vocabulary.py.
FACETS = (
    ("project", "Project"),
    ("type", "Type of data"),
    ("creator", "Creator"),
    ("licence", "Licence"),
    ("year", "Year"),
)
FACET_KEYS = tuple(key for key, _ in FACETS)
_LABEL_KEY_BYTES = 48  # the label sort looks at the first 48 bytes of the sort key
_DIGIT_RUN = re.compile(r"\d+")
_NO_DATE = np.iinfo(np.int64).min
SPARSE = 16  # fewer than one record in 16 matching: sort the matches instead of reading a whole order
CHUNK = 1 << 16  # how much of an order a query reads at a time when many records match


def label_sort_key(label: str) -> bytes:
    """A byte string whose order is the records page's natural label order ("2r" before "10r")."""
    padded = _DIGIT_RUN.sub(lambda run: run.group().lstrip("0").rjust(12, "0"), normalise(label))
    return padded.encode()[:_LABEL_KEY_BYTES]


def _first_text(value: object) -> str:
    for item in stored_list(value):
        if isinstance(item, str) and item.strip():
            return item.strip()
    return ""


def record_licence(record: Mapping[str, object]) -> tuple[str, str]:
    """(value, label) of a record's licence: its one canonical URI (else its name), and its name."""
    for legal in stored_list(record.get("legalInfo")):
        licence = legal.get("license") if isinstance(legal, Mapping) else None
        if not isinstance(licence, Mapping):
            continue
        uri = licence.get("licenseURI")
        found = _licence(_first_text(licence.get("licenseIdentifier")), uri if isinstance(uri, str) else None)
        if found is not None:
            return found
    return "", ""


@lru_cache(maxsize=1024)
def _licence(name: str, uri: str | None) -> tuple[str, str] | None:
    """:func:`record_licence` of one licence (None: it names none); the same few licences on millions of records."""
    value = canonical_licence_uri(uri) if uri is not None and uri.startswith("http") else name
    if value and value not in ("MISSING", "CALCULATED"):
        known = name if name and name not in ("MISSING", "CALCULATED") else None
        return value, licence_name(known, value if value.startswith("http") else None) or value
    return None


class _Codes:
    """Facet values numbered in the order they are first seen, with a display label each."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}
        self.labels: list[str] = []

    def code(self, value: str, label: str) -> int:
        if not value:
            return -1
        if value not in self.numbers:
            self.numbers[value] = len(self.labels)
            self.labels.append(label or value)
        return self.numbers[value]


# The facets whose value each record has of its own (the project's is its table's).
RECORD_FACETS = ("type", "creator", "licence", "year")


@dataclass(frozen=True)
class TableFacets:
    """The all-records facets and sort keys of one project's records, numbered within it (first seen first)."""

    codes: Mapping[str, np.ndarray]  # facet key -> int32 code per record (-1: none)
    values: Mapping[str, tuple[str, ...]]  # facet key -> the value of each code
    labels: Mapping[str, tuple[str, ...]]  # facet key -> the label of each code
    stamps: np.ndarray  # int64 per record, _NO_DATE when undated
    label_keys: np.ndarray  # label_sort_key per record


def facet_collector(table: RecordTable) -> tuple[Callable[[int, Mapping[str, Any]], None], Callable[[], TableFacets]]:
    """A function to give each record of ``table`` (position, parsed JSON), and one that gives their facets.

    So that :meth:`ProjectRecordIndex.build` reads each record's JSON once for its index and these.
    """
    numbering = {key: _Codes() for key in RECORD_FACETS}
    codes = {key: np.full(len(table), -1, dtype=np.int32) for key in RECORD_FACETS}
    stamps = np.full(len(table), _NO_DATE, dtype=np.int64)
    label_keys = np.empty(len(table), dtype=f"S{_LABEL_KEY_BYTES}")
    types, creators, licences, years = numbering["type"], numbering["creator"], numbering["licence"], numbering["year"]
    type_codes, creator_codes = codes["type"], codes["creator"]
    licence_codes, year_codes = codes["licence"], codes["year"]
    pids = table.pids

    def add(position: int, record: Mapping[str, Any]) -> None:
        kind = _first_text(record.get("typeOfData"))
        type_codes[position] = types.code(kind, kind)
        named = engine.record_creators(record)  # the first author named: one value per record, counts stay exact
        creator_codes[position] = creators.code(named[0], named[0]) if named else -1
        licence_codes[position] = licences.code(*record_licence(record))
        shown = record_date(record)
        stamp = parse_timestamp(shown)
        if stamp is not None:
            stamps[position] = stamp
            year = str(shown)[:4]
            year_codes[position] = years.code(year, year)
        label_keys[position] = label_sort_key(record_label(record) or pids[position].rpartition("/")[2])

    def facets() -> TableFacets:
        return TableFacets(
            codes=codes,
            values={key: tuple(numbering[key].numbers) for key in RECORD_FACETS},
            labels={key: tuple(numbering[key].labels) for key in RECORD_FACETS},
            stamps=stamps,
            label_keys=label_keys,
        )

    return add, facets


def table_facets(table: RecordTable) -> TableFacets:
    """The facets of a table's records, each record's JSON parsed for them alone."""
    add, facets = facet_collector(table)
    for position in range(len(table)):
        add(position, table.record(position))
    return facets()


def all_records_parts(
    tables: Sequence[tuple[Project, str, TableFacets]],
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """What :meth:`AllRecordsIndex.parts` gives, from each project's facets (with its shortcode), laid end to end.

    Values are numbered in the order they are first seen over all records;
    each project numbered its own in that order, so its numbers map in one lookup.
    """
    size = sum(len(facets.stamps) for _, _, facets in tables)
    numbering = {key: _Codes() for key in FACET_KEYS}
    codes = {key: np.full(size, -1, dtype=np.int32) for key in FACET_KEYS}
    stamps = np.full(size, _NO_DATE, dtype=np.int64)
    label_keys = np.empty(size, dtype=f"S{_LABEL_KEY_BYTES}")
    position = 0
    offsets = [0]
    for project, shortcode, facets in tables:
        end = position + len(facets.stamps)
        codes["project"][position:end] = numbering["project"].code(shortcode, project.name or project.shortcode)
        for key in RECORD_FACETS:
            pairs = zip(facets.values[key], facets.labels[key], strict=True)
            own = [numbering[key].code(value, label) for value, label in pairs]
            codes[key][position:end] = np.array([*own, -1], dtype=np.int32)[facets.codes[key]]  # -1 stays -1
        stamps[position:end] = facets.stamps
        label_keys[position:end] = facets.label_keys
        position = end
        offsets.append(position)
    by_label = np.argsort(label_keys, kind="stable").astype(np.int32)
    del label_keys
    dated = np.flatnonzero(stamps != _NO_DATE)
    oldest = dated[np.argsort(stamps[dated], kind="stable")]
    undated = np.flatnonzero(stamps == _NO_DATE)
    by_date = np.concatenate([oldest, undated]).astype(np.int32)
    by_date_newest = np.concatenate([oldest[::-1], undated]).astype(np.int32)
    small: dict[str, Any] = {
        "keys": [project.key for project, _, _ in tables],
        "values": {key: list(numbering[key].numbers) for key in FACET_KEYS},
        "labels": {key: list(numbering[key].labels) for key in FACET_KEYS},
    }
    arrays: dict[str, np.ndarray] = {
        "offsets": np.array(offsets, dtype=np.int64),
        "by_label": by_label,
        "by_date": by_date,
        "by_date_newest": by_date_newest,
        **{f"codes.{key}": codes[key] for key in FACET_KEYS},
        **{
            f"totals.{key}": np.bincount(codes[key] + 1, minlength=len(numbering[key].labels) + 1)[1:]
            for key in FACET_KEYS
        },
        "ranks.label": ranks_of(by_label),
        "ranks.oldest": ranks_of(by_date),
        "ranks.newest": ranks_of(by_date_newest),
    }
    return small, arrays


@dataclass(frozen=True)
class AllRecordsQuery(FacetedQuery):
    """The URL state of `/records`: search text, facet selections, sort, page."""

    text: str = ""
    filters: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (facet key, selected values) in FACETS order
    sort: str = ""
    page: int = 1
    years: tuple[int | None, int | None] = (None, None)  # `from` and `to`: records dated in those years
    SORTS: ClassVar[tuple[str, ...]] = RecordQuery.SORTS
    PARAMETERS: ClassVar[tuple[str, ...]] = (*RecordQuery.PARAMETERS, *FACET_KEYS)  # every one from_params reads

    @classmethod
    def from_params(cls, params: Mapping[str, Sequence[str]]) -> Self:
        """Parse ``{name: [values]}`` with the records page's rules; raises :class:`BadQuery`."""
        base = RecordQuery.from_params(params)
        filters = []
        for key in FACET_KEYS:
            selected = tuple(sorted(dict.fromkeys(v.strip() for v in params.get(key, ()) if v.strip())))
            if selected:
                filters.append((key, selected))
        if sum(len(values) for _, values in filters) > MAX_FILTER_VALUES:
            raise BadQuery("more than {limit} filter values", limit=MAX_FILTER_VALUES)
        years = (parse_year(params.get("from", ()), "from"), parse_year(params.get("to", ()), "to"))
        return cls(base.text, tuple(filters), base.sort, base.page, years)  # base.sort: "" when it is the default

    def with_filter(self, key: str, value: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The selections with ``value`` of facet ``key`` added, in the order :meth:`from_params` gives them."""
        chosen = {**dict(self.filters), key: tuple(sorted({*self.selected(key), value}))}
        return tuple((facet, chosen[facet]) for facet in FACET_KEYS if facet in chosen)

    def _state(self) -> dict[str, Any]:
        return {**super()._state(), "years": self.years}

    def _more_params(self, state: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
        return ((name, str(year)) for name, year in zip(("from", "to"), state["years"], strict=True) if year)

    @property
    def default_sort(self) -> str:
        """Best match for a search, else label: the order an empty ``sort`` means."""
        return "relevance" if self.text else "label"

    @property
    def effective_sort(self) -> str:
        return self.sort or self.default_sort

    @property
    def parsed(self) -> engine.Query:
        return engine.parse(self.text)


@dataclass(frozen=True)
class AllRecordsResult(PagePositions):
    page_size: ClassVar[int] = PAGE_SIZE
    total: int
    page: int
    page_count: int
    hits: tuple[tuple[str, int], ...]  # (project key, record position in its table), this page only
    facets: tuple[FacetResult, ...]


@dataclass(frozen=True)
class AllRecordsIndex:
    keys: tuple[str, ...]  # project keys in the order their records are laid out
    offsets: np.ndarray  # int64, len(keys) + 1: where each project's records start
    indexes: tuple[ProjectRecordIndex, ...]
    codes: Mapping[str, np.ndarray]  # facet key -> int32 code per record (-1: none)
    values: Mapping[str, tuple[str, ...]]  # facet key -> the value of each code
    labels: Mapping[str, tuple[str, ...]]  # facet key -> the label of each code
    totals: Mapping[str, np.ndarray]  # facet key -> count per code over all records
    by_label: np.ndarray  # int32 global positions in natural label order
    by_date: np.ndarray  # oldest first, undated last
    by_date_newest: np.ndarray  # newest first, undated last
    ranks: Mapping[str, np.ndarray]  # sort -> int32 rank of each record in that order (for few matches)

    @property
    def size(self) -> int:
        return int(self.offsets[-1])

    @cached_property
    def sort_labels(self) -> Mapping[str, tuple[str, ...]]:
        """Each facet value's label as the facet lists sort it, normalised once (a value each project at scale)."""
        return {key: tuple(normalise(label) for label in labels) for key, labels in self.labels.items()}

    @classmethod
    def build(cls, catalog: Catalog, indexes: Mapping[str, ProjectRecordIndex]) -> AllRecordsIndex:
        tables = [
            (project, table)
            for project in catalog.projects
            if (table := catalog.records.get(project.key)) is not None and project.key in indexes
        ]
        facets = [(project, table.shortcode, table_facets(table)) for project, table in tables]
        return cls.from_parts(*all_records_parts(facets), indexes)

    def parts(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """What a snapshot stores of it: the small values (JSON-able) and the arrays by name.

        The per-project indexes are not part of it: the snapshot's tables bring their own.
        """
        small = {
            "keys": list(self.keys),
            "values": {key: list(values) for key, values in self.values.items()},
            "labels": {key: list(labels) for key, labels in self.labels.items()},
        }
        arrays = {
            "offsets": self.offsets,
            "by_label": self.by_label,
            "by_date": self.by_date,
            "by_date_newest": self.by_date_newest,
            **{f"codes.{key}": codes for key, codes in self.codes.items()},
            **{f"totals.{key}": totals for key, totals in self.totals.items()},
            **{f"ranks.{sort}": ranks for sort, ranks in self.ranks.items()},
        }
        return small, arrays

    @classmethod
    def from_parts(
        cls, small: Mapping[str, Any], arrays: Mapping[str, np.ndarray], indexes: Mapping[str, ProjectRecordIndex]
    ) -> AllRecordsIndex:
        """The index :meth:`parts` describes, over ``indexes`` (every project's, by key)."""
        keys = tuple(small["keys"])

        def by_prefix(prefix: str) -> dict[str, np.ndarray]:
            return {name.removeprefix(prefix): array for name, array in arrays.items() if name.startswith(prefix)}

        return cls(
            keys=keys,
            offsets=arrays["offsets"],
            indexes=tuple(indexes[key] for key in keys),
            codes=by_prefix("codes."),
            values={key: tuple(values) for key, values in small["values"].items()},
            labels={key: tuple(labels) for key, labels in small["labels"].items()},
            totals=by_prefix("totals."),
            by_label=arrays["by_label"],
            by_date=arrays["by_date"],
            by_date_newest=arrays["by_date_newest"],
            ranks=by_prefix("ranks."),
        )

    def selection(self, key: str, selected: Sequence[str]) -> np.ndarray:
        """The records with one of the selected values of a facet (a value nobody has selects nothing)."""
        numbers = {value: code for code, value in enumerate(self.values[key])}
        wanted = np.zeros(len(self.values[key]) + 1, dtype=bool)  # the last slot is code -1: no value
        for value in selected:
            if value in numbers:
                wanted[numbers[value]] = True
        if key == "project":
            return self._project_runs(wanted)
        selected_records: np.ndarray = wanted[self.codes[key]]
        return selected_records

    def _project_runs(self, wanted: np.ndarray) -> np.ndarray:
        """The records of the projects whose code ``wanted`` marks: each project's records are one run, so its
        run is marked whole (a slice) rather than every record's code looked up (1.5 ms at a million)."""
        starts, ends = self.offsets[:-1], self.offsets[1:]
        filled = np.flatnonzero(ends > starts)
        table_codes = np.full(len(starts), -1, dtype=np.int32)  # an empty table: no code, never wanted
        table_codes[filled] = self.codes["project"][starts[filled]]
        kept = np.zeros(self.size, dtype=bool)
        for table in np.flatnonzero(wanted[table_codes]):
            kept[starts[table] : ends[table]] = True
        return kept

    def in_years(self, low: int | None, high: int | None) -> np.ndarray | None:
        """The records dated in some year of [low, high] (None: no range; an undated record is outside any)."""
        if low is None and high is None:
            return None
        wanted = np.zeros(len(self.values["year"]) + 1, dtype=bool)  # the last slot is code -1: undated
        for code, value in enumerate(self.values["year"]):
            year = int(value) if value.isdigit() else None
            wanted[code] = year is not None and (low is None or year >= low) and (high is None or year <= high)
        in_range: np.ndarray = wanted[self.codes["year"]]
        return in_range

    def _order(self, sort: str) -> np.ndarray:
        return {
            "label": self.by_label,
            "label-desc": self.by_label[::-1],
            "oldest": self.by_date,
            "newest": self.by_date_newest,
        }[sort]

    def page_of(
        self, sort: str, mask: np.ndarray | None, start: int, stop: int, scores: np.ndarray | None = None
    ) -> tuple[int, np.ndarray]:
        """How many records the mask keeps, and those from ``start`` to ``stop`` in the sort order.

        Relevance orders by ``scores`` (best first, ties in label order); without them, by label.
        """
        if sort == "relevance":
            if scores is None or mask is None:
                sort = "label"
            else:
                found = np.flatnonzero(mask)
                best = found[np.lexsort((self.ranks["label"][found], -scores[found]))]
                return len(found), best[start:stop]
        if mask is None:
            order = np.arange(self.size, dtype=np.int32) if sort == "identifier" else self._order(sort)
            return self.size, order[start:stop]
        total = int(np.count_nonzero(mask))
        if sort == "identifier":
            return total, np.flatnonzero(mask)[start:stop]
        if total * SPARSE < self.size:  # few matches: sort them by rank rather than read a whole order
            found = np.flatnonzero(mask)
            ordered = found[np.argsort(self.ranks["label" if sort.startswith("label") else sort][found], kind="stable")]
            return total, (ordered[::-1] if sort == "label-desc" else ordered)[start:stop]
        # Many matches: read the order a slice at a time until the page is full.
        order, picked, seen = self._order(sort), [], 0
        for begin in range(0, self.size, CHUNK):
            part = order[begin : begin + CHUNK]
            hits = part[mask[part]]
            if seen + len(hits) > start:
                picked.append(hits[max(0, start - seen) : stop - seen])
            seen += len(hits)
            if seen >= stop:
                break
        return total, np.concatenate(picked) if picked else np.zeros(0, dtype=np.int32)


def _and(masks: Sequence[np.ndarray]) -> np.ndarray | None:
    if not masks:
        return None
    combined = masks[0].copy() if len(masks) > 1 else masks[0]
    for mask in masks[1:]:
        combined &= mask
    return combined


def _facet(index: AllRecordsIndex, key: str, label: str, counts: np.ndarray, selected: Sequence[str]) -> FacetResult:
    """A facet's values with a count, and those selected: years newest first, others most records first, then by
    label."""
    values, labels, tallies, chosen = index.values[key], index.labels[key], counts.tolist(), set(selected)
    shown: list[int] = np.flatnonzero(counts).tolist()
    if chosen:
        shown = sorted({*shown, *(code for code, value in enumerate(values) if value in chosen)})
    if key == "year":
        shown.sort(key=lambda code: values[code], reverse=True)
    else:
        sort_labels = index.sort_labels[key]
        shown.sort(key=lambda code: (-tallies[code], sort_labels[code], values[code]))
    facet_values = (FacetValue(values[code], labels[code], tallies[code], values[code] in chosen) for code in shown)
    return FacetResult(key, label, tuple(facet_values))


def _marked(mask: np.ndarray, count: int) -> np.ndarray | slice:
    """The positions ``mask`` marks (``count`` of them); a slice when they are one run, as one project's records
    are, found without listing them (a million-record mask lists in 0.4 ms, a run reads as a view)."""
    first = int(np.argmax(mask))
    if count and mask[first : first + count].all():
        return slice(first, first + count)
    return np.flatnonzero(mask)


class _Counter:
    """Facet counts under a mask: the positions of a mask are found once, however many facets share it."""

    def __init__(self, index: AllRecordsIndex) -> None:
        self.index = index
        self.positions: dict[int, tuple[np.ndarray | slice, bool]] = {}

    def counts(self, key: str, mask: np.ndarray | None) -> np.ndarray:
        totals = self.index.totals[key]
        if mask is None:
            return totals
        found = self.positions.get(id(mask))
        if found is None:
            # Count the smaller side: the matches, or the records left out (then subtract from the totals).
            count = int(np.count_nonzero(mask))
            left_out = 2 * count > len(mask)
            found = (_marked(~mask, len(mask) - count) if left_out else _marked(mask, count), left_out)
            self.positions[id(mask)] = found
        positions, left_out = found
        codes = self.index.codes[key]
        picked = codes[positions] if isinstance(positions, slice) else codes.take(positions)
        counted = np.bincount(picked + 1, minlength=len(totals) + 1)[1:]
        return totals - counted if left_out else counted


def _masks(
    index: AllRecordsIndex, query: AllRecordsQuery, scores: np.ndarray | None
) -> tuple[np.ndarray | None, dict[str, np.ndarray]]:
    """The records the search (``scores``, the engine's: None for no search) and the years keep (None: all), and
    those each facet's selection keeps."""
    text_mask = _and(
        [m for m in (None if scores is None else scores > 0, index.in_years(*query.years)) if m is not None]
    )
    return text_mask, {key: index.selection(key, values) for key, values in query.filters}


def _facets(
    index: AllRecordsIndex,
    query: AllRecordsQuery,
    text_mask: np.ndarray | None,
    selections: Mapping[str, np.ndarray],
    keys: Sequence[str] = FACET_KEYS,
) -> tuple[FacetResult, ...]:
    """Each facet's counts (of ``keys``): the search and the *other* facets' selections (one shared mask when
    nothing is selected)."""
    masks = {
        key: _and(
            [m for m in (text_mask, *(mask for other, mask in selections.items() if other != key)) if m is not None]
        )
        for key in keys
    }
    counter = _Counter(index)
    return tuple(
        _facet(index, key, label, counter.counts(key, masks[key]), query.selected(key))
        for key, label in FACETS
        if key in keys
    )


def all_records_facets(
    index: AllRecordsIndex, query: AllRecordsQuery, keys: Sequence[str] = FACET_KEYS
) -> tuple[FacetResult, ...]:
    """The facets (of ``keys``, in :data:`FACETS` order) `/records` shows for ``query`` without a search text, and
    without its page: what the charts of records count (a chart asks for the facets it draws only)."""
    return _facets(index, query, *_masks(index, query, None), keys)


def search_all_records(index: AllRecordsIndex, query: AllRecordsQuery, scores: np.ndarray | None) -> AllRecordsResult:
    """One page of the records of every project, ``scores`` the engine's for the query's text (None: no search).

    Raises :class:`PageOutOfRange` past the last page.
    """
    text_mask, selections = _masks(index, query, scores)
    facets = _facets(index, query, text_mask, selections)
    mask = _and([m for m in (text_mask, *selections.values()) if m is not None])
    start = (query.page - 1) * PAGE_SIZE
    total, positions = index.page_of(query.effective_sort, mask, start, start + PAGE_SIZE, scores)
    page_count = max(1, -(-total // PAGE_SIZE))
    if query.page > page_count:
        raise PageOutOfRange(query.page, page_count)
    projects = np.searchsorted(index.offsets, positions, side="right") - 1
    hits = tuple(
        (index.keys[int(project)], int(position - index.offsets[project]))
        for project, position in zip(projects, positions, strict=True)
    )
    return AllRecordsResult(total, query.page, page_count, hits, facets)


def record_indexes(catalog: Catalog) -> Mapping[str, ProjectRecordIndex]:
    """Every project's record index, built once per catalogue (shared with the records pages)."""
    return memo_for(catalog).get("record-indexes", lambda: build_record_indexes(catalog.records))


class RecordsWithIndex(Mapping[str, RecordTable]):
    """A catalogue's record tables that come with their all-records index already built (a snapshot's)."""

    def __init__(self, tables: Mapping[str, RecordTable], index: AllRecordsIndex) -> None:
        self._tables = tables
        self.index = index

    def __getitem__(self, key: str) -> RecordTable:
        return self._tables[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tables)

    def __len__(self) -> int:
        return len(self._tables)


def all_records_index(catalog: Catalog) -> AllRecordsIndex:
    """The index of all records: the snapshot's, else built once per catalogue over the per-project indexes."""

    def build() -> AllRecordsIndex:
        if isinstance(catalog.records, RecordsWithIndex):
            return catalog.records.index
        return AllRecordsIndex.build(catalog, record_indexes(catalog))

    return memo_for(catalog).get("all-records-index", build)


engine.record_layout = all_records_index  # what the records' search index is laid out by


EXPORT_LIMIT = 1000  # a result list's exports (CSV, BibTeX): its first 1,000 hits


def _engine_filters(
    index: AllRecordsIndex, query: AllRecordsQuery, records: engine.EngineIndex
) -> tuple[Any | None, dict[str, Any]]:
    """The tantivy filters of a query's `from`/`to` and of each facet's selection."""
    years = None if query.years == (None, None) else records.between("facet.year_shown", *query.years)
    selections = {}
    for key, selected in query.filters:
        numbers = {value: code for code, value in enumerate(index.values[key])}
        selections[key] = records.among(f"facet.{key}", (numbers[v] for v in selected if v in numbers))
    return years, selections


def first_hits(catalog: Catalog, query: AllRecordsQuery, limit: int = EXPORT_LIMIT) -> tuple[tuple[str, int], ...]:
    """The first ``limit`` hits of ``query`` in its order, whatever its page: (project key, record position)."""
    index = all_records_index(catalog)
    found = engine.search_engine(catalog) if query.text else None
    text = found.records.matching(query.parsed) if found is not None and found.ordered else None
    if found is not None and text is not None:
        years, selections = _engine_filters(index, query, found.records)
        kept = [f for f in (years, *selections.values()) if f is not None]
        positions = found.records.page(engine.filtered(text, kept), query.effective_sort, 0, limit)
    else:
        scores = found.record_scores(query.parsed) if found is not None else None
        text_mask = _and(
            [m for m in (None if scores is None else scores > 0, index.in_years(*query.years)) if m is not None]
        )
        selections_masks = [index.selection(key, values) for key, values in query.filters]
        mask = _and([m for m in (text_mask, *selections_masks) if m is not None])
        _, positions = index.page_of(query.effective_sort, mask, 0, limit, scores)
    projects = np.searchsorted(index.offsets, positions, side="right") - 1
    return tuple(
        (index.keys[int(project)], int(position - index.offsets[project]))
        for project, position in zip(projects, positions, strict=True)
    )


def search_in_engine(
    index: AllRecordsIndex, query: AllRecordsQuery, found: engine.SearchEngine
) -> AllRecordsResult | None:
    """What :func:`search_all_records` answers for a query with a text, counted, ordered and paged by tantivy.

    Its time grows with the page's number and the facets' values, not with the matches: no match is read out.
    None when the engine cannot answer so (an index not written in label order, a text that asks for nothing,
    too many facet values): then the matches are read out.
    """
    records, parsed = found.records, query.parsed
    text = records.matching(parsed) if found.ordered else None
    if text is None:
        return None
    matches = records.matching(parsed, scored=False)  # the same records: what the facets count
    years, selections = _engine_filters(index, query, records)

    def limited(leave_out: str | None, searched: Any = matches) -> Any:
        kept = [f for f in (years, *(q for key, q in selections.items() if key != leave_out)) if f is not None]
        return engine.filtered(searched, kept)

    # A facet's counts: the search and the *other* facets' selections; facets that select nothing share one count,
    # whose projects also count the matches (a record has one project). They are counted on a second thread while
    # this one finds the page: at ten million records each is a pass over every match (docs/benchmark.md).
    def count_facets() -> dict[str | None, dict[str, dict[int, int]]] | None:
        counted: dict[str | None, dict[str, dict[int, int]]] = {}
        for leave_out in (None, *selections):
            keys = [leave_out] if leave_out else ["project", *(k for k, _ in FACETS if k not in selections)]
            got = records.counts(limited(leave_out), {f"facet.{k}": len(index.values[k]) for k in dict.fromkeys(keys)})
            if got is None:
                return None
            counted[leave_out] = got
        return counted

    counting = Beside(count_facets)
    start, stop = (query.page - 1) * PAGE_SIZE, query.page * PAGE_SIZE
    # One word by relevance: its first pages are most often among the items that hold the word itself.
    holding = records.holding(parsed) if query.effective_sort == "relevance" else None
    positions = records.page_holding(limited(None, holding), start, stop) if holding is not None else None
    if positions is None:
        positions = records.page(limited(None, text), query.effective_sort, start, stop)
    counted = counting.result()
    if counted is None:
        return None
    total = sum(counted[None]["facet.project"].values())
    facets = []
    for key, label in FACETS:
        buckets = counted[key if key in selections else None][f"facet.{key}"]
        counts = np.zeros(len(index.values[key]), dtype=np.int64)
        for code, count in buckets.items():
            if 0 <= code < len(counts):
                counts[code] = count
        facets.append(_facet(index, key, label, counts, query.selected(key)))
    page_count = max(1, -(-total // PAGE_SIZE))
    if query.page > page_count:
        raise PageOutOfRange(query.page, page_count)
    projects = np.searchsorted(index.offsets, positions, side="right") - 1
    hits = tuple(
        (index.keys[int(project)], int(position - index.offsets[project]))
        for project, position in zip(projects, positions, strict=True)
    )
    return AllRecordsResult(total, query.page, page_count, hits, tuple(facets))


def search_catalog(catalog: Catalog, query: AllRecordsQuery) -> AllRecordsResult:
    """``query`` over the catalogue's records: the engine's scores for its text, then facets, sort and page.

    With a text, tantivy counts the facets and picks the page (:func:`search_in_engine`) when its index allows.
    """
    index = all_records_index(catalog)
    if query.text:
        found = engine.search_engine(catalog)
        answer = search_in_engine(index, query, found)
        if answer is not None:
            return answer
        return search_all_records(index, query, found.record_scores(query.parsed))
    return search_all_records(index, query, None)


FACET_PAGE_SIZE = 100  # values on a page of a facet's own (`/records/facets/<key>`)


@dataclass(frozen=True)
class FacetPage(PagePositions):
    """One page of every value a facet of `/records` counts for a search."""

    page_size: ClassVar[int] = FACET_PAGE_SIZE
    key: str
    label: str
    total: int  # how many values the facet has
    page: int
    page_count: int
    values: tuple[FacetValue, ...]  # this page's, in the facet's order


def facet_page(catalog: Catalog, query: AllRecordsQuery, key: str) -> FacetPage:
    """Page ``query.page`` of the values of facet ``key`` (one of :data:`FACET_KEYS`) for ``query``'s search.

    The facet `/records` shows for the same search (its sort and page aside), so the counts are the same.
    Raises :class:`PageOutOfRange` past the last page.
    """
    searched = search_catalog(catalog, replace(query, sort="", page=1))
    facet = next(facet for facet in searched.facets if facet.key == key)
    pages = page_count(len(facet.values), FACET_PAGE_SIZE)
    if query.page > pages:
        raise PageOutOfRange(query.page, pages)
    start, stop = page_bounds(query.page, FACET_PAGE_SIZE)
    return FacetPage(key, facet.label, len(facet.values), query.page, pages, facet.values[start:stop])
