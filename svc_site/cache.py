"""The one place a response's bytes are decided: the response cache, compression, validators, 304s, HEAD.

Applies :mod:`catalog.web.response_cache` to every surface (pages, API,
sitemap, robots, citations, OAI-PMH). A view declares what it varies on
(``@varies_on``) and marks what may be shared (``mark_cacheable``); from
those this middleware keys, tags and keeps the response, names its ``Vary``,
and answers the next matching GET or HEAD before the URL is resolved, so a
warm request skips the language and URL machinery and the view. Every
response, kept or not, gets its coding negotiated, its preconditions
answered and its ``Cache-Control`` here. A HEAD is answered like a GET
(``Content-Length`` included); its body is dropped at the WSGI boundary
(:func:`svc_site.server.without_head_bodies`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation

from catalog import runtime
from catalog.web import response_cache, wire
from catalog.web.inputs import Input, declared_inputs
from catalog.web.response_cache import SAFE_METHODS, Variant

Encoded = Callable[[str], bytes]


class ResponseCacheMiddleware:
    """Answers from a kept variant when one matches; otherwise finishes and, if it may, keeps the view's answer.

    Skips streamed responses (WhiteNoise's static files carry their own
    precompressed variants and validators).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        config = settings.SVC
        self.policy = response_cache.Policy(
            wire.cache_control(config.http_max_age, config.http_stale_while_revalidate),
            wire.cache_control(config.http_max_age, 0),
        )

    def __call__(self, request: HttpRequest) -> HttpResponse:
        state = runtime.state_of(request)
        catalog = state.catalog if request.method in SAFE_METHODS else None
        if catalog is not None:
            found = response_cache.find(
                state.responses, catalog.data_version, request.META, lambda: _language(request), time.time()
            )
            if found is not None:
                key, variant = found
                request.resolver_match = variant.route
                return _from_variant(request, key, variant)
        response = self.get_response(request)
        if response.streaming or response.has_header("Content-Encoding"):
            return response
        return self.finish(request, response, catalog is not None)

    def finish(self, request: HttpRequest, response: HttpResponse, storable: bool) -> HttpResponse:
        """Name the response's ``Vary`` and ``Cache-Control``, keep it if it may be, and send it."""
        match = getattr(request, "resolver_match", None)
        inputs = declared_inputs(match.func) if match is not None else None
        cacheable = response_cache.cacheable_of(response)
        body = response.content
        compressible = response_cache.is_compressible(response.get("Content-Type", ""), body)
        vary = response_cache.vary(
            inputs if inputs is not None and cacheable is not None else (),  # other answers name their own
            language_negotiated=_language_negotiated(request),
            compressible=compressible,
            given=response.get("Vary"),
        )
        if vary:
            response["Vary"] = vary
        if request.method in SAFE_METHODS and not response.has_header("Cache-Control"):
            response["Cache-Control"] = self.policy.cache_control(response.status_code, cacheable is not None)
        if cacheable is None or response.status_code != 200:
            return _send(request, response, None, compressible, lambda coding: wire.encode(body, coding))
        catalog = runtime.state_of(request).catalog
        assert catalog is not None  # a view marked it: it was answered from the catalogue
        tag = response.get("ETag") or wire.entity_tag(catalog.data_version, body)
        if not storable or inputs is None or response.cookies or not response_cache.shared(vary):
            return _send(request, response, tag, compressible, lambda coding: wire.encode(body, coding))
        variant = Variant.of(response.items(), body, tag, cacheable.replay_until, match)
        language = _language(request) if Input.LANGUAGE in inputs else None
        path = request.META.get("PATH_INFO", "")  # as the lookup reads it, before the URL is resolved
        key = response_cache.variant_key(catalog.data_version, path, inputs, request.META, language)
        response_cache.keep(runtime.state_of(request).responses, key, path, inputs, variant)
        return _from_variant(request, key, variant)


def _language(request: HttpRequest) -> str:
    """The request's negotiated language: the URL's prefix, else the cookie, else Accept-Language (Django's rule)."""
    return translation.get_language_from_request(request, check_path=True)


def _language_negotiated(request: HttpRequest) -> bool:
    """Whether the language of a page comes from the request's headers: a GET or HEAD of an unprefixed URL."""
    return request.method in SAFE_METHODS and translation.get_language_from_path(request.path_info) is None


def _from_variant(request: HttpRequest, key: tuple[Hashable, ...], variant: Variant) -> HttpResponse:
    response = HttpResponse(headers=dict(variant.headers))

    def encoded(coding: str) -> bytes:
        body, grown = variant.body_in(coding)
        if grown:
            response_cache.grown(runtime.state_of(request).responses, key, variant)
        return body

    return _send(request, response, variant.tag, variant.compressible, encoded)


def _send(
    request: HttpRequest, response: HttpResponse, tag: str | None, compressible: bool, encoded: Encoded
) -> HttpResponse:
    """Negotiate the coding, tag the representation, answer the preconditions, set the body and its length."""
    coding = wire.negotiate(request.META.get("HTTP_ACCEPT_ENCODING")) if compressible else wire.IDENTITY
    if tag is not None:
        response["ETag"] = wire.coded_tag(tag, coding)
    if request.method in SAFE_METHODS and response.status_code == 200 and _not_modified_for(request, response):
        return _not_modified(response)
    body = encoded(coding)
    if coding != wire.IDENTITY:
        response["Content-Encoding"] = coding
    response.content = body
    response["Content-Length"] = str(len(body))  # a HEAD's too: its body is dropped at the WSGI boundary
    return response


def _not_modified_for(request: HttpRequest, response: HttpResponse) -> bool:
    return wire.is_not_modified(
        request.META.get("HTTP_IF_NONE_MATCH"),
        request.META.get("HTTP_IF_MODIFIED_SINCE"),
        response.get("ETag"),
        response.get("Last-Modified"),
    )


def _not_modified(response: HttpResponse) -> HttpResponse:
    """The 304 keeps every header a 200 would carry except the body's own (§15.4.5)."""
    response.status_code = 304
    response.content = b""
    for header in ("Content-Type", "Content-Length", "Content-Disposition"):
        if header in response:
            del response[header]
    return response
