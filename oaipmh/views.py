"""The OAI-PMH endpoint: per-client limits, read the arguments (bounded), answer with :mod:`oaipmh.protocol`."""

from __future__ import annotations

import gevent
from django.conf import settings
from django.core.exceptions import TooManyFieldsSent
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, QueryDict
from django.views.decorators.csrf import csrf_exempt
from gevent import monkey

from catalog import runtime
from catalog.domain.memo import memo_for
from catalog.domain.model import Catalog
from catalog.runtime import get_catalog
from catalog.web import wire
from catalog.web.client import request_client
from oaipmh import protocol, ratelimit
from oaipmh.ratelimit import TokenBucket, store_for
from oaipmh.repository import repository_for

CONTENT_TYPE = "text/xml; charset=utf-8"


def oai_settings() -> protocol.OaiSettings:
    """The protocol's settings, read once from the configuration."""
    config = settings.SVC
    return protocol.OaiSettings(
        base_url=config.oai_base_url,
        repository_name=config.oai_repository_name,
        admin_email=config.oai_admin_email,
        repository_identifier=config.oai_repository_identifier,
        page_size=config.oai_page_size,
    )


def warm_up() -> None:
    """Build the OAI view of the catalogue before workers fork, so they share it and none pays for it."""
    config = settings.SVC
    repository_for(get_catalog(), config.oai_repository_identifier, protocol.site_url(config.oai_base_url))


# OAI-PMH arguments fit in a few hundred bytes; the limit leaves room for long identifiers and tokens.
MAX_FORM_BYTES = 8 * 1024
FORM_CONTENT_TYPE = "application/x-www-form-urlencoded"


def _too_busy(retry_after: int) -> HttpResponse:
    return HttpResponse(
        f"Too many requests: retry in {retry_after} s.\n",
        status=503,
        content_type="text/plain; charset=utf-8",
        headers={"Retry-After": str(retry_after)},
    )


# How long a request waits at most for the others its worker has received to catch up.
_CATCH_UP_SECONDS = 0.001


def _yield_to_received_requests() -> None:
    """Let the requests this worker has already received run up to the limit too (gevent workers only).

    A gevent worker runs one request until it waits for the network, and a
    view never does: without this, two requests of one client would never be
    seen in flight together. Waiting for the event loop to be idle (1 ms at
    most, under a flood) lets every received request start and count itself.
    """
    if monkey.is_module_patched("socket"):
        with gevent.Timeout(_CATCH_UP_SECONDS, False):
            gevent.idle()


@csrf_exempt
def endpoint(request: HttpRequest) -> HttpResponse:
    config = settings.SVC
    client = request_client(request.META, config.trusted_proxy_hops)
    in_flight = ratelimit.in_flight.enter(client, config.oai_max_concurrent)
    if in_flight is None:
        return _too_busy(1)
    try:
        # Let the other requests this worker has already received run up to here first: under
        # gevent a view never yields by itself, so without this no request would ever see another.
        _yield_to_received_requests()
        if in_flight > 1:  # only requests overlapping another of the same client pay the rate limit
            decision = TokenBucket(
                store_for(config.cache_url), config.oai_rate_limit_per_second, config.oai_rate_limit_burst
            ).take(client)
            if not decision.allowed:
                return _too_busy(decision.retry_after)
        return _answer(request)
    finally:
        ratelimit.in_flight.leave(client)


def _answer(request: HttpRequest) -> HttpResponse:
    if request.method not in ("GET", "HEAD", "POST"):
        return HttpResponseNotAllowed(["GET", "HEAD", "POST"])
    if request.method == "POST":
        arguments = _form(request)
        if isinstance(arguments, HttpResponse):
            return arguments
    else:
        arguments = {name: request.GET.getlist(name) for name in request.GET}
    verb = (arguments.get("verb") or [""])[0]
    catalog = get_catalog()
    with runtime.span("oaipmh.render", **{"oai.verb": verb[:40]}):
        body = protocol.respond(arguments, catalog, oai_settings())
    response = HttpResponse(body, content_type=CONTENT_TYPE)
    # Rate-limited per client and stamped with the moment: any cache must ask again every time.
    response["Cache-Control"] = "no-cache"
    if sum(len(name) + sum(map(len, given)) for name, given in arguments.items()) <= MAX_KEY_LENGTH:
        memo = memo_for(catalog)
        key = (memo.settings_key(settings.SVC), *((name, tuple(given)) for name, given in arguments.items()))
        response["ETag"] = _entity_tag(catalog, key, body)
        # The compressed variants are kept per responseDate: at most one compression a second per URL.
        wire.mark_stable(response, wire.Stable(catalog.data_version, ("oai", *key, _response_date(body))))
    return response


MAX_KEY_LENGTH = 2048  # longer requests get no validator and are compressed on every request
_DATE_START = len(protocol.XML_HEAD) + len(b"<responseDate>")
_DATE_END = _DATE_START + len(b"2000-01-01T00:00:00Z")


def _response_date(body: bytes) -> bytes:
    return body[_DATE_START:_DATE_END]


def _entity_tag(catalog: Catalog, key: tuple, body: bytes) -> str:
    """Weak: two answers that differ only in responseDate are the same answer (§8.8.1), not the same bytes.

    The tag covers everything after responseDate, so it stays put while the
    data version and the request do, and is computed once per request and data version.
    """

    def tag() -> bytes:
        return wire.entity_tag(catalog.data_version, body[_DATE_END:], weak=True).encode()

    return memo_for(catalog).page(("oai-etag", *key), tag).decode()


def _form(request: HttpRequest) -> dict[str, list[str]] | HttpResponse:
    """The arguments of a POST, read into memory only: a form of at most :data:`MAX_FORM_BYTES`.

    OAI-PMH (§3.1.1.2) sends POST arguments as ``application/x-www-form-urlencoded``;
    anything else (a multipart upload in particular) is a badArgument, answered
    without reading the body, so nothing is ever spooled to disk.
    """
    if request.content_type != FORM_CONTENT_TYPE:
        return _bad_argument(f"POST arguments must be sent as {FORM_CONTENT_TYPE}")
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = -1
    if not 0 <= length <= MAX_FORM_BYTES:
        return HttpResponse(
            f"The request body is larger than {MAX_FORM_BYTES} bytes.\n",
            status=413,
            content_type="text/plain; charset=utf-8",
        )
    body = request.read(MAX_FORM_BYTES + 1)
    try:
        form = QueryDict(body, encoding="utf-8")
    except TooManyFieldsSent:
        return _bad_argument("too many arguments")
    return {name: form.getlist(name) for name in form}


def _bad_argument(message: str) -> HttpResponse:
    return HttpResponse(protocol.bad_argument(message, oai_settings()), content_type=CONTENT_TYPE)
