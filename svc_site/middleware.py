"""Request-level operations: one access line per request, request metrics, the data version header."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from catalog import runtime
from catalog.web.client import request_client
from svc_site.cache import REPLAYED_ATTRIBUTE
from svc_site.privacy import anonymize, redact_query

access_logger = logging.getLogger("svc.access")

DATA_VERSION_HEADER = "X-Data-Version"


class AccessLogMiddleware:
    """Logs method, path, redacted query, status, duration, a replay from the response cache, the client's network.

    First in MIDDLEWARE, so the duration covers every other middleware; the
    line is written inside the request's span (it carries the trace ids).
    gunicorn's own access log is off: this line knows the route and the
    client behind the trusted proxies, gunicorn's does not.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.trusted_hops = settings.SVC.trusted_proxy_hops

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        seconds = time.perf_counter() - started

        match = getattr(request, "resolver_match", None)
        route = "/" + match.route if match is not None else None
        runtime.state_of(request).telemetry.observe_request(request.method or "", route, response.status_code, seconds)
        if not access_logger.isEnabledFor(logging.INFO):
            return response  # RUST_LOG=svc.access=warn: no line, so nothing to redact or format

        query = redact_query(request.META.get("QUERY_STRING", ""))
        client = anonymize(request_client(request.META, self.trusted_hops))
        duration_ms = round(seconds * 1000, 3)
        cached = getattr(request, REPLAYED_ATTRIBUTE, False)
        access_logger.info(
            "%s %s%s %s %.1f ms%s",
            request.method,
            request.path,
            f"?{query}" if query else "",
            response.status_code,
            duration_ms,
            " cached" if cached else "",
            extra={
                "cached": cached,
                "method": request.method,
                "path": request.path,
                "query": query,
                "status": response.status_code,
                "duration_ms": duration_ms,
                "client": client,
            },
        )
        return response


class DataVersionMiddleware:
    """Gives the request the application state it is answered from, and names that state's data set.

    One state for the whole request (:func:`catalog.runtime.take_state`): a
    reload or a release's activation during it changes nothing it sees. The
    header lets a reload be checked on every replica.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        catalog = runtime.take_state(request).catalog
        response = self.get_response(request)
        if catalog is not None:
            response.headers.setdefault(DATA_VERSION_HEADER, catalog.data_version)
        return response
