"""Admission to the OAI-PMH endpoint: per-client limits, before any answer (a replayed one included)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gevent
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from gevent import monkey

from catalog import runtime
from catalog.runtime import OaiUnavailable
from catalog.web.client import request_client
from catalog.web.fleet import fleet_release
from catalog.web.ratelimit import Limits, RedisStore, TokenBucket
from oaipmh.leases import FleetLeases, Lease

# How long a request waits at most for the others its worker has received to catch up.
_CATCH_UP_SECONDS = 0.001


def _too_busy(retry_after: int) -> HttpResponse:
    return HttpResponse(
        f"Too many requests: retry in {retry_after} s.\n",
        status=503,
        content_type="text/plain; charset=utf-8",
        headers={"Retry-After": str(retry_after), "Cache-Control": "no-store"},  # one request's answer
    )


def _unavailable(why: OaiUnavailable) -> HttpResponse:
    """No release this process may answer from now: harvesters retry then (OAI-PMH 2.0 §3.1.2.1: 503)."""
    return HttpResponse(
        why.reason + "\n",
        status=503,
        content_type="text/plain; charset=utf-8",
        headers={"Retry-After": str(max(why.retry_after, 1)), "Cache-Control": "no-store"},
    )


def _yield_to_received_requests() -> None:
    """Let the requests this worker has already received run up to the limit too (gevent workers only).

    A gevent worker runs one request until it waits for the network, and a
    view never does: without this, two requests of one client would never be
    seen in flight together. Waiting for the event loop to be idle (1 ms at
    most, under a flood) lets every received request start and count itself.
    """
    if monkey.is_module_patched("socket"):
        gevent.with_timeout(_CATCH_UP_SECONDS, gevent.idle, timeout_value=None)


class AdmissionMiddleware:
    """At most ``SVC_OAI_MAX_CONCURRENT`` requests of a client in flight; overlapping ones pay the token bucket.

    A middleware rather than part of the view, and outside the response
    cache (:mod:`svc_site.cache`), so that a request answered from a kept
    response is admitted like any other.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        path = settings.SVC.oai_path
        self.paths = frozenset({f"/{path}", f"/{path}/"})

    @staticmethod
    def limits(limits: Limits, config: Any) -> tuple[TokenBucket, FleetLeases | None]:
        """The token bucket of ``config`` and, with Redis, its fleet-wide leases (a few steps; the store is the
        state's)."""
        store = limits.store_for(config.cache_url)
        bucket = TokenBucket(store, config.oai_rate_limit_per_second, config.oai_rate_limit_burst)
        return bucket, FleetLeases(store, config.oai_lease_seconds) if isinstance(store, RedisStore) else None

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info not in self.paths:
            return self.get_response(request)
        state, moment = runtime.state_of(request), runtime.moment_of(request)
        config = settings.SVC
        limits = state.oai_limits
        fleet = fleet_release(limits, config.cache_url)
        unavailable = state.oai_unavailable(moment, fleet.newest() if fleet is not None else None)
        if unavailable is not None:
            return _unavailable(unavailable)
        client = request_client(request.META, config.trusted_proxy_hops)
        in_flight = limits.in_flight.enter(client, config.oai_max_concurrent)
        if in_flight is None:
            return _too_busy(1)
        bucket, leases = self.limits(limits, config)
        lease: Lease | None = None
        try:
            if leases is not None:  # with Redis: the client's requests on other workers and replicas count too
                lease = leases.enter(client, config.oai_max_concurrent)
                if lease is None:
                    return _too_busy(1)
            # Let the other requests this worker has already received run up to here first: under
            # gevent a request never yields by itself, so without this no request would ever see another.
            _yield_to_received_requests()
            if in_flight > 1:  # only requests overlapping another of the same client pay the rate limit
                decision = bucket.take(client)
                if not decision.allowed:
                    return _too_busy(decision.retry_after)
            return self.get_response(request)
        finally:
            if lease is not None:
                lease.release()
            limits.in_flight.leave(client)
