"""Stable responses replayed whole, so that a warm request skips the URLconf, the inner middlewares and the view.

A response a view marks stable (:class:`catalog.web.wire.Stable`) is a pure
function of the data version, the configuration, the URL with its origin and
the request headers its ``Vary`` names. This middleware keeps such a 200 as the
view and the middlewares inside this one left it, keyed by exactly those
values, and answers the next request that matches with a copy. The wire
middleware outside it still negotiates the coding (``Accept-Encoding`` is not
part of the key), answers preconditions and HEAD, and says how long caches
may keep it. The entries live in the served catalogue's page cache: a reload
drops them, and their memory counts against its budget.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse

from catalog import runtime
from catalog.domain.memo import BytesLRU
from catalog.web import wire

SAFE_METHODS = ("GET", "HEAD")
# Worked out again for every response (length) or never given to another request (cookies).
NOT_REPLAYED = frozenset({"content-length", "set-cookie"})


@dataclass(frozen=True, slots=True)
class Replayable:
    """A stable 200 as it left the view and the inner middlewares."""

    stable: wire.Stable
    headers: tuple[tuple[str, str], ...]
    body: bytes
    resolver_match: Any  # the route the access log names, as if the URLconf had run

    def response(self) -> HttpResponse:
        response = HttpResponse(self.body, headers=dict(self.headers))
        wire.mark_stable(response, self.stable)
        return response

    def cost(self) -> int:
        """Bytes held besides the key: the body (counted even when the page cache holds the same bytes) and headers."""
        headers = sum(sys.getsizeof(name) + sys.getsizeof(value) for name, value in self.headers)
        return sys.getsizeof(self.body) + headers


class ReplayMiddleware:
    """Answers a GET or HEAD from a kept response when one matches; keeps every replayable 200 it passes on."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        state = runtime.state_of(request)
        if request.method not in SAFE_METHODS or state.catalog is None:
            return self.get_response(request)
        responses = state.responses
        url = ("replay", *wire.request_key(request.META))
        varying = responses.find(url)  # the request headers this URL's response varies on
        if isinstance(varying, tuple):
            kept = responses.find(_variant_key(url, varying, request))
            if isinstance(kept, Replayable) and time.time() < kept.stable.replay_until:
                request.resolver_match = kept.resolver_match
                return kept.response()
        response = self.get_response(request)
        _keep(responses, url, request, response)
        return response


def _variant_key(url: tuple[Hashable, ...], varying: tuple[str, ...], request: HttpRequest) -> Hashable:
    return (url, tuple(request.META.get(name) for name in varying))


def _keep(responses: BytesLRU, url: tuple[Hashable, ...], request: HttpRequest, response: HttpResponse) -> None:
    stable = wire.stable_of(response)
    if stable is None or response.status_code != 200 or response.streaming or response.cookies:
        return
    varying = wire.varying_request_keys(response.get("Vary"))
    if varying is None:
        return
    headers = tuple((name, value) for name, value in response.items() if name.lower() not in NOT_REPLAYED)
    replayable = Replayable(stable, headers, response.content, getattr(request, "resolver_match", None))
    responses.keep(url, varying, 0)
    responses.keep(_variant_key(url, varying, request), replayable, replayable.cost())
