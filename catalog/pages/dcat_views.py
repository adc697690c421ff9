"""The DCAT-AP catalogue: /catalogue/dcat.ttl, .rdf, .jsonld, and /catalogue/dcat negotiating among them.

Thin views over :mod:`catalog.formats.dcat`. Each body is rendered once per
data version, origin, path, page number and media type
(:func:`catalog.runtime.render_once`), however the request spells them, and
marked stable so the response cache keeps, compresses and tags it once.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_safe

from catalog.domain.paging import whole_number
from catalog.formats import dcat, links
from catalog.runtime import catalog_of, render_once
from catalog.web import accept, origin
from catalog.web.inputs import Input, Offers, varies_on
from catalog.web.response_cache import mark_cacheable

EXTENSIONS = {"ttl": "text/turtle", "rdf": "application/rdf+xml", "jsonld": "application/ld+json"}
OFFERED = tuple(EXTENSIONS.values())


def site(base_url: str) -> dcat.Site:
    config = settings.SVC
    return dcat.Site(
        base_url, config.oai_repository_name, config.oai_base_url, config.oai_admin_email, config.metadata_license
    )


def _not_acceptable() -> HttpResponse:
    types = "\n".join(OFFERED)
    response = HttpResponse(
        f"None of the accepted media types is offered. Offered:\n{types}\n", status=406, content_type="text/plain"
    )
    patch_vary_headers(response, ["Accept"])
    return response


@varies_on(Input.ORIGIN, query=("page",), offers=Offers(OFFERED))
@require_safe
def catalogue(request: HttpRequest, extension: str | None = None) -> HttpResponse:
    """Page ``?page=`` (from 1) of the catalogue in the format the extension names, or the client prefers."""
    negotiated = extension is None
    if extension is None:
        media_type = accept.preferred(request.META.get("HTTP_ACCEPT", "*/*"), OFFERED)  # */*: Turtle
        if media_type is None:
            return _not_acceptable()
    else:
        media_type = EXTENSIONS[extension]
    catalog = catalog_of(request)
    page = whole_number(request.GET.get("page", "1"))
    if page is None or page < 1:
        return HttpResponse("page: expected a whole number from 1.\n", status=400, content_type="text/plain")
    pages = dcat.catalogue_pages(catalog)
    if page > pages:
        return HttpResponse(f"page: the catalogue has {pages} page(s).\n", status=404, content_type="text/plain")
    base = origin.base_url(request)
    path = links.CATALOGUE_DCAT_PATH + ("" if negotiated else f".{extension}")

    def render() -> bytes:
        return dcat.serialise(dcat.catalogue_page(catalog, site(base), page, base + path + "?page={page}"), media_type)

    # However the request spells it (page=01, another Accept naming the same type): one rendering per variant.
    body = render_once(request, ("dcat", base, path, page, media_type), render)
    response = HttpResponse(body, content_type=f"{media_type}; charset=utf-8")
    if negotiated:
        patch_vary_headers(response, ["Accept"])
        query = f"?page={page}" if "page" in request.GET else ""
        response["Content-Location"] = f"{links.CATALOGUE_DCAT_PATH}.{_extension(media_type)}{query}"
    return mark_cacheable(response)


@varies_on(Input.ORIGIN, query=("page",))
@require_safe
def catalogue_file(request: HttpRequest, extension: str) -> HttpResponse:
    """The catalogue in the format its file extension names, whatever the client accepts."""
    return catalogue(request, extension)


def _extension(media_type: str) -> str:
    return next(extension for extension, media in EXTENSIONS.items() if media == media_type)
