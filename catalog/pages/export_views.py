"""Exports, content negotiation and FAIR Signposting of the entity pages.

An entity is :class:`Described` once (its paths, the exports it offers, how
each is built, its Signposting links); the export URLs, the page's content
negotiation, its ``Link`` header and its linkset all read that one description.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_safe
from rdflib import Graph

from catalog.domain.identifiers import project_identity
from catalog.domain.model import NO_DATESTAMP, Catalog, Project, RecordTable
from catalog.domain.values import is_http_url
from catalog.formats import citation, datacite_xml, dcat, dublin_core_xml, exports, item_metadata, jsonld, links
from catalog.formats.exports import Export
from catalog.formats.signposting import ABOUT_PAGE, HEADER_ITEMS, LINKSET_TYPE, TypedLink, link_header, linkset
from catalog.pages.dcat_views import site
from catalog.runtime import catalog_of, get_catalog, state_of
from catalog.web import accept, origin
from catalog.web.inputs import Input, varies_on
from catalog.web.response_cache import mark_cacheable

NOT_DESCRIBED_BY = frozenset({exports.CITATION_TEXT})


@dataclass(frozen=True)
class Described:
    page_path: str
    json_path: str
    stem: str  # download file name without extension
    offered: tuple[Export, ...]
    build: Callable[[Export, str], str | bytes]  # (export, citation style) -> body
    signposts: Callable[[str, int | None], list[TypedLink]] | None = None  # (base_url, item cap) -> links

    def url(self, export: Export) -> str:
        return exports.export_path(self.page_path, export, self.json_path)

    def alternates(self) -> list[tuple[str, str, str]]:
        """(media type, URL, label) of every export, for the page head and the Export box."""
        return [(export.media_type, self.url(export), export.label) for export in self.offered]


def _json_text(document: Any) -> str:
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def _year_of_stamp(stamp: int | None) -> str:
    """OAI's fallback publication year: the year of the item's datestamp."""
    return str(time.gmtime(stamp if stamp is not None and stamp != NO_DATESTAMP else 0).tm_year)


def _work_builder(
    document: Callable[[], dict[str, Any]],
    item: Callable[[], item_metadata.ItemMetadata],
    data: Callable[[], citation.CitationData],
    graph: Callable[[], Graph],
) -> Callable[[Export, str], str | bytes]:
    def build(export: Export, style: str) -> str | bytes:
        if export in exports.RDF_EXPORTS:
            return dcat.serialise(graph(), export.media_type)
        if export is exports.JSONLD:
            return _json_text(document())
        if export is exports.DATACITE:
            return exports.standalone_xml(datacite_xml.render(item()))
        if export is exports.DUBLIN_CORE:
            return exports.standalone_xml(dublin_core_xml.render(item()))
        if export is exports.CITATION_TEXT:
            return citation.formatted(data(), style) + "\n"
        return citation.FORMATS[export.key][0](data())

    return build


def _author_urls(catalog: Catalog, creators: list[dict[str, Any]]) -> list[str]:
    """ORCID where the person has one, else the creator's page in the catalogue."""
    urls = []
    for creator in creators:
        orcid = next((url for url in creator.get("sameAs", ()) if "orcid.org/" in url), None)
        if orcid or creator.get("@id"):
            urls.append(orcid or creator["@id"])
    return urls


def _common_signposts(
    described: Described, base_url: str, cite_as: str, kind: str, document: dict[str, Any]
) -> list[TypedLink]:
    links_ = [TypedLink(cite_as, "cite-as")]
    links_ += [
        TypedLink(base_url + described.url(export), "describedby", export.media_type, export.profile)
        for export in described.offered
        if export not in NOT_DESCRIBED_BY
    ]
    links_ += [TypedLink(kind, "type"), TypedLink(ABOUT_PAGE, "type")]
    links_ += [TypedLink(url, "author") for url in _author_urls(get_catalog(), document.get("creator", []))]
    licenses = document.get("license")
    for license_ in [licenses] if isinstance(licenses, str) else licenses or []:
        if is_http_url(license_):
            links_.append(TypedLink(license_, "license"))
    return links_


def project_described(catalog: Catalog, project: Project, base_url: str) -> Described:
    page_path = links.project_path(project.shortcode)

    def document() -> dict[str, Any]:
        return jsonld.project_dataset(catalog, project, base_url, settings.SVC.oai_repository_name)

    def item() -> item_metadata.ItemMetadata:
        return item_metadata.project_metadata(catalog, project, base_url, _year_of_stamp(project.datestamp))

    def signposts(base: str, cap: int | None) -> list[TypedLink]:
        described = project_described(catalog, project, base)
        doc = document()
        cite_as = project_identity(catalog, project, base + page_path).identifier
        found = _common_signposts(described, base, cite_as, "https://schema.org/Dataset", doc)
        table = catalog.records_of(project)
        pids = table.pids if table is not None else ()
        count = len(pids) if cap is None else min(cap, len(pids))
        found += [
            TypedLink(base + links.record_path(project.shortcode, pids[i]), "item", "text/html") for i in range(count)
        ]
        return found

    return Described(
        page_path,
        links.project_json_path(project.shortcode),
        project.shortcode,
        exports.WORK_EXPORTS,
        _work_builder(
            document,
            item,
            lambda: citation.citation_data(catalog, project, base_url + page_path),
            lambda: dcat.project_graph(catalog, project, site(base_url)),
        ),
        signposts,
    )


def record_described(catalog: Catalog, project: Project, table: RecordTable, index: int, base_url: str) -> Described:
    pid = table.pids[index]
    page_path = links.record_path(project.shortcode, pid)

    def document() -> dict[str, Any]:
        return jsonld.record_work(catalog, project, table, index, base_url)

    def item() -> item_metadata.ItemMetadata:
        context = item_metadata.project_context(catalog, project, base_url, _year_of_stamp(project.datestamp))
        return item_metadata.record_metadata(table.record(index), context)

    def signposts(base: str, cap: int | None) -> list[TypedLink]:
        described = record_described(catalog, project, table, index, base)
        doc = document()
        cite_as = pid if is_http_url(pid) else base + page_path
        found = _common_signposts(described, base, cite_as, "https://schema.org/CreativeWork", doc)
        media = doc.get("associatedMedia")
        if media:
            found.append(TypedLink(media["contentUrl"], "item", media.get("encodingFormat")))
        return found

    return Described(
        page_path,
        links.record_json_path(project.shortcode, pid),
        f"{project.shortcode}-{links.record_suffix(pid)}",
        exports.WORK_EXPORTS,
        _work_builder(
            document,
            item,
            lambda: citation.record_citation_data(
                catalog, project, table, index, base_url + links.project_path(project.shortcode)
            ),
            lambda: dcat.record_graph(catalog, project, table, index, site(base_url)),
        ),
        signposts,
    )


def description_described(
    page_path: str,
    json_path: str,
    stem: str,
    document: Callable[[], dict[str, Any]],
    graph: Callable[[], Graph],
    kind: str | None = None,
) -> Described:
    """Persons, organizations, clusters and collections: JSON, JSON-LD and RDF.

    With a schema.org ``kind`` (persons, organizations) the page has Signposting links too.
    """

    def build(export: Export, style: str) -> str | bytes:
        if export in exports.RDF_EXPORTS:
            return dcat.serialise(graph(), export.media_type)
        return _json_text(document())

    def signposts(base: str, cap: int | None) -> list[TypedLink]:
        described = description_described(page_path, json_path, stem, document, graph)
        return _common_signposts(described, base, base + page_path, kind or "", {})

    return Described(
        page_path, json_path, stem, exports.DESCRIPTION_EXPORTS, build, signposts if kind is not None else None
    )


# Responses -------------------------------------------------------------------


def _style(request: HttpRequest) -> str | None:
    """The ``?style=`` value, None when unknown (the caller answers 400)."""
    style = request.GET.get("style", citation.DEFAULT_STYLE)
    return style if style in citation.STYLES else None


def _bad_style() -> HttpResponse:
    offered = ", ".join(citation.STYLES)
    return HttpResponse(f"Unknown citation style. Offered: {offered}.\n", status=400, content_type="text/plain")


@functools.lru_cache(maxsize=1024)
def _preferred_type(accept: str, offered: tuple[str, ...]) -> str | None:
    """Django's choice among HTML and ``offered`` for one Accept header, worked out once per header.

    Parsing the header costs more than the rest of a warm page; clients send few distinct values.
    """
    probe = HttpRequest()
    probe.META["HTTP_ACCEPT"] = accept
    return probe.get_preferred_type(["text/html", *offered])


def negotiate(request: HttpRequest, described: Described) -> HttpResponse | None:
    """None when the client takes HTML; else a 303 to the export it prefers, or 406 listing the offered types.

    Redirecting, as DOI resolvers do, keeps one URL per representation: caches
    and the Export box use the same URLs.
    """
    offered = exports.negotiable(described.offered)
    header = request.META.get("HTTP_ACCEPT", "*/*")
    preferred = _preferred_type(accept.without_parameters(header), tuple(offered))
    if preferred == "text/html":
        return None
    if preferred is None:
        types = "\n".join(["text/html", *offered])
        response = HttpResponse(
            f"None of the accepted media types is offered. Offered:\n{types}\n", status=406, content_type="text/plain"
        )
    else:
        export = offered[preferred]
        location = described.url(export)
        style = accept.parameter(header, exports.CITATION_TEXT.media_type, "style")
        if export is exports.CITATION_TEXT and "style" in request.GET:
            location += "?" + request.GET.urlencode()
        elif export is exports.CITATION_TEXT and style:
            location += "?" + urlencode({"style": style})  # as DOI resolvers read ``Accept: …; style=apa``
        response = HttpResponse(status=303)
        response["Location"] = location
    patch_vary_headers(response, ["Accept"])
    return response


def finish_page(response: HttpResponse, request: HttpRequest, described: Described) -> HttpResponse:
    """The HTML page varies on Accept and, with Signposting, carries its typed links."""
    patch_vary_headers(response, ["Accept"])
    signposts = described.signposts
    if signposts is not None:
        base = origin.base_url(request)
        # Part of the page's response, kept with it by the response cache.
        response["Link"] = link_header(signposts(base, HEADER_ITEMS), base + described.page_path + "/linkset")
    return response


def export_response(request: HttpRequest, described: Described, key: str) -> HttpResponse:
    export = exports.BY_KEY[key]
    if export not in described.offered:
        return HttpResponse(status=404)
    style = _style(request)
    if style is None:
        return _bad_style()
    content_type = f"{export.media_type}; charset=utf-8"
    response = HttpResponse(described.build(export, style), content_type=content_type)
    if export is not exports.CITATION_TEXT:
        response["Content-Disposition"] = exports.content_disposition(described.stem, export)
    return mark_cacheable(response)


def linkset_response(request: HttpRequest, described: Described) -> HttpResponse:
    base = origin.base_url(request)
    assert described.signposts is not None
    document = linkset(base + described.page_path, described.signposts(base, None))
    return mark_cacheable(HttpResponse(json.dumps(document, ensure_ascii=False), content_type=LINKSET_TYPE))


# The whole catalogue ---------------------------------------------------------

CATALOGUE_PATH = "/catalogue.jsonld"


def _catalogue_chunks(catalog: Catalog, base_url: str) -> list[bytes]:
    """The catalogue as one JSON-LD ``DataCatalog`` with its datasets, persons, organizations and groups,
    in chunks of one entity each (records are reached through each dataset's own exports)."""
    name = settings.SVC.oai_repository_name
    head = {"@context": "https://schema.org", **jsonld.data_catalog(base_url, name)}
    chunks = [json.dumps(head, ensure_ascii=False)[:-1].encode() + b',"@graph":[\n']
    documents: list[dict[str, Any]] = []
    documents += (jsonld.project_dataset(catalog, p, base_url, name) for p in catalog.projects)
    documents += (jsonld.person(catalog, p, base_url) for p in catalog.persons.values())
    documents += (jsonld.organization(catalog, o, base_url) for o in catalog.organizations.values())
    for index, document in enumerate(documents):
        document.pop("@context", None)
        separator = b",\n" if index < len(documents) - 1 else b"\n"
        chunks.append(json.dumps(document, ensure_ascii=False).encode() + separator)
    chunks.append(b"]}\n")
    return chunks


@varies_on(Input.ORIGIN)
@require_safe
def catalogue_jsonld(request: HttpRequest) -> StreamingHttpResponse:
    """Every project, person and organization as one JSON-LD file, kept with the rendered pages.

    The ids are absolute URLs of the origin the request names, which a client
    may pick (any ``Host``): kept under the pages' byte budget, never per
    origin without a bound. A catalogue whose export is larger than a quarter
    of that budget is built for each request.
    """
    catalog = catalog_of(request)
    base = origin.base_url(request)
    responses = state_of(request).responses
    key = ("catalogue-jsonld", base)
    chunks = responses.find(key)
    if not isinstance(chunks, list):
        chunks = _catalogue_chunks(catalog, base)
        responses.keep(key, chunks, sys.getsizeof(chunks) + sum(sys.getsizeof(chunk) for chunk in chunks))

    def stream() -> Iterator[bytes]:
        yield from chunks

    response = StreamingHttpResponse(stream(), content_type="application/ld+json")
    response["Content-Disposition"] = 'attachment; filename="catalogue.jsonld"'
    return response
