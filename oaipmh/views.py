"""The OAI-PMH endpoint: rate limit, read the arguments, answer with :mod:`oaipmh.protocol`."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.views.decorators.csrf import csrf_exempt

from catalog import runtime
from catalog.runtime import get_catalog
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
    with runtime.span("oaipmh.render", **{"oai.verb": verb[:40]}):
        body = protocol.respond({name: arguments.getlist(name) for name in arguments}, get_catalog(), oai_settings())
    return HttpResponse(body, content_type=CONTENT_TYPE)
