"""Compression, validators, 304s, HEAD and Cache-Control, against a real `svc serve` over a socket."""

from __future__ import annotations

import gzip
from collections.abc import Iterator

import brotli
import pytest
from django.http import HttpResponse
from django.test import RequestFactory
from django.urls import ResolverMatch

from catalog.web import wire
from catalog.web.inputs import Input, varies_on
from catalog.web.response_cache import mark_cacheable
from tests.conftest import CORPUS_DIR, Server, start_server, stop_server
from tests.http_support import Reply, fetch, head_and_get, same_headers
from tests.oai_support import HIGH_LIMITS_ENV, OAI_PATH, request_in_flight, wait_past_second

PAGE = "/projects/0803"
OAI_LIST = f"{OAI_PATH}?verb=ListRecords&metadataPrefix=oai_datacite"
# One page, no resumptionToken: the body differs from second to second by responseDate only.
# (A list page's token carries the second its list began, so that page's tag moves each second.)
OAI_RECORD = f"{OAI_PATH}?verb=GetRecord&metadataPrefix=oai_datacite&identifier=oai:dasch.swiss:ark:/72163/1/0803"
COMPRESSED_PATHS = ["/projects", PAGE, "/sitemap.xml", "/api/v2/projects", "/api/v2/projects/0803"]
STABLE_PATHS = [*COMPRESSED_PATHS, "/projects/0803/citation.bib", "/robots.txt"]


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = start_server(CORPUS_DIR, {**HIGH_LIMITS_ENV, "SVC_HTTP_MAX_AGE": "30"})
    yield running
    output = stop_server(running)
    assert "no-body response" not in output  # gunicorn's warning when an app sends a HEAD body


# --- negotiation (the rules themselves) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "coding"),
    [
        (None, "identity"),
        ("", "identity"),
        ("gzip", "gzip"),
        ("x-gzip", "gzip"),
        ("gzip, deflate, br, zstd", "br"),
        ("gzip;q=1.0, br;q=0.5", "gzip"),
        ("br;q=0, gzip", "gzip"),
        ("gzip;q=0", "identity"),
        ("*", "br"),
        ("*;q=0.5, gzip;q=0.8", "gzip"),
        ("*;q=0", "identity"),
        ("identity;q=0, gzip;q=0.1", "gzip"),
        ("deflate", "identity"),
        ("gzip;q=bogus, br;q=2", "identity"),
    ],
)
def test_accept_encoding_is_negotiated_with_q_values(header, coding):
    assert wire.negotiate(header) == coding


@pytest.mark.parametrize(
    ("if_none_match", "matches"),
    [('"a"', True), ('W/"a"', True), ('"b", "a"', True), ("*", True), ('"b"', False), ('"a-gzip"', False)],
)
def test_if_none_match_uses_the_weak_comparison(if_none_match, matches):
    assert wire.none_match(if_none_match, '"a"') is matches


# --- over the socket -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", [*COMPRESSED_PATHS, OAI_LIST])
@pytest.mark.parametrize(("accept", "decode"), [("gzip", gzip.decompress), ("br", brotli.decompress)])
def test_text_responses_are_compressed_as_negotiated(server, path, accept, decode):
    plain = fetch(server.base_url, path)
    coded = fetch(server.base_url, path, headers={"Accept-Encoding": accept})
    assert plain.status == coded.status == 200
    assert "content-encoding" not in plain.headers
    assert coded.headers["content-encoding"] == accept
    assert int(coded.headers["content-length"]) == len(coded.body) < len(plain.body)
    assert "Accept-Encoding" in plain.headers["vary"] and "Accept-Encoding" in coded.headers["vary"]
    if path != OAI_LIST:  # OAI's responseDate may tick between the two requests
        assert decode(coded.body) == plain.body
    else:
        assert decode(coded.body).startswith(b"<?xml") and b"<ListRecords>" in decode(coded.body)


def test_identity_is_respected_and_small_bodies_stay_plain(server):
    refused = fetch(server.base_url, "/projects", headers={"Accept-Encoding": "gzip;q=0, br;q=0"})
    assert refused.status == 200 and "content-encoding" not in refused.headers
    robots = fetch(server.base_url, "/robots.txt", headers={"Accept-Encoding": "gzip"})
    assert robots.status == 200 and len(robots.body) < wire.MIN_COMPRESS_BYTES
    assert "content-encoding" not in robots.headers and "Accept-Encoding" not in robots.headers.get("vary", "")


@pytest.mark.parametrize("path", STABLE_PATHS)
@pytest.mark.parametrize("accept", ["identity", "gzip", "br"])
def test_strong_etag_and_304_per_representation(server, path, accept):
    first = fetch(server.base_url, path, headers={"Accept-Encoding": accept})
    tag = first.headers["etag"]
    assert (
        tag.startswith('"') and tag == fetch(server.base_url, path, headers={"Accept-Encoding": accept}).headers["etag"]
    )
    assert first.headers["x-data-version"] in tag
    again = fetch(server.base_url, path, headers={"Accept-Encoding": accept, "If-None-Match": tag})
    assert again.status == 304 and again.body == b""
    assert again.headers["etag"] == tag and again.headers["cache-control"] == first.headers["cache-control"]
    assert "content-type" not in again.headers and again.headers.get("vary") == first.headers.get("vary")
    other = fetch(server.base_url, path, headers={"Accept-Encoding": accept, "If-None-Match": '"something-else"'})
    assert other.status == 200 and other.body == first.body


def test_variants_have_distinct_tags(server):
    tags = {
        fetch(server.base_url, PAGE, headers={"Accept-Encoding": a}).headers["etag"] for a in ("identity", "gzip", "br")
    }
    assert len(tags) == 3
    gzip_tag = fetch(server.base_url, PAGE, headers={"Accept-Encoding": "gzip"}).headers["etag"]
    # A cache holding the gzip body must not get a 304 for the plain one.
    assert fetch(server.base_url, PAGE, headers={"If-None-Match": gzip_tag}).status == 200


def test_oai_etag_is_weak_and_ignores_response_date(server):
    first = fetch(server.base_url, OAI_RECORD)
    tag = first.headers["etag"]
    assert tag.startswith('W/"') and first.headers["cache-control"] == "no-cache"
    # Same tag in a later second: the answer is the same, the moment is not.
    wait_past_second(_response_date(first.body).decode())
    again = fetch(server.base_url, OAI_RECORD, headers={"If-None-Match": tag})
    assert again.status == 304 and again.body == b"" and again.headers["etag"] == tag
    later = fetch(server.base_url, OAI_RECORD)
    assert _response_date(later.body) != _response_date(first.body) and later.headers["etag"] == tag
    other = fetch(server.base_url, f"{OAI_PATH}?verb=Identify")
    assert other.headers["etag"] != tag and b"<compression>gzip</compression>" in other.body


@pytest.mark.slow
def test_oai_list_page_has_one_tag_on_every_replica_though_each_issues_its_own_token(server):
    first = fetch(server.base_url, OAI_LIST)
    tag, token = _tag_and_token(first)
    # The other replica renders the page in a later second, naming that second in its token.
    wait_past_second(_response_date(first.body).decode())
    replica = start_server(CORPUS_DIR, HIGH_LIMITS_ENV)
    try:
        other_tag, other_token = _tag_and_token(fetch(replica.base_url, OAI_LIST))
        revalidated = fetch(replica.base_url, OAI_LIST, headers={"If-None-Match": tag})
    finally:
        stop_server(replica)
    assert other_token != token and other_tag == tag
    assert revalidated.status == 304 and revalidated.headers["etag"] == tag


def _response_date(body: bytes) -> bytes:
    return body.partition(b"<responseDate>")[2].partition(b"</responseDate>")[0]


def _tag_and_token(reply: Reply) -> tuple[str, bytes]:
    return reply.headers["etag"], reply.body.rpartition(b"<resumptionToken")[2].partition(b"</resumptionToken>")[0]


@pytest.mark.parametrize("path", [*STABLE_PATHS, OAI_RECORD, "/projects/ffff", "/healthz"])
@pytest.mark.parametrize("accept", ["identity", "gzip"])
def test_head_sends_the_get_headers_and_no_body(server, path, accept):
    head, get = head_and_get(server.base_url, path, headers={"Accept-Encoding": accept})
    assert head.status == get.status and head.body == b""
    if path == OAI_RECORD:  # the body (hence its compressed length) carries responseDate
        assert head.headers.keys() == get.headers.keys() and head.headers["etag"] == get.headers["etag"]
    else:
        assert same_headers(head, get)
    assert int(head.headers["content-length"]) == len(get.body)


def test_head_answers_conditional_requests(server):
    tag = fetch(server.base_url, "/sitemap.xml").headers["etag"]
    head, _ = head_and_get(server.base_url, "/sitemap.xml", headers={"If-None-Match": tag})
    assert head.status == 304


@pytest.mark.parametrize(
    ("path", "cache_control"),
    [
        ("/projects", "public, max-age=30, stale-while-revalidate=600"),
        ("/api/v2/projects", "public, max-age=30, stale-while-revalidate=600"),
        ("/sitemap.xml", "public, max-age=30, stale-while-revalidate=600"),
        ("/projects/ffff", "public, max-age=30"),
        ("/api/v2/projects/ffff", "public, max-age=30"),
        ("/projects?page=x", "no-store"),
        (f"{OAI_PATH}?verb=Identify", "no-cache"),
        ("/healthz", "no-store"),
    ],
)
def test_cache_control_fits_the_response(server, path, cache_control):
    assert fetch(server.base_url, path).headers["cache-control"] == cache_control


@pytest.mark.slow
def test_rate_limited_oai_answers_are_not_stored():
    running = start_server(CORPUS_DIR, {"SVC_OAI_MAX_CONCURRENT": "1", "SVC_WORKERS": "1"})
    try:
        with request_in_flight(running.base_url):  # the client's one allowed request is still running
            limited = fetch(running.base_url, f"{OAI_PATH}?verb=Identify")
    finally:
        stop_server(running)
    assert limited.status == 503 and limited.headers["cache-control"] == "no-store"


def test_an_unparsable_precondition_is_ignored(server):
    for headers in ({"If-Modified-Since": "yesterday"}, {"If-None-Match": "garbage"}, {"If-None-Match": ""}):
        assert fetch(server.base_url, PAGE, headers=headers).status == 200


# --- the middleware with a view of our own: Last-Modified, Vary, kept variants -------------------


def _middleware(view):
    from svc_site.cache import ResponseCacheMiddleware

    return ResponseCacheMiddleware(view)


def _stable_view(last_modified: str | None = None, vary: str | None = None):
    @varies_on(Input.QUERY)
    def view(request):
        request.resolver_match = ResolverMatch(view, (), {})  # as the URLconf would
        response = mark_cacheable(HttpResponse(b"x" * 5000, content_type="text/html; charset=utf-8"))
        if last_modified:
            response["Last-Modified"] = last_modified
        if vary:
            response["Vary"] = vary
        return response

    return view


def test_last_modified_set_by_a_view_answers_if_modified_since():
    handler = _middleware(_stable_view(last_modified="Tue, 03 Mar 2026 10:00:00 GMT"))
    factory = RequestFactory()
    later = handler(factory.get("/lm", HTTP_IF_MODIFIED_SINCE="Wed, 04 Mar 2026 00:00:00 GMT"))
    assert later.status_code == 304 and later["Last-Modified"] == "Tue, 03 Mar 2026 10:00:00 GMT"
    earlier = handler(factory.get("/lm", HTTP_IF_MODIFIED_SINCE="Mon, 02 Mar 2026 00:00:00 GMT"))
    assert earlier.status_code == 200 and len(earlier.content) == 5000
    # If-None-Match decides when both are sent (RFC 9110 §13.2.2).
    both = handler(factory.get("/lm", HTTP_IF_NONE_MATCH='"x"', HTTP_IF_MODIFIED_SINCE="Wed, 04 Mar 2026 00:00:00 GMT"))
    assert both.status_code == 200


def test_vary_from_the_view_is_kept():
    response = _middleware(_stable_view(vary="Accept"))(RequestFactory().get("/v", HTTP_ACCEPT_ENCODING="gzip"))
    assert response["Vary"] == "Accept, Accept-Encoding" and response["Content-Encoding"] == "gzip"


def test_a_stable_body_is_compressed_once(monkeypatch, install_catalog):
    install_catalog(CORPUS_DIR)  # the kept variants live in the application state's response cache
    calls = []
    real = wire.encode
    monkeypatch.setattr(wire, "encode", lambda body, coding: calls.append(coding) or real(body, coding))
    handler = _middleware(_stable_view(vary="Cookie"))
    requests = [RequestFactory().get("/once", HTTP_ACCEPT_ENCODING=a) for a in ("gzip", "gzip", "br", "br")]
    bodies = [handler(request).content for request in requests]
    assert calls == ["gzip", "br"] and bodies[0] == bodies[1] and bodies[2] == bodies[3]
