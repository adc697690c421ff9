"""/robots.txt, /sitemap.xml and /sitemap-<n>.xml: thin views over :mod:`catalog.formats.sitemap`."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from catalog.formats import sitemap
from catalog.runtime import get_catalog
from catalog.web.conditional import set_last_modified

XML = "application/xml"


def _base_url(request: HttpRequest) -> str:
    """Scheme and host of this request: the sitemap names URLs of the site being crawled."""
    return request.build_absolute_uri("/").rstrip("/")


@require_safe
def robots_txt(request: HttpRequest) -> HttpResponse:
    body = sitemap.robots_txt(f"{_base_url(request)}/sitemap.xml")
    return HttpResponse(body, content_type="text/plain; charset=utf-8")


@require_safe
def sitemap_xml(request: HttpRequest) -> HttpResponse:
    catalog = get_catalog()
    response = HttpResponse(sitemap.sitemap_xml(catalog, _base_url(request)), content_type=XML)
    if catalog.ledger:
        set_last_modified(response, catalog.ledger.latest)
    return response


@require_safe
def sitemap_page_xml(request: HttpRequest, number: int) -> HttpResponse:
    catalog = get_catalog()
    body = sitemap.sitemap_page_xml(catalog, _base_url(request), number)
    if body is None:
        raise Http404(f"no sitemap page {number}")
    response = HttpResponse(body, content_type=XML)
    if catalog.ledger:
        set_last_modified(response, catalog.ledger.latest)
    return response
