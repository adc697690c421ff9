"""The OAI-PMH endpoint: rate limit, read the arguments, answer with :mod:`oaipmh.protocol`."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.views.decorators.csrf import csrf_exempt

from catalog import runtime
from catalog.domain.memo import memo_for
from catalog.domain.model import Catalog
from catalog.runtime import get_catalog
from catalog.web import wire
from catalog.web.client import request_client
from oaipmh import protocol
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


@csrf_exempt
def endpoint(request: HttpRequest) -> HttpResponse:
    config = settings.SVC
    client = request_client(request.META, config.trusted_proxy_hops)
    decision = TokenBucket(
        store_for(config.cache_url), config.oai_rate_limit_per_second, config.oai_rate_limit_burst
    ).take(client)
    if not decision.allowed:
        return HttpResponse(
            f"Too many requests: retry in {decision.retry_after} s.\n",
            status=503,
            content_type="text/plain; charset=utf-8",
            headers={"Retry-After": str(decision.retry_after)},
        )
    if request.method not in ("GET", "HEAD", "POST"):
        return HttpResponseNotAllowed(["GET", "HEAD", "POST"])
    arguments = request.POST if request.method == "POST" else request.GET
    verb = arguments.get("verb", "")
    catalog = get_catalog()
    values = {name: arguments.getlist(name) for name in arguments}
    with runtime.span("oaipmh.render", **{"oai.verb": verb[:40]}):
        body = protocol.respond(values, catalog, oai_settings())
    response = HttpResponse(body, content_type=CONTENT_TYPE)
    # Rate-limited per client and stamped with the moment: any cache must ask again every time.
    response["Cache-Control"] = "no-cache"
    if sum(len(name) + sum(map(len, given)) for name, given in values.items()) <= MAX_KEY_LENGTH:
        memo = memo_for(catalog)
        key = (memo.settings_key(config), *((name, tuple(given)) for name, given in values.items()))
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
