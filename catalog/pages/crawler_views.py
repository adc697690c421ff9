"""/robots.txt, /sitemap.xml and /sitemap-<n>.xml: thin views over :mod:`catalog.formats.sitemap`."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from catalog.formats import sitemap
from catalog.pages import languages
from catalog.runtime import catalog_of
from catalog.web.conditional import set_last_modified
from catalog.web.inputs import Input, varies_on
from catalog.web.origin import base_url
from catalog.web.response_cache import mark_cacheable

XML = "application/xml"


@varies_on(Input.ORIGIN, query=())
@require_safe
def robots_txt(request: HttpRequest) -> HttpResponse:
    body = sitemap.robots_txt(f"{base_url(request)}/sitemap.xml")
    return mark_cacheable(HttpResponse(body, content_type="text/plain; charset=utf-8"))


@varies_on(Input.ORIGIN, query=())
@require_safe
def sitemap_xml(request: HttpRequest) -> HttpResponse:
    catalog = catalog_of(request)
    body = sitemap.sitemap_xml(catalog, base_url(request), languages.sitemap_languages())
    response = mark_cacheable(HttpResponse(body, content_type=XML))
    if catalog.ledger:
        set_last_modified(response, catalog.ledger.latest)
    return response


@varies_on(Input.ORIGIN, query=())
@require_safe
def sitemap_page_xml(request: HttpRequest, number: int) -> HttpResponse:
    catalog = catalog_of(request)

    body = sitemap.sitemap_page_xml(catalog, base_url(request), number, languages.sitemap_languages())
    if body is None:
        raise Http404(f"no sitemap page {number}")
    response = mark_cacheable(HttpResponse(body, content_type=XML))
    if catalog.ledger:
        set_last_modified(response, catalog.ledger.latest)
    return response
