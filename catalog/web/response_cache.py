"""One response cache: a view's ``@varies_on`` declaration gives the key, the ``Vary`` header and the ETag.

A view says what its response depends on besides the data
(:func:`catalog.web.inputs.varies_on`) and marks a response it may share
(:func:`mark_cacheable`). From those two facts alone this module derives

- the key of the response: the data version, the path and the values of
  exactly the declared inputs (the query parameters the view reads, origin,
  negotiated language, ``Accept``); the configuration is not in it, the cache being the
  application state's, which a change of configuration replaces;
- the ``Vary`` header: ``Accept`` for the media type, what the language
  middleware reads for a page named without a language prefix, and
  ``Accept-Encoding`` for a compressible body;
- the ETag, from the body, once.

A kept response is one :class:`Variant`: its headers, its body and, beside it,
each compressed form once asked for, counted once against the byte budget.
A first entry per path (:func:`route_key`) records the route's declared
inputs, so a warm request finds its variant before the URL is resolved.
Only GET and HEAD are answered from the cache; a form (POST) never is.
Framework-free: requests are read as WSGI environs (PEP 3333), responses as
status, headers and body; the site's middleware (:mod:`svc_site.cache`)
applies it. The wire rules themselves are :mod:`catalog.web.wire`'s.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from catalog.domain.memo import BytesLRU
from catalog.web import wire
from catalog.web.accept import preferred
from catalog.web.inputs import Input, Offers, declared_query
from catalog.web.origin import origin_key

R = TypeVar("R")

SAFE_METHODS = ("GET", "HEAD")
# The request headers the language middleware reads for a page named without a language prefix.
LANGUAGE_HEADERS = ("Accept-Language", "Cookie")
# Worked out for each request (the coding's), or never given to another request (cookies).
NOT_KEPT = frozenset({"content-length", "content-encoding", "etag", "set-cookie"})
CACHEABLE_ATTRIBUTE = "svc_cacheable"
# A missing page is as stable as a page, but a client may soon ask for one that appears: a short life.
CACHEABLE_ERRORS = frozenset({404, 410, 301, 308})
# Any other answer (400, 405, 503 rate limit, 5xx) describes one request, not the resource.
NO_STORE = "no-store"


@dataclass(frozen=True, slots=True)
class Cacheable:
    """A view's word that a 200 depends only on the data and its declared inputs, until ``replay_until``.

    ``replay_until`` (a POSIX time) is for as long as the data version
    lasts, or to the end of the second an OAI-PMH response is dated.
    """

    replay_until: float = math.inf


def mark_cacheable(response: R, replay_until: float = math.inf) -> R:
    """Say that ``response`` (any framework's response object) may be kept and given to matching requests."""
    setattr(response, CACHEABLE_ATTRIBUTE, Cacheable(replay_until))
    return response


def cacheable_of(response: object) -> Cacheable | None:
    found = getattr(response, CACHEABLE_ATTRIBUTE, None)
    return found if isinstance(found, Cacheable) else None


def route_key(path: str) -> tuple[str, str]:
    """The first-level entry of ``path``: the inputs its route declared (the route is a function of the path)."""
    return ("route", path)


def variant_key(
    data_version: str,
    path: str,
    inputs: frozenset[Input],
    meta: Mapping[str, Any],
    language: str | None,
    parameters: frozenset[str] | None = None,
    offers: Offers | None = None,
) -> tuple[Hashable, ...]:
    """The key of a response to the request ``meta``: the data version, the path and each declared input's value.

    ``language`` is the request's negotiated language (the URL's prefix, else
    the cookie, else ``Accept-Language``); it counts only where declared.
    Of the query string, only the ``parameters`` the view reads count
    (:func:`catalog.web.inputs.declared_query`): ``?utm_source=x`` or a fresh
    ``?zz=N`` finds the kept response.
    The values are the client's, unbounded in kind: the store is bounded in
    bytes, keys included (:class:`catalog.domain.memo.BytesLRU`).
    """
    key: list[Hashable] = ["variant", data_version, path]
    if Input.QUERY in inputs:
        key.append(declared_query(meta.get("QUERY_STRING", ""), parameters))
    if Input.ORIGIN in inputs:
        key.extend(origin_key(meta))
    if Input.LANGUAGE in inputs:
        key.append(language)
    if Input.MEDIA_TYPE in inputs:
        key.append(media_key(meta.get("HTTP_ACCEPT"), offers))
    return tuple(key)


def media_key(header: str | None, offers: Offers | None) -> Hashable:
    """What the key holds of ``Accept``: the type it chooses when the route always offers that type, else the header.

    ``Accept: text/html, x/1`` and ``text/html, x/2`` choose the same page: one
    entry. A type offered on some of the route's URLs only (an export of some
    entities) may not be chosen on another URL, so such a choice keeps the
    header as sent (those answers are redirects, never kept anyway).
    """
    if offers is None:
        return header
    chosen = preferred(header if header is not None else "*/*", (*offers.always, *offers.sometimes))
    return ("chosen", chosen) if chosen in offers.always else header


def vary(inputs: Iterable[Input], *, language_negotiated: bool, compressible: bool, given: str | None) -> str | None:
    """The ``Vary`` of a response: what it already names, then each of ``inputs``' headers it lacks.

    ``inputs`` are the declared ones for a response the cache may keep; any
    other answer (an error, a redirect) names its own and gets only the coding.

    The language is a header input only where the URL has no language prefix
    (``language_negotiated``); the coding only for a body that is compressed.
    """
    declared = frozenset(inputs)
    derived: list[str] = ["Accept"] if Input.MEDIA_TYPE in declared else []
    if Input.LANGUAGE in declared and language_negotiated:
        derived.extend(LANGUAGE_HEADERS)
    if compressible:
        derived.append("Accept-Encoding")
    names = [name.strip() for name in (given or "").split(",") if name.strip()]
    named = {name.lower() for name in names}
    names.extend(name for name in derived if name.lower() not in named)
    return ", ".join(names) or None


def shared(vary: str | None) -> bool:
    """Whether a response with this ``Vary`` may be given to another request (``*``: never, RFC 9110 §12.5.5)."""
    return vary is None or "*" not in {name.strip() for name in vary.split(",")}


def is_compressible(content_type: str, body: bytes) -> bool:
    """Whether ``body`` goes out compressed to a client that asks: a text type, and long enough to gain."""
    return len(body) >= wire.MIN_COMPRESS_BYTES and wire.is_compressible(content_type)


@dataclass(frozen=True, slots=True)
class Policy:
    """How long shared caches may keep a response (``Cache-Control``), from the configuration."""

    cacheable: str
    error: str

    def cache_control(self, status: int, cacheable: bool) -> str:
        """The ``Cache-Control`` of a response to a GET or HEAD with ``status`` that sets none itself."""
        if cacheable and status == 200:
            return self.cacheable
        return self.error if status in CACHEABLE_ERRORS else NO_STORE


# Guards every kept variant's compressed forms (held for a dictionary insert: one lock, not one per entry).
_CODED = threading.Lock()


@dataclass(eq=False, slots=True)
class Variant:
    """A response as kept: its headers, its body, its tag and its compressed forms, in one entry.

    ``route`` is what the framework names the route by (the access log's),
    restored on a replay as if the URL had been resolved: something small and
    shared by the route's entries (not the resolution of one request, which
    holds every pattern it tried).
    """

    headers: tuple[tuple[str, str], ...]
    body: bytes
    tag: str
    compressible: bool
    replay_until: float = math.inf
    route: Any = None
    coded: dict[str, bytes] = field(default_factory=dict)

    @classmethod
    def of(cls, headers: Iterable[tuple[str, str]], body: bytes, tag: str, replay_until: float, route: Any) -> Variant:
        kept = tuple((name, value) for name, value in headers if name.lower() not in NOT_KEPT)
        content_type = next((value for name, value in kept if name.lower() == "content-type"), "")
        return cls(kept, body, tag, is_compressible(content_type, body), replay_until, route)

    def coding_for(self, accept_encoding: str | None) -> str:
        return wire.negotiate(accept_encoding) if self.compressible else wire.IDENTITY

    def body_in(self, coding: str) -> tuple[bytes, bool]:
        """The body in ``coding``, and whether it was compressed now (the entry then costs more)."""
        if coding == wire.IDENTITY:
            return self.body, False
        found = self.coded.get(coding)
        if found is not None:
            return found, False
        encoded = wire.encode(self.body, coding)  # two threads may both encode; the bytes are equal
        with _CODED:
            self.coded[coding] = encoded
        return encoded, True

    def cost(self) -> int:
        """Bytes the entry holds besides its key: every object of it, so that small responses count true too.

        The variant itself, its headers (the tuples and their strings), the
        body once, the table of compressed forms and each form, the tag and
        the route's pair. A small answer (robots.txt for one of many ``Host``
        headers) is mostly these, not its body: counting only the bodies let
        such entries fill four times the budget (issue 39).
        """
        headers = sys.getsizeof(self.headers) + sum(
            sys.getsizeof(pair) + sys.getsizeof(pair[0]) + sys.getsizeof(pair[1]) for pair in self.headers
        )
        with _CODED:
            coded = sys.getsizeof(self.coded) + sum(sys.getsizeof(body) for body in self.coded.values())
        route = sys.getsizeof(self.route) if isinstance(self.route, tuple) else 0
        return sys.getsizeof(self) + headers + sys.getsizeof(self.body) + coded + sys.getsizeof(self.tag) + route


def find(
    store: BytesLRU, data_version: str, meta: Mapping[str, Any], language: Any, now: float
) -> tuple[tuple[Hashable, ...], Variant] | None:
    """The kept variant that answers the request ``meta``, with its key; None before the route was seen.

    ``language`` is called (no argument) only for a route that declared it.
    """
    path = meta.get("PATH_INFO", "")
    route = store.find(route_key(path))
    if not isinstance(route, Route):
        return None
    inputs = route.inputs
    language_value = language() if Input.LANGUAGE in inputs else None
    key = variant_key(data_version, path, inputs, meta, language_value, route.parameters, route.offers)
    variant = store.find(key)
    if isinstance(variant, Variant) and now < variant.replay_until:
        return key, variant
    return None


@dataclass(frozen=True, slots=True)
class Route:
    """What a route's view declared: its inputs and the query parameters it reads (None: the whole query)."""

    inputs: frozenset[Input]
    parameters: frozenset[str] | None = None
    offers: Offers | None = None


def keep(store: BytesLRU, key: tuple[Hashable, ...], path: str, route: Route, variant: Variant) -> None:
    """Keep ``variant`` under ``key``, and the route's declaration under its path."""
    store.keep(route_key(path), route, 0)
    store.keep(key, variant, variant.cost())


def grown(store: BytesLRU, key: tuple[Hashable, ...], variant: Variant) -> None:
    """Count a new compressed form of a kept variant (kept again under its key, at its new cost)."""
    store.keep(key, variant, variant.cost())
