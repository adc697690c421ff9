"""The JSON API's payloads, framework-free.

Entities are answered in their stored shape (camelCase keys, unknown fields
kept), serialised once per catalogue: the first request for a kind builds the
JSON bytes of the whole list and of every member, later requests only look
them up. Record pages are spliced from the records' stored JSON bytes, so a
page costs the same at any depth and no record is parsed.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from catalog.domain import all_records, engine, search
from catalog.domain.all_records import AllRecordsQuery, AllRecordsResult
from catalog.domain.ledger import iso_time, withdrawn_project, withdrawn_record
from catalog.domain.memo import memo_for, per_catalog
from catalog.domain.model import Catalog, Project, RecordTable, to_json_bytes
from catalog.domain.paging import page_bounds, page_count, whole_number
from catalog.domain.search import BadQuery, PageOutOfRange

# Shortcodes are four hexadecimal digits in the repository, some with a letter
# suffix (the corpus's 0801a to 0801e); anything outside this is malformed (400),
# anything inside it that no project has is unknown (404).
SHORTCODE_RE = re.compile(r"[0-9A-Za-z]{1,16}")
SHORTCODE_PATTERN = f"^{SHORTCODE_RE.pattern}$"

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
PAGE_PARAMETERS = ("page", "page_size")

ENTITY_KINDS = ("projects", "persons", "organizations", "clusters", "collections")
SINGULAR = MappingProxyType(
    {
        "projects": "project",
        "persons": "person",
        "organizations": "organization",
        "clusters": "cluster",
        "collections": "collection",
    }
)

QueryParams = Mapping[str, Sequence[str]]


class ApiError(Exception):
    """A request the API answers with an error status and a problem document."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


@dataclass(frozen=True, slots=True)
class _KindPayload:
    listing: bytes
    members: Mapping[str, bytes]


class CatalogPayloads:
    """The serialised entities of one catalogue, built per kind on first use."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._kinds: dict[str, _KindPayload] = {}
        self._lock = threading.Lock()

    def listing(self, kind: str) -> bytes:
        """The JSON array of every entity of ``kind``, in the catalogue's order."""
        return self._payload(kind).listing

    def member(self, kind: str, key: str) -> bytes | None:
        """One entity's JSON by its key (lowercase shortcode for projects, id otherwise)."""
        return self._payload(kind).members.get(key)

    def _payload(self, kind: str) -> _KindPayload:
        payload = self._kinds.get(kind)
        if payload is None:
            with self._lock:
                payload = self._kinds.get(kind)
                if payload is None:
                    payload = self._kinds[kind] = self._build(kind)
        return payload

    def _build(self, kind: str) -> _KindPayload:
        if kind == "projects":
            keyed: Iterable[tuple[str, object]] = ((project.key, project.raw) for project in self.catalog.projects)
        else:
            keyed = ((key, entity.raw) for key, entity in getattr(self.catalog, kind).items())
        members = {key: to_json_bytes(raw) for key, raw in keyed}
        return _KindPayload(listing=b"[" + b",".join(members.values()) + b"]", members=MappingProxyType(members))


@per_catalog
def payloads_for(catalog: Catalog) -> CatalogPayloads:
    """The payload cache of ``catalog``; a reloaded catalogue gets a fresh one."""
    return CatalogPayloads(catalog)


def find_project(catalog: Catalog, shortcode: str) -> Project:
    """The project of a shortcode (any case), or 400 if malformed, 404 if unknown."""
    project = catalog.get_project(shortcode)
    if project is not None:
        return project
    if not SHORTCODE_RE.fullmatch(shortcode):
        raise ApiError(400, f"malformed shortcode {shortcode!r}: expected 1 to 16 letters or digits, e.g. '0803'")
    tombstone = withdrawn_project(catalog, shortcode)
    if tombstone is not None:
        raise ApiError(410, f"the project {shortcode!r} was withdrawn at {iso_time(tombstone.deleted)}")
    raise ApiError(404, f"no project with shortcode {shortcode!r}")


def find_member(payloads: CatalogPayloads, kind: str, key: str) -> bytes:
    """One entity's JSON by id, or 404."""
    document = payloads.member(kind, key)
    if document is None:
        raise ApiError(404, f"no {SINGULAR[kind]} with id {key!r}")
    return document


def check_parameters(params: QueryParams, allowed: Sequence[str]) -> None:
    """Refuse unknown or repeated query parameters: a typo must not pass unnoticed."""
    for name, values in params.items():
        if name not in allowed:
            accepted = ", ".join(allowed) if allowed else "none"
            raise ApiError(400, f"unknown query parameter {name!r}; this endpoint accepts: {accepted}")
        if len(values) > 1:
            raise ApiError(400, f"query parameter {name!r} is given {len(values)} times")


def _positive_integer(params: QueryParams, name: str, default: int, maximum: int | None = None) -> int:
    values = params.get(name)
    if not values:
        return default
    text = values[0]
    number = whole_number(text)
    if number is None or number < 1:
        raise ApiError(400, f"{name} must be a positive integer, not {text[:40]!r}")
    if maximum is not None and number > maximum:
        raise ApiError(400, f"{name} must be at most {maximum}, not {text[:40]}")
    return number


@dataclass(frozen=True, slots=True)
class PageRequest:
    number: int
    size: int
    total: int

    @property
    def last(self) -> int:
        """The last page's number; an empty list has one, empty, page."""
        return page_count(self.total, self.size)

    @property
    def start(self) -> int:
        return page_bounds(self.number, self.size)[0]

    @property
    def next(self) -> int | None:
        return self.number + 1 if self.number < self.last else None

    @property
    def previous(self) -> int | None:
        return self.number - 1 if self.number > 1 else None


def page_request(params: QueryParams, total: int) -> PageRequest:
    """Validate ``page``/``page_size`` against a list of ``total`` items (400 / 404)."""
    check_parameters(params, PAGE_PARAMETERS)
    size = _positive_integer(params, "page_size", DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
    number = _positive_integer(params, "page", 1)
    page = PageRequest(number=number, size=size, total=total)
    if number > page.last:
        raise ApiError(404, f"page {number} is past the last page ({page.last}) of {total} items at page_size {size}")
    return page


def records_page(table: RecordTable | None, page: PageRequest, page_url: Callable[[int], str]) -> bytes:
    """The JSON envelope of one page of a project's records."""

    def link(number: int | None) -> bytes:
        return b"null" if number is None else to_json_bytes(page_url(number))

    stop = min(page.start + page.size, page.total)
    items = b",".join(table.document(i) for i in range(page.start, stop)) if table is not None else b""
    return b"".join(
        (
            b'{"count":%d,"page":%d,"pageSize":%d,"pageCount":%d,' % (page.total, page.number, page.size, page.last),
            b'"next":' + link(page.next) + b',"previous":' + link(page.previous) + b',"items":[',
            items,
            b"]}",
        )
    )


def link_header(page: PageRequest, page_url: Callable[[int], str]) -> str:
    """RFC 8288 ``Link`` header value with first/prev/next/last relations."""
    relations = [("first", 1), ("prev", page.previous), ("next", page.next), ("last", page.last)]
    return ", ".join(f'<{page_url(number)}>; rel="{rel}"' for rel, number in relations if number is not None)


def find_record(catalog: Catalog, project: Project, record: str) -> bytes:
    """One record's stored JSON by the last segment of its pid, or 410 if withdrawn, 404 if unknown."""
    table = catalog.records_of(project)
    if table is not None:
        index = table.index_of_suffix(record)
        if index is not None:
            return table.document(index)
    tombstone = withdrawn_record(catalog, project.shortcode, record)
    if tombstone is not None:
        withdrawn = iso_time(tombstone.deleted)
        raise ApiError(410, f"the record {record!r} of project {project.shortcode!r} was withdrawn at {withdrawn}")
    raise ApiError(404, f"project {project.shortcode!r} has no record {record!r}")


SEARCH_PARAMETERS = ("q", "sort", "page", *all_records.FACET_KEYS, "from", "to")
PROJECT_SEARCH_PARAMETERS = ("q", "sort", *search.FACET_KEYS, "from", "to")


def _one_of(params: QueryParams, name: str, allowed: Iterable[str]) -> None:
    """The OpenAPI's enum: a given value (an empty one included) must be one of ``allowed``; else 400."""
    allowed = tuple(allowed)
    if name in params and params[name][0] not in allowed:
        raise ApiError(400, f"{name} must be one of {', '.join(allowed)}, not {params[name][0][:40]!r}")


def project_search(catalog: Catalog, params: QueryParams) -> bytes:
    """The projects the listing's search finds (text, facets, years), as a JSON array in its order; 400."""
    for name, values in params.items():
        if name not in PROJECT_SEARCH_PARAMETERS:
            accepted = ", ".join(PROJECT_SEARCH_PARAMETERS)
            raise ApiError(400, f"unknown query parameter {name!r}; this endpoint accepts: {accepted}")
        if len(values) > 1 and name not in search.FACET_KEYS:
            raise ApiError(400, f"query parameter {name!r} is given {len(values)} times")
        if name in ("from", "to") and not values[0].strip():
            raise ApiError(400, f"query parameter {name!r} is empty; give a year")
    _one_of(params, "sort", search.SORTS)
    try:
        query = search.ListingQuery.from_params(params)
    except BadQuery as error:
        raise ApiError(400, str(error)) from None
    index = memo_for(catalog).get("search-index", lambda: search.SearchIndex.build(catalog))
    found = search.ranked(index, query, engine.search_engine(catalog))
    members = payloads_for(catalog)
    return b"[" + b",".join(members.member("projects", entry.project.key) or b"null" for entry in found) + b"]"


def record_search_page(
    catalog: Catalog, params: QueryParams, page_url: Callable[[AllRecordsQuery, int], str]
) -> tuple[bytes, AllRecordsResult, AllRecordsQuery]:
    """One page of the search across all records (the rules of `/records`), with its facets; 400 / 404."""
    for name, values in params.items():
        if name not in SEARCH_PARAMETERS:
            raise ApiError(
                400, f"unknown query parameter {name!r}; this endpoint accepts: {', '.join(SEARCH_PARAMETERS)}"
            )
        if len(values) > 1 and name not in all_records.FACET_KEYS:
            raise ApiError(400, f"query parameter {name!r} is given {len(values)} times")
        if name in ("from", "to") and not values[0].strip():
            raise ApiError(400, f"query parameter {name!r} is empty; give a year")
    # The OpenAPI's types, stricter than the page's form (whose empty fields mean "the default").
    _positive_integer(params, "page", 1)
    _one_of(params, "sort", AllRecordsQuery.SORTS)
    try:
        query = AllRecordsQuery.from_params(params)
        result = all_records.search_catalog(catalog, query)
    except BadQuery as error:
        raise ApiError(400, str(error)) from None
    except PageOutOfRange as error:
        raise ApiError(404, f"page {error.page} is past the last page ({error.page_count}) of this search") from None

    def link(number: int | None) -> bytes:
        return b"null" if number is None else to_json_bytes(page_url(query, number))

    facets = {
        facet.key: [
            {"value": value.value, "label": value.label, "count": value.count, "selected": value.selected}
            for value in facet.values
        ]
        for facet in result.facets
    }
    items = b",".join(
        b'{"project":%s,"record":%s}'
        % (to_json_bytes(catalog.records[key].shortcode), catalog.records[key].document(i))
        for key, i in result.hits
    )
    body = b"".join(
        (
            b'{"count":%d,"page":%d,"pageSize":%d,"pageCount":%d,'
            % (result.total, result.page, result.page_size, result.page_count),
            b'"next":' + link(result.page + 1 if result.page < result.page_count else None),
            b',"previous":' + link(result.page - 1 if result.page > 1 else None),
            b',"facets":' + to_json_bytes(facets) + b',"items":[',
            items,
            b"]}",
        )
    )
    return body, result, query
