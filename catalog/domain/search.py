"""Project search for the listing: facets, sorting, pages, over the search engine's matches.

Pure functions over a :class:`SearchIndex` (each project's facet values and
sort keys, built once per catalogue); which projects a search text matches,
and how well, is the search engine's answer (:mod:`catalog.domain.engine`).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Self
from urllib.parse import urlencode

from catalog.domain import disciplines
from catalog.domain.engine import SearchEngine, parse
from catalog.domain.memo import per_catalog
from catalog.domain.model import (
    ACCESS_RIGHTS,
    PROJECT_STATUSES,
    Catalog,
    Frozen,
    Project,
    is_placeholder,
    pick_language,
)
from catalog.domain.paging import PagePositions, page_bounds, page_count, whole_number
from catalog.domain.values import canonical_licence_uri, language_name, licence_label, stored_list, stored_strings

PAGE_SIZE = 20
OPEN_END = 9999  # the last year of a project without an end date
MAX_QUERY_LENGTH = 500
MAX_FILTER_VALUES = 50

# Letters that NFKD does not decompose into a base letter plus accents.
_FOLD = str.maketrans({"ø": "o", "Ø": "o", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ł": "l", "Ł": "l", "đ": "d"})


def normalise(text: str) -> str:
    """Case- and accent-insensitive form of a text: "Zürich" and "zurich" match."""
    if text.isascii():  # the common case, and NFKD leaves ASCII as it is
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return "".join(char for char in decomposed if not unicodedata.combining(char)).casefold()


class BadQuery(ValueError):
    """A listing parameter that cannot be understood (answered with HTTP 400).

    ``reason`` and ``details`` keep the message apart from its values, so that a page can say it in the
    reader's language (catalog/pages/vocabulary.py marks each reason); ``str()`` is the English sentence.
    """

    def __init__(self, reason: str, **details: object) -> None:
        super().__init__(reason.format(**details))
        self.reason = reason
        self.details = details


class PageOutOfRange(LookupError):
    """A page number past the last page (answered with HTTP 404)."""

    def __init__(self, page: int, page_count: int) -> None:
        super().__init__(f"page {page} of {page_count}")
        self.page = page
        self.page_count = page_count


def parse_page(values: Sequence[str]) -> int:
    """The ``page`` parameter's values as one positive page number (1 when absent or empty)."""
    given = [value for value in values if value]
    if not given:
        return 1
    if len(given) > 1:
        raise BadQuery("give one page number")
    number = whole_number(given[0].strip())
    if number is None or number < 1:
        raise BadQuery("the page must be a positive whole number, not {given}", given=repr(given[0]))
    return number


def parse_year(values: Sequence[str], name: str) -> int | None:
    """A ``from``/``to`` parameter as a year (None when absent or empty)."""
    given = [value.strip() for value in values if value.strip()]
    if not given:
        return None
    if len(given) > 1:
        raise BadQuery("give one year for {name}", name=name)
    year = whole_number(given[0])
    if year is None or not 1 <= year <= 9999:
        raise BadQuery("the year must be a whole number from 1 to 9999, not {given}", given=repr(given[0]))
    return year


def _year(value: object) -> int | None:
    text = value.strip() if isinstance(value, str) else ""
    return int(text[:4]) if len(text) >= 4 and text[:4].isdigit() and not is_placeholder(text) else None


SORTS = {
    "relevance": "Best match",
    "name": "Name A–Z",  # noqa: RUF001 (typographic dash)
    "name-desc": "Name Z–A",  # noqa: RUF001
    "newest": "Newest first",
    "oldest": "Oldest first",
}


@dataclass(frozen=True, slots=True)
class Facet:
    key: str  # the URL parameter
    label: str
    values_of: Callable[[Project], tuple[str, ...]]
    value_label: Callable[[str], str] = str
    fixed_order: tuple[str, ...] = ()
    # For values that name other entities (funders, organizations): read with the whole catalogue.
    catalog_values: Callable[[Catalog, Project], tuple[str, ...]] | None = None
    listed: bool = True  # shown among the listing's filters (else only a URL parameter, a chip when selected)


def _texts(value: Frozen) -> tuple[str, ...]:
    """Display texts of a list of language maps or reference objects."""
    texts = []
    for item in stored_list(value):
        if isinstance(item, Mapping) and ("url" in item or "text" in item):
            text = item.get("text") or item.get("url")
        else:
            text = pick_language(item)
        if isinstance(text, str) and text.strip() and not is_placeholder(text):
            texts.append(text.strip())
    return tuple(dict.fromkeys(texts))


def _status(project: Project) -> tuple[str, ...]:
    return (project.status,) if project.status and not is_placeholder(project.status) else ()


def _access(project: Project) -> tuple[str, ...]:
    value = project.get("accessRights")
    right = value.get("accessRights") if isinstance(value, Mapping) else value
    return (right,) if isinstance(right, str) and right and not is_placeholder(right) else ()


def _clean(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v.strip() for v in values if v.strip() and not is_placeholder(v)))


def _licences(project: Project) -> tuple[str, ...]:
    """A project's licences, each by its one canonical URI (else its name as stored)."""
    found = []
    for legal in stored_list(project.get("legalInfo")):
        licence = legal.get("license") if isinstance(legal, Mapping) else None
        if not isinstance(licence, Mapping):
            continue
        uri = licence.get("licenseURI")
        name = licence.get("licenseIdentifier")
        if isinstance(uri, str) and uri.strip().startswith("http"):
            found.append(canonical_licence_uri(uri))
        elif isinstance(name, str):
            found.append(name)
    return _clean(tuple(found))


def _none(project: Project) -> tuple[str, ...]:
    return ()


def _funders(catalog: Catalog, project: Project) -> tuple[str, ...]:
    """The names of the organizations (or persons) a project's grants name as funders."""
    return _clean(tuple(c.display_name for i in project.funder_ids if (c := catalog.contributor(i)) is not None))


def _organizations(catalog: Catalog, project: Project) -> tuple[str, ...]:
    """The organizations that took part: attributed ones and the affiliations of attributed persons."""
    names = []
    for attribution in project.attributions:
        if organization := catalog.organizations.get(attribution.contributor_id):
            names.append(organization.display_name)
        elif person := catalog.persons.get(attribution.contributor_id):
            names.extend(o.display_name for i in person.affiliation_ids if (o := catalog.organizations.get(i)))
    return _clean(tuple(names))


@per_catalog
def _credits(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """Project key -> the persons and organizations whose page lists the project (the loader's rule)."""
    credited: dict[str, list[str]] = {}
    for by_contributor in (catalog.projects_by_person, catalog.projects_by_organization):
        for contributor_id, credits in by_contributor.items():
            for project, _ in credits:
                credited.setdefault(project.key, []).append(contributor_id)
    return {key: tuple(ids) for key, ids in credited.items()}


def _contributors(catalog: Catalog, project: Project) -> tuple[str, ...]:
    return _credits(catalog).get(project.key, ())


FACETS: tuple[Facet, ...] = (
    Facet("status", "Status", _status, fixed_order=PROJECT_STATUSES),
    Facet("access", "Access rights", _access, fixed_order=ACCESS_RIGHTS),
    Facet("type", "Type of data", lambda p: _clean(stored_strings(p.get("typeOfData")))),
    Facet("language", "Data language", lambda p: _clean(stored_strings(p.get("dataLanguage"))), language_name),
    Facet(
        "discipline",
        "Discipline",
        lambda p: tuple(dict.fromkeys(map(disciplines.facet_value, _texts(p.get("disciplines"))))),
        disciplines.facet_label,
    ),
    Facet("licence", "Licence", _licences, licence_label),
    Facet("funder", "Funder", _none, catalog_values=_funders),
    Facet("organization", "Organization", _none, catalog_values=_organizations),
    # A person's or organization's projects, by id: what the charts of their pages link to.
    Facet("contributor", "Contributor", _none, catalog_values=_contributors, listed=False),
)
FACET_KEYS = tuple(facet.key for facet in FACETS)
LISTED_FACET_KEYS = tuple(facet.key for facet in FACETS if facet.listed)


@dataclass(frozen=True, slots=True)
class IndexedProject:
    project: Project
    facet_values: tuple[frozenset[str], ...]  # in FACETS order
    sort_name: str
    start: str  # ISO start date, "" when unknown
    years: tuple[int, int] | None = None  # first and last year the project ran, when its dates say


def _index_project(catalog: Catalog, project: Project) -> IndexedProject:
    start = project.get("startDate")
    first, last = _year(project.get("startDate")), _year(project.get("endDate"))
    return IndexedProject(
        project=project,
        facet_values=tuple(
            frozenset(facet.catalog_values(catalog, project) if facet.catalog_values else facet.values_of(project))
            for facet in FACETS
        ),
        sort_name=normalise(project.name),
        start=start if isinstance(start, str) and not is_placeholder(start) else "",
        years=(first, last or OPEN_END) if first else None,  # an open end runs on
    )


@dataclass(frozen=True)
class SearchIndex:
    entries: tuple[IndexedProject, ...]
    # Sorted orders, computed once: by name and by start date.
    by_name: tuple[int, ...] = field(repr=False)
    by_start: tuple[int, ...] = field(repr=False)

    @classmethod
    def build(cls, catalog: Catalog) -> SearchIndex:
        entries = tuple(_index_project(catalog, project) for project in catalog.projects)
        positions = range(len(entries))
        by_name = tuple(sorted(positions, key=lambda i: (entries[i].sort_name, entries[i].project.key)))
        rank_by_name = {position: rank for rank, position in enumerate(by_name)}
        dated = sorted((i for i in positions if entries[i].start), key=lambda i: (entries[i].start, rank_by_name[i]))
        undated = [i for i in by_name if not entries[i].start]
        return cls(entries, by_name, tuple(dated) + tuple(undated))


class FacetedQuery:
    """The URL state of a faceted listing (text, facet selections, sort, page) as parameters and links.

    Mixed into frozen dataclasses that have these four fields; a subclass adds
    its own parameters through :meth:`_state` and :meth:`_more_params`.
    """

    text: str
    filters: tuple[tuple[str, tuple[str, ...]], ...]  # (facet key, selected values) in facet order
    sort: str  # "" is the default sort
    page: int

    def selected(self, key: str) -> tuple[str, ...]:
        return dict(self.filters).get(key, ())

    def params(self, **changes: object) -> list[tuple[str, str]]:
        """The state as URL parameters, with some parts changed; defaults and page 1 left out."""
        state = {**self._state(), **changes}
        pairs = [("q", str(state["q"]))] if state["q"] else []
        for key, values in state["filters"]:
            pairs.extend((key, value) for value in values)
        pairs.extend(self._more_params(state))
        if state["sort"]:
            pairs.append(("sort", str(state["sort"])))
        if int(state["page"]) > 1:
            pairs.append(("page", str(state["page"])))
        return pairs

    def url(self, path: str, **changes: object) -> str:
        pairs = self.params(**changes)
        return f"{path}?{urlencode(pairs)}" if pairs else path

    def without_filter(self, key: str, value: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
        kept = ((k, tuple(v for v in values if not (k == key and v == value))) for k, values in self.filters)
        return tuple((k, values) for k, values in kept if values)

    def _state(self) -> dict[str, Any]:
        return {"q": self.text, "filters": self.filters, "sort": self.sort, "page": self.page}

    def _more_params(self, state: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
        return ()


@dataclass(frozen=True)
class ListingQuery(FacetedQuery):
    """Everything the listing's URL can say, validated and in canonical form."""

    text: str = ""
    filters: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (facet key, selected values) in FACETS order
    sort: str = ""  # "" means the default: relevance with a query, else name
    page: int = 1
    years: tuple[int | None, int | None] = (None, None)  # `from` and `to`: projects running in those years
    # Every parameter from_params reads; any other is ignored.
    PARAMETERS: ClassVar[tuple[str, ...]] = ("q", "sort", "page", *FACET_KEYS, "from", "to")

    @classmethod
    def from_params(cls, params: Mapping[str, Sequence[str]]) -> ListingQuery:
        """Parse query parameters (``{name: [values]}``); raises :class:`BadQuery`."""
        text = " ".join(value.strip() for value in params.get("q", ()) if value.strip())
        if len(text) > MAX_QUERY_LENGTH:
            raise BadQuery("the search text is longer than {limit} characters", limit=MAX_QUERY_LENGTH)
        sort_values = [value for value in params.get("sort", ()) if value]
        if len(sort_values) > 1:
            raise BadQuery("give one sort order")
        sort = sort_values[0] if sort_values else ""
        if sort and sort not in SORTS:
            raise BadQuery("unknown sort order {sort}; use one of {sorts}", sort=repr(sort), sorts=", ".join(SORTS))
        page = parse_page(params.get("page", ()))
        filters = []
        count = 0
        for key in FACET_KEYS:
            selected = tuple(dict.fromkeys(value.strip() for value in params.get(key, ()) if value.strip()))
            count += len(selected)
            if selected:
                filters.append((key, tuple(sorted(selected))))
        if count > MAX_FILTER_VALUES:
            raise BadQuery("more than {limit} filter values", limit=MAX_FILTER_VALUES)
        years = (parse_year(params.get("from", ()), "from"), parse_year(params.get("to", ()), "to"))
        query = cls(text, tuple(filters), sort, page, years)
        return replace(query, sort="") if sort == query.default_sort else query

    @property
    def default_sort(self) -> str:
        """Best match for a search, else name: the order an empty ``sort`` means."""
        return "relevance" if self.text else "name"

    @property
    def effective_sort(self) -> str:
        return self.sort or self.default_sort

    def _state(self) -> dict[str, Any]:
        return {**super()._state(), "years": self.years}

    def _more_params(self, state: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
        return ((name, str(year)) for name, year in zip(("from", "to"), state["years"], strict=True) if year)


@dataclass(frozen=True)
class TextSortPage:
    """Search text, sort and page: the URL state of the simpler listings (records, browse pages).

    Subclasses name their sorts; the default (the first, unless :attr:`default_sort` says otherwise) is left out
    of URLs.
    """

    text: str = ""
    sort: str = ""  # "" is the default sort
    page: int = 1
    SORTS: ClassVar[tuple[str, ...]] = ()
    PARAMETERS: ClassVar[tuple[str, ...]] = ("q", "sort", "page")  # every one from_params reads

    @classmethod
    def from_params(cls, params: Mapping[str, Sequence[str]]) -> Self:
        """Parse ``{name: [values]}``; raises :class:`BadQuery`."""
        text = " ".join(value.strip() for value in params.get("q", ()) if value.strip())
        if len(text) > MAX_QUERY_LENGTH:
            raise BadQuery("the search text is longer than {limit} characters", limit=MAX_QUERY_LENGTH)
        sorts = [value for value in params.get("sort", ()) if value]
        if len(sorts) > 1:
            raise BadQuery("give one sort order")
        sort = sorts[0] if sorts else ""
        if sort and sort not in cls.SORTS:
            raise BadQuery("unknown sort order {sort}; use one of {sorts}", sort=repr(sort), sorts=", ".join(cls.SORTS))
        query = cls(text, sort, parse_page(params.get("page", ())))
        return replace(query, sort="") if sort == query.default_sort else query

    @property
    def default_sort(self) -> str:
        return self.SORTS[0]

    @property
    def effective_sort(self) -> str:
        return self.sort or self.default_sort

    def params(self, **changes: object) -> list[tuple[str, str]]:
        """The state as URL parameters, with some parts changed; defaults left out."""
        state = {"q": self.text, "sort": self.sort, "page": self.page, **changes}
        pairs = [(name, str(state[name])) for name in ("q", "sort") if state[name]]
        if int(state["page"]) > 1:  # type: ignore[call-overload]
            pairs.append(("page", str(state["page"])))
        return pairs

    def url(self, path: str, **changes: object) -> str:
        pairs = self.params(**changes)
        return f"{path}?{urlencode(pairs)}" if pairs else path


@dataclass(frozen=True, slots=True)
class FacetValue:
    value: str
    label: str
    count: int
    selected: bool


@dataclass(frozen=True, slots=True)
class FacetResult:
    key: str
    label: str
    values: tuple[FacetValue, ...]

    @property
    def selected_count(self) -> int:
        return sum(1 for value in self.values if value.selected)


@dataclass(frozen=True)
class ListingResult(PagePositions):
    page_size: ClassVar[int] = PAGE_SIZE
    query: ListingQuery
    total: int
    page: int
    page_count: int
    items: tuple[IndexedProject, ...]
    facets: tuple[FacetResult, ...]


def _facet_counts(
    entries: Sequence[IndexedProject], selections: list[frozenset[str]], facet_index: int
) -> Counter[str]:
    """Counts of one facet's values among the entries matching every *other* facet."""
    counts: Counter[str] = Counter()
    for entry in entries:
        if all(
            not selection or entry.facet_values[i] & selection
            for i, selection in enumerate(selections)
            if i != facet_index
        ):
            counts.update(entry.facet_values[facet_index])
    return counts


def _facet_values(facet: Facet, counts: Counter[str], selected: tuple[str, ...]) -> tuple[FacetValue, ...]:
    values = set(counts) | set(selected)
    if facet.fixed_order:
        order = {value: position for position, value in enumerate(facet.fixed_order)}
        ordered = sorted(values, key=lambda v: (order.get(v, len(order)), normalise(facet.value_label(v)), v))
    else:
        ordered = sorted(values, key=lambda v: (-counts[v], normalise(facet.value_label(v)), v))
    return tuple(FacetValue(v, facet.value_label(v), counts[v], v in selected) for v in ordered)


def _in_years(entry: IndexedProject, low: int | None, high: int | None) -> bool:
    """Whether the project ran in some year of [low, high]; with a range, an undated project does not."""
    if low is None and high is None:
        return True
    if entry.years is None:
        return False
    return (low is None or entry.years[1] >= low) and (high is None or entry.years[0] <= high)


def _narrowed(
    entries: Sequence[IndexedProject], positions: Iterable[int], selections: Sequence[frozenset[str]]
) -> set[int]:
    """The positions whose entry has a selected value of every facet with a selection."""
    return {
        position
        for position in positions
        if all(not selection or entries[position].facet_values[i] & selection for i, selection in enumerate(selections))
    }


def rank(index: SearchIndex, positions: set[int], sort: str, scores: Mapping[int, float] | None) -> list[int]:
    """The matched ``positions`` in the order of ``sort``: relevance, name (either way), or by start date.

    Relevance is the engine's score (best first, then by name); without a search it is the name order.
    By start, undated projects come last in both directions.
    """
    entries = index.entries
    if sort == "relevance" and scores is not None:
        return sorted(positions, key=lambda p: (-scores.get(p, 0.0), entries[p].sort_name, entries[p].project.key))
    if sort == "relevance":
        sort = "name"
    if sort in {"name", "name-desc"}:
        by_name = [p for p in index.by_name if p in positions]
        return by_name[::-1] if sort == "name-desc" else by_name
    dated = [p for p in index.by_start if p in positions and entries[p].start]
    undated = [p for p in index.by_start if p in positions and not entries[p].start]
    return (dated[::-1] if sort == "newest" else dated) + undated


def _matched(index: SearchIndex, query: ListingQuery, scores: Mapping[int, float] | None) -> list[int]:
    """The positions of the projects the search (``scores``, the engine's: None for no search text) and the years
    keep (the facets aside)."""
    low, high = query.years
    return [
        position
        for position, entry in enumerate(index.entries)
        if (scores is None or position in scores) and _in_years(entry, low, high)
    ]


def _selections(query: ListingQuery) -> list[frozenset[str]]:
    return [frozenset(query.selected(facet.key)) for facet in FACETS]


def years_active(
    index: SearchIndex, query: ListingQuery, span: int, scores: Mapping[int, float] | None = None
) -> dict[int, int]:
    """For each year, how many of the projects ``query`` lists (its years aside) ran in it: what the listing
    gives for ``from`` and ``to`` that year; ``scores`` the engine's for the query's text (None: no search text).

    The years run to the latest year those projects' dates name (an open end runs to it), ``span`` at most.
    """
    entries = index.entries
    undated = replace(query, years=(None, None))
    matched = _matched(index, undated, scores)
    dated = [entries[p] for p in _narrowed(entries, matched, _selections(undated)) if entries[p].years]
    named = [year for entry in dated if entry.years for year in entry.years if year != OPEN_END]
    if not named:
        return {}
    last = max(named)
    first = max(min(named), last - span + 1)
    counts = {year: sum(1 for entry in dated if _in_years(entry, year, year)) for year in range(first, last + 1)}
    return {year: count for year, count in counts.items() if count}


def ranked(index: SearchIndex, query: ListingQuery, engine: SearchEngine) -> list[IndexedProject]:
    """Every project a listing query finds (its text, facets and years), in its order, without facet counts."""
    scores = engine.project_scores(parse(query.text)) if query.text else None
    entries = index.entries
    found = _matched(index, query, scores)
    return [
        entries[p] for p in rank(index, _narrowed(entries, found, _selections(query)), query.effective_sort, scores)
    ]


def search(index: SearchIndex, query: ListingQuery, engine: SearchEngine) -> ListingResult:
    """Run a listing query; raises :class:`PageOutOfRange` past the last page."""
    scores = engine.project_scores(parse(query.text)) if query.text else None
    entries = index.entries
    matched_positions = _matched(index, query, scores)
    matched = [entries[position] for position in matched_positions]
    selections = _selections(query)
    facets = tuple(
        FacetResult(
            facet.key,
            facet.label,
            _facet_values(facet, _facet_counts(matched, selections, i), query.selected(facet.key)),
        )
        for i, facet in enumerate(FACETS)
    )
    ranked = rank(index, _narrowed(entries, matched_positions, selections), query.effective_sort, scores)

    total = len(ranked)
    pages = page_count(total, PAGE_SIZE)
    if query.page > pages:
        raise PageOutOfRange(query.page, pages)
    start, stop = page_bounds(query.page, PAGE_SIZE)
    items = tuple(entries[p] for p in ranked[start:stop])
    return ListingResult(query, total, query.page, pages, items, facets)


def page_numbers(page: int, page_count: int, around: int = 2) -> list[int | None]:
    """Numbered pagination: first, last and a window around the current page; None is a gap.

    A gap stands for two pages or more: a single missing page is shown as its number.
    """
    shown = {1, page_count, *range(max(1, page - around), min(page_count, page + around) + 1)}
    numbers: list[int | None] = []
    previous = 0
    for number in sorted(shown):
        if number - previous == 2:
            numbers.append(previous + 1)
        elif number - previous > 2:
            numbers.append(None)
        numbers.append(number)
        previous = number
    return numbers


def pagination(page: int, page_count: int, url_for: Callable[[int], str]) -> dict[str, object]:
    """Template context for ``_pagination.html``: numbered links, previous and next."""
    return {
        "pages": page_numbers(page, page_count),
        "page_links": [(number, url_for(number) if number else None) for number in page_numbers(page, page_count)],
        "current_page": page,
        "previous_url": url_for(page - 1) if page > 1 else None,
        "next_url": url_for(page + 1) if page < page_count else None,
    }
