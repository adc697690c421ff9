"""Catalogue pages: thin views over :mod:`catalog.runtime` and the view models.

Every page is a pure function of the catalogue, the settings and the request
inputs its view declares (``@varies_on``), so its response is kept by the
response cache (:mod:`catalog.web.response_cache`): a warm request is a lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import get_template, render_to_string
from django.urls import get_resolver
from django.utils import formats, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop
from django.views.decorators.http import require_safe

from catalog.domain import all_records, engine
from catalog.domain.browse import BrowseQuery, browse, build_entries
from catalog.domain.ledger import ProjectMeta, Tombstone, iso_time, withdrawn_project, withdrawn_record
from catalog.domain.memo import CatalogMemo, memo_for
from catalog.domain.model import Catalog, Project, RecordTable
from catalog.domain.record_search import (
    ProjectRecordIndex,
    RecordQuery,
    RecordResult,
    search_records,
)
from catalog.domain.search import (
    LISTED_FACET_KEYS,
    SORTS,
    BadQuery,
    FacetResult,
    ListingQuery,
    PageOutOfRange,
    SearchIndex,
    pagination,
    search,
)
from catalog.domain.values import Values
from catalog.formats import citation, dcat, jsonld, links, result_exports
from catalog.pages import charts, dcat_views, export_views, languages, page_links, presenters, vocabulary
from catalog.pages.export_views import Described
from catalog.pages.templatetags import catalog_tags
from catalog.runtime import catalog_of, get_catalog
from catalog.web.conditional import set_last_modified
from catalog.web.inputs import Input, varies_on
from catalog.web.origin import base_url
from catalog.web.response_cache import mark_cacheable

HTML = "text/html; charset=utf-8"
DEFAULT = ListingQuery()


@varies_on(Input.LANGUAGE)
def home(request: HttpRequest) -> HttpResponse:
    """`/` is the project listing (308 keeps the method)."""
    return redirect(page_links.projects(), permanent=True, preserve_request=True)


PAGE_TEMPLATES = (
    "base.html",
    "projects.html",
    "project.html",
    "records.html",
    "all_records.html",
    "records_facet.html",
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
    "_citation_box.html",
    "_export_box.html",
    "choices.html",
    "browse.html",
    "_browse_title.html",
    "_texts.html",
    "_showing.html",
    "_chart.html",
    "overview.html",
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
    memo = memo_for(catalog)
    memo.get("search-index", lambda: SearchIndex.build(catalog))
    all_records.all_records_index(catalog)
    engine.search_engine(catalog)
    _overview_counts(catalog)


# Lookups --------------------------------------------------------------------


class Withdrawn(Http404):
    """The item was published once and has been withdrawn (the change ledger has its tombstone).

    An :class:`Http404`, so that every view that looks an item up answers it; :func:`page_not_found`
    turns it into the short 410 page.
    """

    def __init__(self, what: str, tombstone: Tombstone) -> None:
        super().__init__(what)
        self.what = what
        self.tombstone = tombstone


def raise_if_withdrawn(catalog: Catalog, shortcode: str) -> None:
    """Raise :class:`Withdrawn` when the change ledger knows ``shortcode`` as a withdrawn project."""
    tombstone = withdrawn_project(catalog, shortcode)
    if tombstone is not None:
        name = ProjectMeta.parse(tombstone.project_meta).name
        raise Withdrawn(
            _("The project {name} ({key})").format(name=name or tombstone.key, key=tombstone.key), tombstone
        )


def get_project_or_404(catalog: Catalog, shortcode: str) -> Project:
    project = catalog.get_project(shortcode)
    if project is None:
        raise_if_withdrawn(catalog, shortcode)
        raise Http404(_("No project with the shortcode {shortcode}.").format(shortcode=repr(shortcode)))
    return project


def get_entity_or_404(entities: Any, entity_id: str, kind: str) -> Any:
    entity = entities.get(entity_id)
    if entity is None:
        raise Http404(str(NOT_FOUND[kind]).format(id=repr(entity_id)))
    return entity


def get_record_or_404(catalog: Catalog, project: Project, suffix: str) -> tuple[RecordTable, int]:
    table = catalog.records_of(project)
    index = table.index_of_suffix(suffix) if table is not None else None
    if table is None or index is None:
        tombstone = withdrawn_record(catalog, project.shortcode, suffix)
        if tombstone is not None:
            raise Withdrawn(
                _("The record {record} of the project {shortcode}").format(record=suffix, shortcode=project.shortcode),
                tombstone,
            )
        raise Http404(
            _("No record {record} in the project {shortcode}.").format(record=repr(suffix), shortcode=project.shortcode)
        )
    return table, index


NOT_FOUND = {
    "person": gettext_lazy("No person with the id {id}."),
    "organization": gettext_lazy("No organization with the id {id}."),
    "cluster": gettext_lazy("No cluster with the id {id}."),
    "collection": gettext_lazy("No collection with the id {id}."),
}


# Rendering ------------------------------------------------------------------


def _language() -> str:
    return translation.get_language() or languages.DEFAULT


def _values() -> Values:
    # English keeps ISO 8601 dates; the other languages show their short local form (04.03.2021, 04/03/2021).
    language = _language()
    local = None if language == languages.DEFAULT else (lambda day: formats.date_format(day, "SHORT_DATE_FORMAT"))
    return Values(settings.SVC.show_placeholder_values, language, local)


def _page(render: Callable[[], str]) -> HttpResponse:
    """A page, kept by the response cache under what its view declares (``@varies_on``)."""
    return mark_cacheable(HttpResponse(render().encode(), content_type=HTML))


def _changed_with_catalog(response: HttpResponse, catalog: Catalog) -> HttpResponse:
    """Last-Modified of a page that shows many items: the latest change in the ledger."""
    if catalog.ledger:
        set_last_modified(response, catalog.ledger.latest)
    return response


def _render(request: HttpRequest, template: str, context: dict[str, Any]) -> str:
    if "page" in context:
        context["meta"] = context["page"].meta
    # The page's canonical path, in its language: its hreflang alternates are the same page in each language.
    meta = context.get("meta")
    page_path = context.get("canonical") or (meta.path if meta is not None else None)
    context["page_languages"] = languages.alternates(page_path) if page_path else ()
    return render_to_string(template, {"base_url": base_url(request), **context}, request)


def _view_model(memo: CatalogMemo, key: tuple[Hashable, ...], build: Callable[[], Any]) -> Any:
    return memo.get((*key, _language(), settings.SVC.show_placeholder_values), build)


def value_label(facet: FacetResult, value: str, catalog: Catalog) -> str:
    """A selected facet value as its chip says it, in the page's language where the catalogues know it."""
    if facet.key == "contributor":
        contributor = catalog.contributor(value)
        return contributor.display_name if contributor else value
    if facet.key == "language":
        return catalog_tags.language_label(value)  # the facet's own rule, in the interface language
    label = next((v.label for v in facet.values if v.value == value), value)
    if facet.key in ("status", "access"):
        return _(label)
    if facet.key == "type":
        return vocabulary.type_of_data_label(label) or label
    return label


def _past_the_end(error: PageOutOfRange) -> str:
    return _("There is no page {page} of this listing; it has {count}.").format(page=error.page, count=error.page_count)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The 404 page; says why when the view said (an unknown shortcode, a page past the end).

    A withdrawn item answers 410 Gone with a short page saying when, linking to the catalogue.
    """
    if isinstance(exception, Withdrawn):
        withdrawn = iso_time(exception.tombstone.deleted)
        # The page's one date rule (docs/languages.md), then the time of day, which is the same everywhere.
        when = f"{_values().date(withdrawn)} {withdrawn[11:16]}"
        gone = {"what": exception.what, "withdrawn": withdrawn, "when": when}
        return HttpResponse(_render(request, "410.html", gone), content_type=HTML, status=410)
    message = exception.args[0] if isinstance(exception, Http404) and exception.args else ""
    context = {"message": message if isinstance(message, str) else ""}
    return HttpResponse(_render(request, "404.html", context), content_type=HTML, status=404)


def _reason(error: BadQuery) -> str:
    """Why the parameters cannot be answered, in the page's language."""
    return _(error.reason).format(**error.details)


def bad_request(request: HttpRequest, message: str) -> HttpResponse:
    return HttpResponse(_render(request, "400.html", {"message": message}), content_type=HTML, status=400)


# Pages ----------------------------------------------------------------------


@varies_on(Input.ORIGIN, Input.LANGUAGE, query=ListingQuery.PARAMETERS)
@require_safe
def projects(request: HttpRequest) -> HttpResponse:
    catalog = catalog_of(request)
    memo = memo_for(catalog)
    try:
        query = ListingQuery.from_params(dict(request.GET.lists())) if request.META.get("QUERY_STRING") else DEFAULT
    except BadQuery as error:
        return bad_request(request, _reason(error))

    def render() -> str:
        index = memo.get("search-index", lambda: SearchIndex.build(catalog))
        try:
            result = search(index, query, engine.search_engine(catalog))
        except PageOutOfRange as error:
            raise Http404(_past_the_end(error)) from None
        values = _values()
        marker = engine.marker(query.text) if query.text else None
        cards = _view_model(
            memo, ("cards",), lambda: {p.key: presenters.project_card(p, values) for p in catalog.projects}
        )
        path = page_links.projects()
        labels = {facet.key: facet for facet in result.facets}
        active_filters = [
            (
                labels[key].label,
                value_label(labels[key], value, catalog),
                query.url(path, filters=query.without_filter(key, value), page=1),
            )
            for key, selected in query.filters
            for value in selected
        ]
        if query.years != (None, None):
            low, high = (str(year) if year else "…" for year in query.years)
            shown = f"{low}\u2013{high}"  # an en dash between the years
            active_filters.append((gettext_noop("Years"), shown, query.url(path, years=(None, None), page=1)))
        return _render(
            request,
            "projects.html",
            {
                "result": result,
                "listed_facets": [facet for facet in result.facets if facet.key in LISTED_FACET_KEYS],
                "query": query,
                "cards": [
                    (cards[entry.project.key], *_why_it_matched(entry.project, marker, values))
                    for entry in result.items
                ],
                "sorts": list(SORTS.items()),
                "active_filters": active_filters,
                "clear_text_url": query.url(path, q="", page=1),
                "canonical": query.url(path),
                "noindex": is_result_page(query),
                "path": path,
                "total_projects": len(catalog.projects),
                "json_url": query.url(f"{links.API_ROOT}/projects", page=1),  # the same search as JSON
                **pagination(result.page, result.page_count, lambda number: query.url(path, page=number)),
            },
        )

    return _changed_with_catalog(_page(render), catalog)


def is_result_page(query: ListingQuery | BrowseQuery | RecordQuery) -> bool:
    """A search, filter or sort result: kept out of search engines (an unbounded crawl space); its links are
    followed. The unfiltered listing and its numbered pages stay indexable."""
    return bool(
        query.text
        or query.sort
        or getattr(query, "filters", ())
        or getattr(query, "years", (None, None))[0:2] != (None, None)
    )


def _why_it_matched(
    project: Project, marker: engine.Marker | None, values: Values
) -> tuple[tuple[tuple[str, bool], ...], tuple[tuple[str, bool], ...]]:
    """The project's name and a snippet of its texts with the search's words marked (empty without a search).

    The snippet is the short description, else the first description (the reader's language first), else the
    keywords, that holds a matched word.
    """
    if marker is None or not marker.active:
        return (), ()
    texts = [text for text in (values.text(project.get("shortDescription")),) if text]
    texts += [text for _language, text in values.language_texts(project.get("description"))]
    texts += [text for _language, text in values.language_texts(project.get("abstract"))]
    texts += values.texts(project.get("keywords"))
    return marker.parts(project.name or project.shortcode), marker.snippet(texts)


def _citation_context(
    request: HttpRequest, described: Described, data: citation.CitationData, style: str
) -> dict[str, Any]:
    """The on-page citation in the chosen style, the style chooser and the exports."""
    return {
        "citation_text": citation.formatted(data, style, citation.locale_of(_language()) or citation.DEFAULT_LOCALE),
        "citation_style": style,
        "citation_styles": [(key, label) for key, (label, _) in citation.STYLES.items()],
        "alternates": described.alternates(),
        "highwire": [
            ("citation_title", data.title),
            *(("citation_author", _highwire_name(c)) for c in data.creators),
            *((("citation_publication_date", data.year),) if data.year else ()),
            ("citation_publisher", data.publisher),
            *((("citation_public_url", data.url),) if data.url else ()),
        ],
    }


def _unknown_style(request: HttpRequest) -> HttpResponse:
    offered = ", ".join(citation.STYLES)
    return bad_request(request, _("Unknown citation style; offered: {styles}.").format(styles=offered))


def _highwire_name(creator: citation.Creator) -> str:
    return f"{creator.family}, {creator.given}" if creator.given and not creator.is_organization else creator.family


def _page_style(request: HttpRequest) -> str | None:
    styles = request.GET.getlist("style") if request.META.get("QUERY_STRING") else ()
    style = styles[-1] if styles else citation.DEFAULT_STYLE
    return style if style in citation.STYLES else None


@varies_on(Input.ORIGIN, Input.LANGUAGE, query=("tab", "style", "locale"), offers=export_views.PAGE_OFFERS)
@require_safe
def project(request: HttpRequest, shortcode: str) -> HttpResponse:
    catalog = catalog_of(request)
    memo = memo_for(catalog)
    project_ = catalog.get_project(shortcode)
    if project_ is None:
        raise_if_withdrawn(catalog, shortcode)
        return shortcode_choices(request, catalog, shortcode)
    described = export_views.project_described(catalog, project_, base_url(request))
    negotiated = export_views.negotiate(request, described)
    if negotiated is not None:
        return negotiated
    tab_values = request.GET.getlist("tab") if request.META.get("QUERY_STRING") else ()
    tab = tab_values[-1] if tab_values else "overview"
    style = _page_style(request)
    if style is None:
        return _unknown_style(request)

    def render() -> str:  # only on a cache miss; an unknown tab is never cached
        values = _values()
        page = _view_model(
            memo, ("project", project_.key), lambda: presenters.build_project_page(catalog, project_, values)
        )
        if tab not in {tab[0] for tab in page.tabs}:
            message = _("The project {shortcode} has no tab {tab}.")
            raise Http404(message.format(shortcode=project_.shortcode, tab=repr(tab)))
        document = jsonld.project_dataset(catalog, project_, base_url(request), settings.SVC.oai_repository_name)
        data = citation.citation_data(catalog, project_, base_url(request) + links.project_path(project_.shortcode))
        record_charts = (
            _view_model(memo, ("record-charts", project_.key), lambda: charts.project_record_charts(catalog, project_))
            if page.record_count
            else ()
        )
        return _render(
            request,
            "project.html",
            {
                "page": page,
                "active_tab": tab,
                "charts": record_charts,
                "jsonld": jsonld.to_script(document),
                "siblings": [
                    (p.shortcode, p.name or p.shortcode, page_links.project(p.shortcode))
                    for p in _pid_siblings(catalog, project_)
                ],
                **_citation_context(request, described, data, style),
            },
        )

    response = _page(render)
    if catalog.ledger:
        set_last_modified(response, catalog.ledger.project_time(project_.key))
    return export_views.finish_page(response, request, described)


def _pid_siblings(catalog: Catalog, project_: Project) -> list[Project]:
    """The other projects with the same pid (a permalink that names several projects)."""
    by_pid = memo_for(catalog).get("projects-by-pid", lambda: _projects_by_pid(catalog))
    return [p for p in by_pid.get(project_.pid, ()) if p.key != project_.key] if project_.pid else []


def _projects_by_pid(catalog: Catalog) -> dict[str, list[Project]]:
    by_pid: dict[str, list[Project]] = {}
    for p in catalog.projects:
        if p.pid:
            by_pid.setdefault(p.pid, []).append(p)
    return by_pid


def shortcode_choices(request: HttpRequest, catalog: Catalog, prefix: str) -> HttpResponse:
    """``/projects/0801`` when 0801 is no shortcode but begins several: 300 Multiple Choices listing them."""
    # Shortcodes have four characters at least: a shorter prefix names a range of projects, not a pid.
    matches = (
        [p for p in catalog.projects if p.shortcode.lower().startswith(prefix.lower())] if len(prefix) >= 4 else []
    )
    if len(matches) < 2:
        raise Http404(_("No project with the shortcode {shortcode}.").format(shortcode=repr(prefix)))
    context = {
        "prefix": prefix,
        "choices": [(p.shortcode, p.name or p.shortcode, page_links.project(p.shortcode)) for p in matches],
        "meta": presenters.PageMeta(
            title=_("Projects whose shortcode begins with {prefix}").format(prefix=prefix),
            description=_("{count} projects have a shortcode beginning with {prefix}.").format(
                count=len(matches), prefix=prefix
            ),
            path=page_links.project(prefix),
            json_path=None,
        ),
    }
    response = HttpResponse(_render(request, "choices.html", context), content_type=HTML, status=300)
    response["Location"] = page_links.project(matches[0].shortcode)
    return response


def record_indexes(memo: CatalogMemo) -> Mapping[str, ProjectRecordIndex]:
    return all_records.record_indexes(memo.catalog)


@varies_on(Input.ORIGIN, Input.LANGUAGE, query=RecordQuery.PARAMETERS)
@require_safe
def project_records(request: HttpRequest, shortcode: str) -> HttpResponse:
    catalog = catalog_of(request)
    memo = memo_for(catalog)
    project_ = get_project_or_404(catalog, shortcode)
    try:
        query = RecordQuery.from_params(dict(request.GET.lists()))
    except BadQuery as error:
        return bad_request(request, _reason(error))
    table = catalog.records_of(project_)

    def render() -> str:
        name = project_.name or project_.shortcode
        path = page_links.project_records(project_.shortcode)
        if table is None:
            result = RecordResult(0, 1, 1, ())
        else:
            try:
                scores = engine.search_engine(catalog).record_scores(query.parsed, project_.key) if query.text else None
                result = search_records(record_indexes(memo)[project_.key], query, scores)
            except PageOutOfRange as error:
                raise Http404(
                    _("There is no page {page} of the records of {shortcode}; they fill {count}.").format(
                        page=error.page, shortcode=project_.shortcode, count=error.page_count
                    )
                ) from None
        marker = engine.marker(query.text) if query.text else None
        rows = presenters.record_rows_at(table, result.positions, _values(), marker) if table else ()
        canonical = _url(path, query.params())
        return _render(
            request,
            "records.html",
            {
                "project_name": name,
                "project_url": page_links.project(project_.shortcode),
                "rows": rows,
                "count": len(table) if table else 0,
                "result": result,
                "query": query,
                "path": path,
                "clear_text_url": _url(path, query.params(q="", page=1)),
                "noindex": is_result_page(query),
                **pagination(result.page, result.page_count, lambda n: _url(path, query.params(page=n))),
                "meta": presenters.PageMeta(
                    title=_("Records of {name}").format(name=name)
                    + (" " + _("(page {number})").format(number=result.page) if result.page > 1 else ""),
                    description=_("The {count} records of the research project {name}.").format(
                        count=len(table) if table else 0, name=name
                    ),
                    path=canonical,
                    json_path=_records_json_path(project_.shortcode, query),
                ),
            },
        )

    response = _page(render)
    if catalog.ledger:
        set_last_modified(response, catalog.ledger.project_time(project_.key))
    return response


@varies_on(Input.ORIGIN, Input.LANGUAGE, query=all_records.AllRecordsQuery.PARAMETERS)
@require_safe
def records_everywhere(request: HttpRequest) -> HttpResponse:
    """`/records`: the records of every project, searched by the records page's rules, with facets."""
    catalog = catalog_of(request)
    try:
        query = all_records.AllRecordsQuery.from_params(dict(request.GET.lists()))
    except BadQuery as error:
        return bad_request(request, _reason(error))

    def render() -> str:
        index = all_records.all_records_index(catalog)
        try:
            result = all_records.search_catalog(catalog, query)
        except PageOutOfRange as error:
            raise Http404(_past_the_end(error)) from None
        path = page_links.all_records()
        facets = {facet.key: facet for facet in result.facets}
        active_filters = [
            (
                facets[key].label,
                next((v.label for v in facets[key].values if v.value == value), value),
                query.url(path, filters=query.without_filter(key, value), page=1),
            )
            for key, selected in query.filters
            for value in selected
        ]
        if query.years != (None, None):
            low, high = (str(year) if year else "…" for year in query.years)
            shown = f"{low}\u2013{high}"  # an en dash between the years
            active_filters.append((gettext_noop("Years"), shown, query.url(path, years=(None, None), page=1)))
        return _render(
            request,
            "all_records.html",
            {
                "result": result,
                "query": query,
                "rows": presenters.record_rows_of_projects(
                    catalog, result.hits, _values(), engine.marker(query.text) if query.text else None
                ),
                "count": index.size,
                "path": path,
                "active_filters": active_filters,
                "clear_text_url": query.url(path, q="", page=1),
                "exports": [
                    (export.label, query.url(f"/{export.file}", page=1)) for export in result_exports.RESULT_EXPORTS
                ],
                "noindex": bool(query.text or query.filters or query.sort or query.years != (None, None)),
                "facet_pages": {
                    key: query.url(page_links.records_facet(key), page=1) for key in all_records.FACET_KEYS
                },
                **pagination(result.page, result.page_count, lambda n: query.url(path, page=n)),
                "meta": presenters.PageMeta(
                    title=_("Records of all projects")
                    + (" " + _("(page {number})").format(number=result.page) if result.page > 1 else ""),
                    description=_("Search the {count} records of every research project.").format(count=index.size),
                    path=query.url(path),
                    json_path=query.url(links.all_records_json_path()),  # the same search, filters, sort, page
                ),
            },
        )

    return _changed_with_catalog(_page(render), catalog)


@varies_on(Input.ORIGIN, Input.LANGUAGE, query=all_records.AllRecordsQuery.PARAMETERS)
@require_safe
def records_facet(request: HttpRequest, facet: str) -> HttpResponse:
    """`/records/facets/<key>`: every value of a facet of `/records` for the same search, 100 a page, each a link
    to that search with the value selected (or, selected, without it); `/records` writes its first 50 only."""
    catalog = catalog_of(request)
    if facet not in all_records.FACET_KEYS:
        raise Http404(_("The records have no filter {key}.").format(key=repr(facet)))
    try:
        query = all_records.AllRecordsQuery.from_params(dict(request.GET.lists()))
    except BadQuery as error:
        return bad_request(request, _reason(error))

    def render() -> str:
        try:
            found = all_records.facet_page(catalog, query, facet)
        except PageOutOfRange as error:
            raise Http404(_past_the_end(error)) from None
        records, path = page_links.all_records(), page_links.records_facet(facet)
        title = _("{facet} — all values").format(facet=_(found.label))
        return _render(
            request,
            "records_facet.html",
            {
                "facet": found,
                "heading": title,
                "values": presenters.facet_value_links(
                    facet, found.values, query, records, catalog_tags.facet_value_label
                ),
                "records_url": query.url(records, page=1),
                "noindex": True,  # one page per facet and search: an unbounded crawl space, like a search's
                **pagination(found.page, found.page_count, lambda n: query.url(path, page=n)),
                "meta": presenters.PageMeta(
                    title=title + (" " + _("(page {number})").format(number=found.page) if found.page > 1 else ""),
                    description=_("Every value of the filter {facet} for a search of the records.").format(
                        facet=_(found.label)
                    ),
                    path=query.url(path),
                    json_path=None,
                ),
            },
        )

    return _changed_with_catalog(_page(render), catalog)


@varies_on(Input.QUERY, Input.ORIGIN)
@require_safe
def records_export(request: HttpRequest, key: str) -> HttpResponse:
    """`/records.csv`, `/records.bib`: the first 1,000 hits of `/records` with the same parameters, in its order."""
    catalog = catalog_of(request)
    try:
        query = all_records.AllRecordsQuery.from_params(dict(request.GET.lists()))
    except BadQuery as error:
        return HttpResponse(f"{error.reason.format(**error.details)}\n", status=400, content_type="text/plain")
    hits = all_records.first_hits(catalog, query)
    export = result_exports.CSV if key == result_exports.CSV.key else result_exports.BIBTEX
    write = result_exports.to_csv if export is result_exports.CSV else result_exports.to_bibtex
    response = HttpResponse(write(catalog, hits, base_url(request)), content_type=f"{export.media_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{export.file}"'
    return _changed_with_catalog(mark_cacheable(response), catalog)


def _records_json_path(shortcode: str, query: RecordQuery) -> str:
    """A project's records as JSON: all of them, or, for a search or sort, the same search in the API's."""
    if not (query.text or query.sort or query.page > 1):
        return f"{links.project_json_path(shortcode)}/records"
    same = all_records.AllRecordsQuery(query.text, (("project", (shortcode,)),), query.sort, query.page)
    return same.url(links.all_records_json_path())


def _url(path: str, pairs: list[tuple[str, str]]) -> str:
    return f"{path}?{urlencode(pairs)}" if pairs else path


@varies_on(Input.ORIGIN, Input.LANGUAGE, query=("style", "locale"), offers=export_views.PAGE_OFFERS)
@require_safe
def record(request: HttpRequest, shortcode: str, record_suffix: str) -> HttpResponse:
    catalog = catalog_of(request)
    project_ = get_project_or_404(catalog, shortcode)
    table, index = get_record_or_404(catalog, project_, record_suffix)

    described = export_views.record_described(catalog, project_, table, index, base_url(request))
    negotiated = export_views.negotiate(request, described)
    if negotiated is not None:
        return negotiated
    style = _page_style(request)
    if style is None:
        return _unknown_style(request)

    def render() -> str:
        page = presenters.build_record_page(project_, table, index, _values())
        document = jsonld.record_work(catalog, project_, table, index, base_url(request))
        data = citation.record_citation_data(
            catalog, project_, table, index, base_url(request) + links.project_path(project_.shortcode)
        )
        return _render(
            request,
            "record.html",
            {"page": page, "jsonld": jsonld.to_script(document), **_citation_context(request, described, data, style)},
        )

    response = _page(render)
    if catalog.ledger:
        set_last_modified(response, catalog.ledger.record_time(project_.key, index))
    return export_views.finish_page(response, request, described)


@varies_on(Input.ORIGIN, query=("style", "locale"))
@require_safe
def project_export(request: HttpRequest, shortcode: str, key: str) -> HttpResponse:
    catalog = catalog_of(request)
    project_ = get_project_or_404(catalog, shortcode)
    described = export_views.project_described(catalog, project_, base_url(request))
    return export_views.export_response(request, described, key)


@varies_on(Input.ORIGIN, query=("style", "locale"))
@require_safe
def record_export(request: HttpRequest, shortcode: str, record_suffix: str, key: str) -> HttpResponse:
    catalog = catalog_of(request)
    project_ = get_project_or_404(catalog, shortcode)
    table, index = get_record_or_404(catalog, project_, record_suffix)
    described = export_views.record_described(catalog, project_, table, index, base_url(request))
    return export_views.export_response(request, described, key)


@varies_on(Input.ORIGIN, query=())
@require_safe
def project_linkset(request: HttpRequest, shortcode: str) -> HttpResponse:
    catalog = catalog_of(request)
    project_ = get_project_or_404(catalog, shortcode)
    return export_views.linkset_response(request, export_views.project_described(catalog, project_, base_url(request)))


@varies_on(Input.ORIGIN, query=())
@require_safe
def record_linkset(request: HttpRequest, shortcode: str, record_suffix: str) -> HttpResponse:
    catalog = catalog_of(request)
    project_ = get_project_or_404(catalog, shortcode)
    table, index = get_record_or_404(catalog, project_, record_suffix)
    described = export_views.record_described(catalog, project_, table, index, base_url(request))
    return export_views.linkset_response(request, described)


def _described_entity(
    request: HttpRequest, kind: str, entity_id: str
) -> tuple[Described, Callable[[], dict[str, Any]]]:
    """A person, organization, cluster or collection: its description and its JSON-LD document."""
    catalog = catalog_of(request)
    base = base_url(request)
    site = dcat_views.site(base)
    schema_type = None
    if kind == "person":
        entity = get_entity_or_404(catalog.persons, entity_id, kind)
        paths = (links.person_path(entity.id), links.person_json_path(entity.id))
        document = lambda: jsonld.person(catalog, entity, base)  # noqa: E731
        graph = lambda: dcat.person_graph(catalog, entity, site)  # noqa: E731
        schema_type = "https://schema.org/Person"
    elif kind == "organization":
        entity = get_entity_or_404(catalog.organizations, entity_id, kind)
        paths = (links.organization_path(entity.id), links.organization_json_path(entity.id))
        document = lambda: jsonld.organization(catalog, entity, base)  # noqa: E731
        graph = lambda: dcat.organization_graph(catalog, entity, site)  # noqa: E731
        schema_type = "https://schema.org/Organization"
    else:
        entities = catalog.clusters if kind == "cluster" else catalog.collections
        entity = get_entity_or_404(entities, entity_id, kind)
        path_of, json_of = (
            (links.cluster_path, links.cluster_json_path)
            if kind == "cluster"
            else (links.collection_path, links.collection_json_path)
        )
        paths = (path_of(entity.id), json_of(entity.id))
        document = lambda: jsonld.group(entity, presenters.group_projects(catalog, entity), paths[0], base)  # noqa: E731
        graph = lambda: dcat.group_graph(entity, presenters.group_projects(catalog, entity), paths[0], site)  # noqa: E731
    return export_views.description_described(*paths, entity.id, document, graph, schema_type), document


@varies_on(Input.ORIGIN, query=())
@require_safe
def entity_linkset(request: HttpRequest, kind: str, entity_id: str) -> HttpResponse:
    """The Signposting linkset of a person or organization page."""
    described, _ = _described_entity(request, kind, entity_id)
    if described.signposts is None:
        raise Http404
    return export_views.linkset_response(request, described)


@varies_on(Input.ORIGIN, query=("style", "locale"))
@require_safe
def entity_export(request: HttpRequest, kind: str, entity_id: str, key: str) -> HttpResponse:
    described, _ = _described_entity(request, kind, entity_id)
    return export_views.export_response(request, described, key)


# Kind -> its entities in a catalogue, its page's view model and the page's template.
_ENTITY_PAGES: dict[str, tuple[Callable[[Catalog], Mapping[str, Any]], Callable[[Catalog, Any, Values], Any], str]] = {
    "person": (lambda catalog: catalog.persons, presenters.build_person_page, "person.html"),
    "organization": (lambda catalog: catalog.organizations, presenters.build_organization_page, "organization.html"),
    "cluster": (lambda catalog: catalog.clusters, presenters.build_cluster_page, "group.html"),
    "collection": (lambda catalog: catalog.collections, presenters.build_collection_page, "group.html"),
}


def _entity_page(request: HttpRequest, kind: str, entity_id: str) -> HttpResponse:
    """The page of a person, organization, cluster or collection, or the export its request negotiates."""
    catalog = catalog_of(request)
    entities, build_page, template = _ENTITY_PAGES[kind]
    entity = get_entity_or_404(entities(catalog), entity_id, kind)
    described, document = _described_entity(request, kind, entity_id)
    negotiated = export_views.negotiate(request, described)
    if negotiated is not None:
        return negotiated

    def render() -> str:
        page = build_page(catalog, entity, _values())
        found = _view_model(memo_for(catalog), (kind, entity.id), lambda: _entity_charts(catalog, kind, entity.id))
        return _render(
            request,
            template,
            {
                "page": page,
                "charts": found,
                "jsonld": jsonld.to_script(document()),
                "alternates": described.alternates(),
            },
        )

    response = _changed_with_catalog(_page(render), catalog)
    return export_views.finish_page(response, request, described)


def _entity_charts(catalog: Catalog, kind: str, entity_id: str) -> tuple[charts.Chart, ...]:
    """A person's or organization's projects per year, where they have several."""
    if kind not in ("person", "organization"):
        return ()
    index = memo_for(catalog).get("search-index", lambda: SearchIndex.build(catalog))
    found = charts.contributor_chart(catalog, index, entity_id)
    return (found,) if found else ()


@varies_on(Input.ORIGIN, Input.LANGUAGE, query=("style", "locale"), offers=export_views.PAGE_OFFERS)
@require_safe
def person(request: HttpRequest, person_id: str) -> HttpResponse:
    return _entity_page(request, "person", person_id)


@varies_on(Input.ORIGIN, Input.LANGUAGE, query=("style", "locale"), offers=export_views.PAGE_OFFERS)
@require_safe
def organization(request: HttpRequest, organization_id: str) -> HttpResponse:
    return _entity_page(request, "organization", organization_id)


@varies_on(Input.ORIGIN, Input.LANGUAGE, query=("style", "locale"), offers=export_views.PAGE_OFFERS)
@require_safe
def cluster(request: HttpRequest, cluster_id: str) -> HttpResponse:
    return _entity_page(request, "cluster", cluster_id)


@varies_on(Input.ORIGIN, Input.LANGUAGE, query=("style", "locale"), offers=export_views.PAGE_OFFERS)
@require_safe
def collection(request: HttpRequest, collection_id: str) -> HttpResponse:
    return _entity_page(request, "collection", collection_id)


@varies_on(Input.ORIGIN, Input.LANGUAGE, query=BrowseQuery.PARAMETERS)
@require_safe
def browse_listing(request: HttpRequest, kind: str) -> HttpResponse:
    """`/persons`, `/organizations`, `/clusters`, `/collections`: search, sort, pages."""
    catalog = catalog_of(request)
    memo = memo_for(catalog)
    try:
        query = BrowseQuery.from_params(dict(request.GET.lists()))
    except BadQuery as error:
        return bad_request(request, _reason(error))

    def render() -> str:
        entries = memo.get(("browse", kind), lambda: build_entries(catalog, kind))
        scores = engine.search_engine(catalog).listing_scores(kind, engine.parse(query.text)) if query.text else None
        try:
            result = browse(entries, query, scores)
        except PageOutOfRange as error:
            raise Http404(_past_the_end(error)) from None
        path = page_links.listing(kind)
        return _render(
            request,
            "browse.html",
            {
                "kind": kind,
                "result": result,
                "query": query,
                "path": path,
                "rows": [(entry, page_links.entity(kind, entry.id)) for entry in result.items],
                "total_entries": len(entries),
                "clear_text_url": query.url(path, q="", page=1),
                **pagination(result.page, result.page_count, lambda n: query.url(path, page=n)),
                "canonical": query.url(path),
                "noindex": is_result_page(query),
                "json_path": f"/api/v2/{kind}",
            },
        )

    return _page(render)


@varies_on(Input.ORIGIN, Input.LANGUAGE, query=())
@require_safe
def about(request: HttpRequest) -> HttpResponse:
    catalog = catalog_of(request)

    def render() -> str:
        return _render(
            request,
            "about.html",
            {
                "counts": catalog.counts(),
                "jsonld": jsonld.to_script(
                    {
                        "@context": "https://schema.org",
                        **jsonld.data_catalog(base_url(request), settings.SVC.oai_repository_name),
                        "distribution": {
                            "@type": "DataDownload",
                            "encodingFormat": "application/ld+json",
                            "contentUrl": base_url(request) + export_views.CATALOGUE_PATH,
                        },
                    }
                ),
                "oai_base_url": settings.SVC.oai_base_url,
                "about": {
                    "policies_url": settings.SVC.policies_url,
                    "terms_url": settings.SVC.terms_url,
                    "contact_url": settings.SVC.contact_url,
                    "email": settings.SVC.oai_admin_email,
                    "registries": settings.SVC.registry_links or (),
                },
                "meta": presenters.PageMeta(
                    title=_("About"),
                    description=_("What this research-data catalogue holds and how to use its pages, API and OAI-PMH."),
                    path=page_links.about(),
                    json_path=None,
                ),
            },
        )

    return _page(render)


def _overview_counts(catalog: Catalog) -> charts.OverviewCounts:
    """What `/overview` counts, once per catalogue (:func:`warm_up` counts it before the workers fork)."""
    memo = memo_for(catalog)
    return memo.get(
        "overview-counts",
        lambda: charts.overview_counts(catalog, memo.get("search-index", lambda: SearchIndex.build(catalog))),
    )


@varies_on(Input.ORIGIN, Input.LANGUAGE, query=())
@require_safe
def overview(request: HttpRequest) -> HttpResponse:
    """`/overview`: the catalogue in charts, each bar linking to the listing it counts."""
    catalog = catalog_of(request)
    memo = memo_for(catalog)

    def render() -> str:
        counts = catalog.counts()
        return _render(
            request,
            "overview.html",
            {
                "charts": _view_model(
                    memo, ("overview-charts",), lambda: charts.overview_charts(_overview_counts(catalog))
                ),
                "counts": counts,
                "meta": presenters.PageMeta(
                    title=_("The catalogue at a glance"),
                    description=_(
                        "Charts of the {projects} research projects and {records} records: by discipline, "
                        "status, access rights and year."
                    ).format(projects=counts["projects"], records=counts["records"]),
                    path=page_links.overview(),
                    json_path=None,
                ),
            },
        )

    return _changed_with_catalog(_page(render), catalog)
