"""/robots.txt, /sitemap.xml and /sitemap-<n>.xml: thin views over :mod:`catalog.formats.sitemap`."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from catalog.formats import sitemap
from catalog.pages import languages
from catalog.runtime import get_catalog
from catalog.web.origin import base_url

XML = "application/xml"


@require_safe
def robots_txt(request: HttpRequest) -> HttpResponse:
    body = sitemap.robots_txt(f"{base_url(request)}/sitemap.xml")
    return HttpResponse(body, content_type="text/plain; charset=utf-8")


@require_safe
def sitemap_xml(request: HttpRequest) -> HttpResponse:
    body = sitemap.sitemap_xml(get_catalog(), base_url(request), languages.sitemap_languages())
    return HttpResponse(body, content_type=XML)


@require_safe
def sitemap_page_xml(request: HttpRequest, number: int) -> HttpResponse:
    body = sitemap.sitemap_page_xml(get_catalog(), base_url(request), number, languages.sitemap_languages())
    if body is None:
        raise Http404(f"no sitemap page {number}")
    return HttpResponse(body, content_type=XML)
