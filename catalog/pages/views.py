"""Catalogue pages: thin views over :mod:`catalog.runtime` and the view models.

Every page is a pure function of the catalogue, the request's URL and a few
settings, so its rendered bytes are kept per catalogue (see
:mod:`catalog.domain.memo`): a warm request is a lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from django.conf import settings
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import get_template, render_to_string
from django.urls import get_resolver
from django.views.decorators.http import require_safe

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
from catalog.web import wire
from catalog.web.origin import base_url, origin_key

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


def get_project_or_404(catalog: Catalog, shortcode: str) -> Project:
    project = catalog.get_project(shortcode)
    if project is None:
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
        raise Http404(f"No record {suffix!r} in the project {project.shortcode}.")
    return table, index


# Rendering ------------------------------------------------------------------


def _values() -> Values:
    return Values(settings.SVC.show_placeholder_values)


def _cached_page(
    request: HttpRequest, memo: CatalogMemo, key: tuple[Hashable, ...], render: Callable[[], str]
) -> HttpResponse:
    # The configuration is part of the key: tests swap it (placeholders, analytics); production never does.
    full_key = (*key, *origin_key(request.META), memo.settings_key(settings.SVC))
    body = memo.page(full_key, lambda: render().encode())
    response = HttpResponse(body, content_type=HTML)
    wire.mark_stable(response, wire.Stable(memo.catalog.data_version, full_key))
    return response


def _url_key(request: HttpRequest, memo: CatalogMemo) -> tuple[Hashable, ...]:
    return ("url", *wire.request_key(request.META), memo.settings_key(settings.SVC))


def stable(request: HttpRequest, catalog: Catalog, response: HttpResponse) -> HttpResponse:
    """Mark ``response`` as a pure function of the data version, the URL and the configuration."""
    wire.mark_stable(response, wire.Stable(catalog.data_version, _url_key(request, memo_for(catalog))))
    return response


def kept_response(
    request: HttpRequest, catalog: Catalog, render: Callable[[], bytes], content_type: str
) -> HttpResponse:
    """A response that is a pure function of its URL, rendered once per data version and kept like a page."""
    memo = memo_for(catalog)
    key = _url_key(request, memo)
    response = HttpResponse(memo.page(key, render), content_type=content_type)
    wire.mark_stable(response, wire.Stable(catalog.data_version, key))
    return response


def _render(request: HttpRequest, template: str, context: dict[str, Any]) -> str:
    if "page" in context:
        context["meta"] = context["page"].meta
    return render_to_string(template, {"base_url": base_url(request), **context}, request)


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

    return _cached_page(request, memo, ("projects", query), render)


@require_safe
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
        document = jsonld.project_dataset(catalog, project_, base_url(request))
        return _render(request, "project.html", {"page": page, "active_tab": tab, "jsonld": jsonld.to_script(document)})

    return _cached_page(request, memo, ("project", project_.key, tab), render)


@require_safe
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
    paginator = Paginator(range(count), presenters.RECORDS_PAGE_SIZE)
    page_count = paginator.num_pages
    if page_number > page_count:
        raise Http404(f"The records of {project_.shortcode} have {page_count} page(s), not {page_number}.")

    def render() -> str:
        page = paginator.page(page_number)
        rows = (
            presenters.record_rows(table, max(page.start_index() - 1, 0), page.end_index(), _values()) if table else ()
        )
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
                "first_position": page.start_index(),
                "last_position": page.end_index(),
                "path": links.records_path(project_.shortcode),
                "meta": presenters.PageMeta(
                    title=f"Records of {name}" + (f" (page {page_number})" if page_number > 1 else ""),
                    description=f"The {count} records of the research project {name}.",
                    path=links.records_path(project_.shortcode, page_number),
                    json_path=f"{links.project_json_path(project_.shortcode)}/records",
                ),
            },
        )

    return _cached_page(request, memo, ("records", project_.key, page_number), render)


@require_safe
def record(request: HttpRequest, shortcode: str, record_suffix: str) -> HttpResponse:
    catalog = get_catalog()
    memo = memo_for(catalog)
    project_ = get_project_or_404(catalog, shortcode)
    table, index = get_record_or_404(catalog, project_, record_suffix)

    def render() -> str:
        page = presenters.build_record_page(project_, table, index, _values())
        document = jsonld.record_work(project_, table, index, base_url(request))
        return _render(request, "record.html", {"page": page, "jsonld": jsonld.to_script(document)})

    return _cached_page(request, memo, ("record", project_.key, index), render)


@require_safe
def project_citation(request: HttpRequest, shortcode: str, extension: str) -> HttpResponse:
    catalog = get_catalog()
    project_ = get_project_or_404(catalog, shortcode)
    build, content_type = citation.FORMATS[extension]
    response = HttpResponse(build(citation.citation_data(catalog, project_)), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{project_.shortcode}.{extension}"'
    return stable(request, catalog, response)


@require_safe
def person(request: HttpRequest, person_id: str) -> HttpResponse:
    catalog = get_catalog()
    person_ = get_entity_or_404(catalog.persons, person_id, "person")

    def render() -> str:
        page = presenters.build_person_page(catalog, person_, _values())
        document = jsonld.person(catalog, person_, base_url(request))
        return _render(request, "person.html", {"page": page, "jsonld": jsonld.to_script(document)})

    return _cached_page(request, memo_for(catalog), ("person", person_.id), render)


@require_safe
def organization(request: HttpRequest, organization_id: str) -> HttpResponse:
    catalog = get_catalog()
    organization_ = get_entity_or_404(catalog.organizations, organization_id, "organization")

    def render() -> str:
        page = presenters.build_organization_page(catalog, organization_, _values())
        document = jsonld.organization(catalog, organization_, base_url(request))
        return _render(request, "organization.html", {"page": page, "jsonld": jsonld.to_script(document)})

    return _cached_page(request, memo_for(catalog), ("organization", organization_.id), render)


@require_safe
def cluster(request: HttpRequest, cluster_id: str) -> HttpResponse:
    catalog = get_catalog()
    cluster_ = get_entity_or_404(catalog.clusters, cluster_id, "cluster")

    def render() -> str:
        page = presenters.build_cluster_page(catalog, cluster_, _values())
        members = presenters.group_projects(catalog, cluster_)
        document = jsonld.group(cluster_, members, page.meta.path, base_url(request))
        return _render(request, "group.html", {"page": page, "jsonld": jsonld.to_script(document)})

    return _cached_page(request, memo_for(catalog), ("cluster", cluster_.id), render)


@require_safe
def collection(request: HttpRequest, collection_id: str) -> HttpResponse:
    catalog = get_catalog()
    collection_ = get_entity_or_404(catalog.collections, collection_id, "collection")

    def render() -> str:
        page = presenters.build_collection_page(catalog, collection_, _values())
        members = presenters.group_projects(catalog, collection_)
        document = jsonld.group(collection_, members, page.meta.path, base_url(request))
        return _render(request, "group.html", {"page": page, "jsonld": jsonld.to_script(document)})

    return _cached_page(request, memo_for(catalog), ("collection", collection_.id), render)


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
