"""Responses that are a pure function of their URL: marked stable, so the wire middleware can tag and keep them."""

from __future__ import annotations

from collections.abc import Callable, Hashable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from catalog.domain.memo import CatalogMemo, memo_for
from catalog.domain.model import Catalog
from catalog.web import wire


def url_key(request: HttpRequest, memo: CatalogMemo) -> tuple[Hashable, ...]:
    return ("url", *wire.request_key(request.META), memo.settings_key(settings.SVC))


def stable(request: HttpRequest, catalog: Catalog, response: HttpResponse) -> HttpResponse:
    """Mark ``response`` as a pure function of the data version, the URL and the configuration."""
    wire.mark_stable(response, wire.Stable(catalog.data_version, url_key(request, memo_for(catalog))))
    return response


def kept_response(
    request: HttpRequest, catalog: Catalog, render: Callable[[], bytes], content_type: str
) -> HttpResponse:
    """A response that is a pure function of its URL, rendered once per data version and kept like a page."""
    memo = memo_for(catalog)
    key = url_key(request, memo)
    response = HttpResponse(memo.page(key, render), content_type=content_type)
    wire.mark_stable(response, wire.Stable(catalog.data_version, key))
    return response
