"""Catalogue pages: thin views over :mod:`catalog.runtime` and the view models.

Every page is a pure function of the catalogue, the request's URL and a few
settings, so its rendered bytes are kept per catalogue (see
:mod:`catalog.domain.memo`): a warm request is a lookup.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import get_template, render_to_string
from django.urls import get_resolver
from django.views.decorators.http import require_safe

from catalog.domain.ledger import ProjectMeta, Tombstone, iso_time, withdrawn_project, withdrawn_record
from catalog.domain.memo import CatalogMemo, memo_for
from catalog.domain.model import Catalog, Project, RecordTable
from catalog.domain.search import (
    SORTS,
    BadQuery,
    FacetResult,
    ListingQuery,
    PageOutOfRange,
    SearchIndex,
    pagination,
    parse_page,
    search,
)
from catalog.domain.values import Values
from catalog.formats import citation, jsonld, links
from catalog.pages import presenters
from catalog.runtime import get_catalog
from catalog.web.conditional import set_last_modified

HTML = "text/html; charset=utf-8"
DEFAULT = ListingQuery()


def home(request: HttpRequest) -> HttpResponse:
    """`/` is the project listing (308 keeps the method)."""
    return redirect("/projects", permanent=True, preserve_request=True)


PAGE_TEMPLATES = (
    "base.html",
    "projects.html",
    "project.html",
    "records.html",
    "record.html",
    "person.html",
    "organization.html",
    "group.html",
    "about.html",
    "404.html",
    "400.html",
    "_pagination.html",
    "_record_table.html",
    "_project_roles.html",
)


def warm_up() -> None:
    """Do at start-up what every worker would otherwise do on its first requests.

    `svc serve` calls this in the master before forking, so the workers share
    the imported views, the compiled templates and the listing's search index.
    """
    get_resolver().url_patterns  # noqa: B018 (imports every URLconf and view)
    for name in PAGE_TEMPLATES:
        get_template(name)
    catalog = get_catalog()
    memo_for(catalog).get("search-index", lambda: SearchIndex.build(catalog))


# Lookups --------------------------------------------------------------------


class Withdrawn(Exception):
    """The item was published once and has been withdrawn (the change ledger has its tombstone): 410."""

    def __init__(self, what: str, tombstone: Tombstone) -> None:
        super().__init__(what)
        self.what = what
        self.tombstone = tombstone


def answers_gone(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Turn :class:`Withdrawn` into the short 410 page that says when, and links to the catalogue."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except Withdrawn as gone:
            stamp = gone.tombstone.deleted
            context = {
                "what": gone.what,
                "withdrawn": iso_time(stamp),
                "withdrawn_text": datetime.fromtimestamp(stamp, UTC).strftime("%d %B %Y, %H:%M UTC"),
            }
            return HttpResponse(render_to_string("410.html", context, request), content_type=HTML, status=410)

    return wrapper


def get_project_or_404(catalog: Catalog, shortcode: str) -> Project:
    project = catalog.get_project(shortcode)
    if project is None:
        tombstone = withdrawn_project(catalog, shortcode)
        if tombstone is not None:
            name = ProjectMeta.parse(tombstone.project_meta).name
            raise Withdrawn(f"The project {name or tombstone.key} ({tombstone.key})", tombstone)
        raise Http404(f"No project with the shortcode {shortcode!r}.")
    return project


def get_entity_or_404(entities: Any, entity_id: str, kind: str) -> Any:
    entity = entities.get(entity_id)
    if entity is None:
        raise Http404(f"No {kind} with the id {entity_id!r}.")
    return entity


def get_record_or_404(catalog: Catalog, project: Project, suffix: str) -> tuple[RecordTable, int]:
    table = catalog.records_of(project)
    index = table.index_of_suffix(suffix) if table is not None else None
    if table is None or index is None:
        tombstone = withdrawn_record(catalog, project.shortcode, suffix)
        if tombstone is not None:
            raise Withdrawn(f"The record {suffix} of the project {project.shortcode}", tombstone)
        raise Http404(f"No record {suffix!r} in the project {project.shortcode}.")
    return table, index


# Rendering ------------------------------------------------------------------


def _values() -> Values:
    return Values(settings.SVC.show_placeholder_values)


def _base_url(request: HttpRequest) -> str:
    return f"{request.scheme}://{request.get_host()}"


def _origin_key(meta: dict[str, Any]) -> tuple[Any, ...]:
    """The request values the page's absolute URLs (canonical, JSON-LD) are built from.

    Raw header values rather than ``request.get_host()``: CommonMiddleware has
    already validated the host, and equal raw values give equal origins.
    """
    return (
        meta.get("wsgi.url_scheme"),
        meta.get("HTTP_HOST"),
        meta.get("SERVER_NAME"),
        meta.get("SERVER_PORT"),
        meta.get("HTTP_X_FORWARDED_HOST"),
        meta.get("HTTP_X_FORWARDED_PROTO"),
    )


def _cached_page(
    request: HttpRequest, memo: CatalogMemo, key: tuple[Hashable, ...], render: Callable[[], str]
) -> HttpResponse:
    # The configuration is part of the key: tests swap it (placeholders, analytics); production never does.
    full_key = (*key, *_origin_key(request.META), memo.settings_key(settings.SVC))
    body = memo.page(full_key, lambda: render().encode())
    return HttpResponse(body, content_type=HTML)


def _changed_with_catalog(response: HttpResponse, catalog: Catalog) -> HttpResponse:
    """Last-Modified of a page that shows many items: the latest change in the ledger."""
    if catalog.ledger:
        set_last_modified(response, catalog.ledger.latest)
    return response


def _render(request: HttpRequest, template: str, context: dict[str, Any]) -> str:
    if "page" in context:
        context["meta"] = context["page"].meta
    return render_to_string(template, {"base_url": _base_url(request), **context}, request)


def _view_model(memo: CatalogMemo, key: tuple[Hashable, ...], build: Callable[[], Any]) -> Any:
    return memo.get((*key, settings.SVC.show_placeholder_values), build)


def value_label(facet: FacetResult, value: str) -> str:
    return next((v.label for v in facet.values if v.value == value), value)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The 404 page; says why when the view said (an unknown shortcode, a page past the end)."""
    message = exception.args[0] if isinstance(exception, Http404) and exception.args else ""
    context = {"message": message if isinstance(message, str) else ""}
    return HttpResponse(render_to_string("404.html", context, request), content_type=HTML, status=404)


def bad_request(request: HttpRequest, message: str) -> HttpResponse:
    return HttpResponse(render_to_string("400.html", {"message": message}, request), content_type=HTML, status=400)


# Pages ----------------------------------------------------------------------


@require_safe
def projects(request: HttpRequest) -> HttpResponse:
    catalog = get_catalog()
    memo = memo_for(catalog)
    try:
        query = ListingQuery.from_params(dict(request.GET.lists())) if request.META.get("QUERY_STRING") else DEFAULT
    except BadQuery as error:
        return bad_request(request, str(error))

    def render() -> str:
        index = memo.get("search-index", lambda: SearchIndex.build(catalog))
        try:
            result = search(index, query)
        except PageOutOfRange as error:
            raise Http404(f"There is no {error} of this listing.") from None
        values = _values()
        cards = _view_model(
            memo, ("cards",), lambda: {p.key: presenters.project_card(p, values) for p in catalog.projects}
        )
        path = links.projects_path()
        labels = {facet.key: facet for facet in result.facets}
        active_filters = [
            (
                labels[key].label,
                value_label(labels[key], value),
                query.url(path, filters=query.without_filter(key, value), page=1),
            )
            for key, selected in query.filters
            for value in selected
        ]
        return _render(
            request,
            "projects.html",
            {
                "result": result,
                "query": query,
                "cards": [cards[entry.project.key] for entry in result.items],
                "sorts": list(SORTS.items()),
                "active_filters": active_filters,
                "clear_text_url": query.url(path, q="", page=1),
                "canonical": query.url(path),
                "path": path,
                "total_projects": len(catalog.projects),
                **pagination(result.page, result.page_count, lambda number: query.url(path, page=number)),
            },
        )

    return _changed_with_catalog(_cached_page(request, memo, ("projects", query), render), catalog)


@require_safe
@answers_gone
def project(request: HttpRequest, shortcode: str) -> HttpResponse:
    catalog = get_catalog()
    memo = memo_for(catalog)
    project_ = get_project_or_404(catalog, shortcode)
    tab_values = request.GET.getlist("tab") if request.META.get("QUERY_STRING") else ()
    tab = tab_values[-1] if tab_values else "overview"

    def render() -> str:  # only on a cache miss; an unknown tab is never cached
        values = _values()
        page = _view_model(
            memo, ("project", project_.key), lambda: presenters.build_project_page(catalog, project_, values)
        )
        if tab not in {tab_id for tab_id, _, _ in page.tabs}:
            raise Http404(f"The project {project_.shortcode} has no tab {tab!r}.")
        document = jsonld.project_dataset(catalog, project_, _base_url(request))
        return _render(request, "project.html", {"page": page, "active_tab": tab, "jsonld": jsonld.to_script(document)})

    response = _cached_page(request, memo, ("project", project_.key, tab), render)
    if catalog.ledger:
        set_last_modified(response, catalog.ledger.project_time(project_.key))
    return response


@require_safe
@answers_gone
def project_records(request: HttpRequest, shortcode: str) -> HttpResponse:
    catalog = get_catalog()
    memo = memo_for(catalog)
    project_ = get_project_or_404(catalog, shortcode)
    try:
        page_number = parse_page(request.GET.getlist("page"))
    except BadQuery as error:
        return bad_request(request, str(error))
    table = catalog.records_of(project_)
    count = len(table) if table else 0
    page_count = max(1, -(-count // presenters.RECORDS_PAGE_SIZE))
    if page_number > page_count:
        raise Http404(f"The records of {project_.shortcode} have {page_count} page(s), not {page_number}.")

    def render() -> str:
        start = (page_number - 1) * presenters.RECORDS_PAGE_SIZE
        rows = presenters.record_rows(table, start, start + presenters.RECORDS_PAGE_SIZE, _values()) if table else ()
        name = project_.name or project_.shortcode
        return _render(
            request,
            "records.html",
            {
                "project_name": name,
                "project_url": links.project_path(project_.shortcode),
                "rows": rows,
                "count": count,
                "page_count": page_count,
                **pagination(page_number, page_count, lambda number: links.records_path(project_.shortcode, number)),
                "first_position": start + 1 if count else 0,
                "last_position": min(start + presenters.RECORDS_PAGE_SIZE, count),
                "path": links.records_path(project_.shortcode),
                "meta": presenters.PageMeta(
                    title=f"Records of {name}" + (f" (page {page_number})" if page_number > 1 else ""),
                    description=f"The {count} records of the research project {name}.",
                    path=links.records_path(project_.shortcode, page_number),
                    json_path=f"{links.project_json_path(project_.shortcode)}/records",
                ),
            },
        )

    response = _cached_page(request, memo, ("records", project_.key, page_number), render)
    if catalog.ledger:
        set_last_modified(response, catalog.ledger.project_time(project_.key))
    return response


@require_safe
@answers_gone
def record(request: HttpRequest, shortcode: str, record_suffix: str) -> HttpResponse:
    catalog = get_catalog()
    memo = memo_for(catalog)
    project_ = get_project_or_404(catalog, shortcode)
    table, index = get_record_or_404(catalog, project_, record_suffix)

    def render() -> str:
        page = presenters.build_record_page(project_, table, index, _values())
        document = jsonld.record_work(project_, table, index, _base_url(request))
        return _render(request, "record.html", {"page": page, "jsonld": jsonld.to_script(document)})

    response = _cached_page(request, memo, ("record", project_.key, index), render)
    if catalog.ledger:
        set_last_modified(response, catalog.ledger.record_time(project_.key, index))
    return response


@require_safe
@answers_gone
def project_citation(request: HttpRequest, shortcode: str, extension: str) -> HttpResponse:
    catalog = get_catalog()
    project_ = get_project_or_404(catalog, shortcode)
    build, content_type = citation.FORMATS[extension]
    response = HttpResponse(build(citation.citation_data(catalog, project_)), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{project_.shortcode}.{extension}"'
    return response


@require_safe
def person(request: HttpRequest, person_id: str) -> HttpResponse:
    catalog = get_catalog()
    person_ = get_entity_or_404(catalog.persons, person_id, "person")

    def render() -> str:
        page = presenters.build_person_page(catalog, person_, _values())
        document = jsonld.person(catalog, person_, _base_url(request))
        return _render(request, "person.html", {"page": page, "jsonld": jsonld.to_script(document)})

    return _changed_with_catalog(_cached_page(request, memo_for(catalog), ("person", person_.id), render), catalog)


@require_safe
def organization(request: HttpRequest, organization_id: str) -> HttpResponse:
    catalog = get_catalog()
    organization_ = get_entity_or_404(catalog.organizations, organization_id, "organization")

    def render() -> str:
        page = presenters.build_organization_page(catalog, organization_, _values())
        document = jsonld.organization(catalog, organization_, _base_url(request))
        return _render(request, "organization.html", {"page": page, "jsonld": jsonld.to_script(document)})

    return _changed_with_catalog(
        _cached_page(request, memo_for(catalog), ("organization", organization_.id), render), catalog
    )


@require_safe
def cluster(request: HttpRequest, cluster_id: str) -> HttpResponse:
    catalog = get_catalog()
    cluster_ = get_entity_or_404(catalog.clusters, cluster_id, "cluster")

    def render() -> str:
        page = presenters.build_cluster_page(catalog, cluster_, _values())
        members = presenters.group_projects(catalog, cluster_)
        document = jsonld.group(cluster_, members, page.meta.path, _base_url(request))
        return _render(request, "group.html", {"page": page, "jsonld": jsonld.to_script(document)})

    return _changed_with_catalog(_cached_page(request, memo_for(catalog), ("cluster", cluster_.id), render), catalog)


@require_safe
def collection(request: HttpRequest, collection_id: str) -> HttpResponse:
    catalog = get_catalog()
    collection_ = get_entity_or_404(catalog.collections, collection_id, "collection")

    def render() -> str:
        page = presenters.build_collection_page(catalog, collection_, _values())
        members = presenters.group_projects(catalog, collection_)
        document = jsonld.group(collection_, members, page.meta.path, _base_url(request))
        return _render(request, "group.html", {"page": page, "jsonld": jsonld.to_script(document)})

    return _changed_with_catalog(
        _cached_page(request, memo_for(catalog), ("collection", collection_.id), render), catalog
    )


@require_safe
def about(request: HttpRequest) -> HttpResponse:
    catalog = get_catalog()

    def render() -> str:
        return _render(
            request,
            "about.html",
            {
                "counts": catalog.counts(),
                "oai_base_url": settings.SVC.oai_base_url,
                "meta": presenters.PageMeta(
                    title="About",
                    description="What this research-data catalogue holds and how to use its pages, API and OAI-PMH.",
                    path="/about",
                    json_path=None,
                ),
            },
        )

    return _cached_page(request, memo_for(catalog), ("about",), render)
