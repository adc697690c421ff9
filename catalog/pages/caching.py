"""Responses that are a pure function of their URL: marked stable, so the wire middleware can tag and keep them."""

from __future__ import annotations

from collections.abc import Callable, Hashable

from django.http import HttpRequest, HttpResponse

from catalog.domain.model import Catalog
from catalog.runtime import state_of
from catalog.web import wire


def url_key(request: HttpRequest) -> tuple[Hashable, ...]:
    """The key of a body that depends on the URL and its origin (the configuration is the state's: not in it)."""
    return ("url", *wire.request_key(request.META))


def stable(request: HttpRequest, catalog: Catalog, response: HttpResponse) -> HttpResponse:
    """Mark ``response`` as a pure function of the data version, the URL and the configuration."""
    wire.mark_stable(response, wire.Stable(catalog.data_version, url_key(request)))
    return response


def kept_response(
    request: HttpRequest, catalog: Catalog, render: Callable[[], bytes], content_type: str
) -> HttpResponse:
    """A response that is a pure function of its URL, rendered once per data version and kept like a page."""
    key = url_key(request)
    response = HttpResponse(state_of(request).responses.get_or_render(key, render), content_type=content_type)
    wire.mark_stable(response, wire.Stable(catalog.data_version, key))
    return response
