"""The bytes a response goes out as: compression, validators, 304s and Cache-Control.

One middleware applies :mod:`catalog.web.wire` to every surface (pages, API,
sitemap, robots, citations, OAI). Views only say which responses are stable
(:class:`catalog.web.wire.Stable`); for those the entity tag and each
compressed variant are computed once and kept in the catalogue's page cache
next to the body, so a warm compressed response is a lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers

from catalog import runtime
from catalog.web import wire

# A missing page is as stable as a page, but a client may soon ask for one that appears: a short life.
CACHEABLE_ERRORS = {404, 410}
# Any other error (400, 405, 503 rate limit, 5xx) describes one request, not the resource.
NO_STORE = "no-store"
SAFE_METHODS = ("GET", "HEAD")


class WireMiddleware:
    """Negotiates the coding, tags, answers preconditions, and says how long caches may keep it.

    A HEAD is treated as a GET here (same headers, ``Content-Length`` included);
    its body is dropped in one place for every response, at the WSGI boundary
    (:func:`svc_site.server.without_head_bodies`).

    Sits outside every middleware that adds headers, so it sees the final
    body; skips streamed responses (WhiteNoise's static files carry their
    own precompressed variants and validators).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        config = settings.SVC
        self.cache_control = wire.cache_control(config.http_max_age, config.http_stale_while_revalidate)
        self.error_cache_control = wire.cache_control(config.http_max_age, 0)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.streaming or response.has_header("Content-Encoding"):
            return response
        stable = wire.stable_of(response) if response.status_code == 200 else None
        safe = request.method in SAFE_METHODS
        if safe and not response.has_header("Cache-Control"):
            response["Cache-Control"] = self.cache_control_of(response.status_code, stable)
        body = response.content
        coding = _negotiated_coding(request, response, body)
        cache = runtime.state_of(request).responses.get_or_render if stable is not None else None
        if stable is not None:
            tag = response.get("ETag") or _kept(cache, stable, "etag", lambda: _tag(stable, body)).decode()
            response["ETag"] = wire.coded_tag(tag, coding)
        if safe and response.status_code == 200 and _not_modified_for(request, response):
            return _not_modified(response)
        if coding != wire.IDENTITY:
            body = _kept(cache, stable, coding, lambda: wire.encode(body, coding))
            response["Content-Encoding"] = coding
            response.content = body
        response["Content-Length"] = str(len(body))  # a HEAD's too: its body is dropped at the WSGI boundary
        return response

    def cache_control_of(self, status: int, stable: wire.Stable | None) -> str:
        """How long shared caches may keep a response to a GET or HEAD with ``status``."""
        if stable is not None:
            return self.cache_control
        if status in CACHEABLE_ERRORS or status in (301, 308):
            return self.error_cache_control
        return NO_STORE


def _negotiated_coding(request: HttpRequest, response: HttpResponse, body: bytes) -> str:
    """The coding ``body`` goes out in; a compressible body's response varies on ``Accept-Encoding``."""
    if len(body) < wire.MIN_COMPRESS_BYTES or not wire.is_compressible(response.get("Content-Type", "")):
        return wire.IDENTITY
    vary = response.get("Vary")
    if vary is None:
        response["Vary"] = "Accept-Encoding"
    elif "accept-encoding" not in vary.lower():
        patch_vary_headers(response, ("Accept-Encoding",))  # adds to what the view set
    return wire.negotiate(request.META.get("HTTP_ACCEPT_ENCODING"))


def _not_modified_for(request: HttpRequest, response: HttpResponse) -> bool:
    return wire.is_not_modified(
        request.META.get("HTTP_IF_NONE_MATCH"),
        request.META.get("HTTP_IF_MODIFIED_SINCE"),
        response.get("ETag"),
        response.get("Last-Modified"),
    )


def _kept(
    cache: Callable[[Hashable, Callable[[], bytes]], bytes] | None,
    stable: wire.Stable | None,
    part: str,
    build: Callable[[], bytes],
) -> bytes:
    """``build()``, kept under the stable response's key (the data version is part of it)."""
    if cache is None or stable is None:
        return build()
    return cache(("wire", part, stable.data_version, stable.key), build)


def _tag(stable: wire.Stable, body: bytes) -> bytes:
    return wire.entity_tag(stable.data_version, body).encode()


def _not_modified(response: HttpResponse) -> HttpResponse:
    """The 304 keeps every header a 200 would carry except the body's own (§15.4.5)."""
    response.status_code = 304
    response.content = b""
    for header in ("Content-Type", "Content-Length", "Content-Disposition"):
        if header in response:
            del response[header]
    return response
