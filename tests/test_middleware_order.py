"""The middleware stack, pinned: each position is a property of every response (issue 25).

Django runs ``MIDDLEWARE`` outside in on the way in and inside out on the way
out, so a middleware sees only what the ones inside it produced. The list
below is the order with the reason for each place; the tests after it check
those properties on a real `svc serve`, so a reordering that breaks one fails
by what a client meets, not only by the list.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator

import pytest
from django.conf import settings

from tests.conftest import SAMPLE_DIR, Server, start_server, stop_server
from tests.http_support import fetch
from tests.oai_support import OAI_PATH

# Outermost first, each with why it sits there.
STACK = (
    # First: its duration covers every other middleware, and it logs the status the client gets.
    ("svc_site.middleware.AccessLogMiddleware", "times and logs everything below it"),
    # Takes the application state once, before anything inside reads it; names its data version on every
    # response, 304s and replays included.
    ("svc_site.middleware.DataVersionMiddleware", "one application state per request"),
    # Outside the cache: only adds headers, so a kept, replayed or 304 answer carries them like a fresh one.
    ("django.middleware.security.SecurityMiddleware", "nosniff, Referrer-Policy, COOP on every answer"),
    # Outside admission and the cache: a refused or replayed answer carries the policy too.
    ("svc_site.security.SecurityHeadersMiddleware", "CSP and framing ban on every answer"),
    # Outside the cache: a request answered from a kept response is admitted like any other; its refusals
    # say no-store themselves.
    ("oaipmh.middleware.AdmissionMiddleware", "OAI limits before any answer"),
    # Outside everything a view's response depends on (static files, language, the URLconf, the view): a kept
    # variant is answered before the URL is resolved, and every body leaving the views is final here, so it
    # is keyed, tagged, compressed, answered 304 or HEAD and given Cache-Control in this one place.
    ("svc_site.cache.ResponseCacheMiddleware", "the one response cache: keys, Vary, ETag, 304, coding"),
    # Before the language: static files are never localised or redirected to a language prefix.
    ("whitenoise.middleware.WhiteNoiseMiddleware", "static files, as they are"),
    ("catalog.pages.languages.LanguageMiddleware", "the interface language of the pages"),
    # Innermost: its redirects (a missing slash) are answers of the URLconf's, localised like the pages.
    ("django.middleware.common.CommonMiddleware", "URL normalisation next to the URLconf"),
)


def test_the_stack_is_pinned():
    assert list(settings.MIDDLEWARE) == [name for name, _ in STACK]


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    started = start_server(
        SAMPLE_DIR,
        {
            "SVC_WORKERS": "1",  # the OAI concurrency limit counts per worker
            "SVC_OAI_RATE_LIMIT_PER_SECOND": "0.001",
            "SVC_OAI_RATE_LIMIT_BURST": "1",
            "SVC_OAI_MAX_CONCURRENT": "1",
        },
    )
    yield started
    stop_server(started)


def test_a_304_carries_the_headers_of_every_middleware(server):
    first = fetch(server.base_url, "/projects", headers={"Accept-Encoding": "gzip"})
    assert first.status == 200
    again = fetch(
        server.base_url, "/projects", headers={"Accept-Encoding": "gzip", "If-None-Match": first.headers["etag"]}
    )
    assert again.status == 304
    for name in ("content-security-policy", "x-content-type-options", "x-frame-options", "x-data-version", "vary"):
        assert again.headers[name] == first.headers[name], name


def test_the_wire_compresses_the_final_body(server):
    reply = fetch(server.base_url, "/projects", headers={"Accept-Encoding": "gzip"})
    assert reply.headers["content-encoding"] == "gzip"
    assert int(reply.headers["content-length"]) == len(reply.body)
    assert gzip.decompress(reply.body).startswith(b"<!doctype html>")


def test_a_replayed_answer_is_the_answer(server):
    first, second = (fetch(server.base_url, "/about") for _ in range(2))
    assert second.status == first.status == 200
    assert second.body == first.body
    assert second.headers == {**first.headers, "date": second.headers["date"]}


def test_a_refused_oai_request_carries_the_policy_and_is_not_stored(server):
    """Admission answers early, inside the security headers and the wire."""
    # One request in flight is the limit: a second, sent while the first is held open, is refused.
    from tests.oai_support import request_in_flight

    with request_in_flight(server.base_url):
        refused = fetch(server.base_url, f"{OAI_PATH}?verb=Identify")
    assert refused.status == 503
    assert refused.headers["cache-control"] == "no-store"
    assert "default-src 'none'" in refused.headers["content-security-policy"]
    assert refused.headers["x-data-version"]


def test_static_files_are_served_as_they_are(server):
    reply = fetch(server.base_url, "/static/favicon.svg", headers={"Accept-Language": "de"})
    assert reply.status == 200
    assert reply.headers["content-type"].startswith("image/svg+xml")
    assert reply.headers["x-data-version"]
