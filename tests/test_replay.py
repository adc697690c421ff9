"""The response cache (svc_site.cache): what is kept, what matches, and that a replay is the page."""

from __future__ import annotations

import calendar
import gzip
import math
import time
from collections.abc import Iterator

import pytest
from django.http import HttpResponse, StreamingHttpResponse
from django.test import RequestFactory
from django.urls import ResolverMatch

from catalog.web.inputs import Input, varies_on
from catalog.web.response_cache import CACHEABLE_ATTRIBUTE, mark_cacheable
from svc_site.cache import ResponseCacheMiddleware
from tests.conftest import CORPUS_DIR, SAMPLE_DIR, Server, start_server, stop_server
from tests.http_support import fetch, same_headers
from tests.oai_support import HIGH_LIMITS_ENV, OAI_PATH

# --- the middleware around a view of our own ----------------------------------------------------


class CountingView:
    """A routed view that says how often it ran; ``respond`` shapes its response, ``inputs`` its declaration."""

    def __init__(self, respond=None, inputs=(Input.QUERY,)) -> None:
        self.calls = 0
        self.respond = respond or (lambda response: None)
        self.declared = varies_on(*inputs)(lambda request: None)

    def __call__(self, request) -> HttpResponse:
        request.resolver_match = ResolverMatch(self.declared, (), {})  # as the URLconf would
        self.calls += 1
        response = mark_cacheable(
            HttpResponse(f"call {self.calls}".encode() * 200, content_type="text/html; charset=utf-8")
        )
        self.respond(response)
        return response


@pytest.fixture
def replaying(install_catalog):
    install_catalog(CORPUS_DIR)  # kept responses live in the application state's response cache

    def wrap(view: CountingView) -> ResponseCacheMiddleware:
        return ResponseCacheMiddleware(view)

    return wrap


def test_a_cacheable_response_is_rendered_once_then_replayed(replaying):
    view = CountingView(lambda response: response.__setitem__("Last-Modified", "Tue, 03 Mar 2026 10:00:00 GMT"))
    handler = replaying(view)
    first, second = (handler(RequestFactory().get("/replay/once", {"q": "x"})) for _ in range(2))
    assert view.calls == 1
    assert second.content == first.content == b"call 1" * 200
    assert dict(second.items()) == dict(first.items())
    assert second["Last-Modified"] == "Tue, 03 Mar 2026 10:00:00 GMT"
    # HEAD is answered from the same kept response; another query string is another URL.
    handler(RequestFactory().head("/replay/once", {"q": "x"}))
    handler(RequestFactory().get("/replay/once", {"q": "y"}))
    assert view.calls == 2


def test_an_undeclared_query_is_not_part_of_the_key(replaying):
    view = CountingView(inputs=())
    handler = replaying(view)
    for query in ({"q": "x"}, {"q": "y"}, {}):
        handler(RequestFactory().get("/replay/no-query", query))
    assert view.calls == 1


def test_each_negotiated_language_gets_its_own_answer(replaying):
    view = CountingView(inputs=(Input.LANGUAGE,))
    handler = replaying(view)
    factory = RequestFactory()
    for headers in (
        {"HTTP_ACCEPT_LANGUAGE": "de"},
        {"HTTP_ACCEPT_LANGUAGE": "de", "HTTP_ACCEPT_ENCODING": "gzip"},  # the coding is inside the entry
        {"HTTP_ACCEPT_LANGUAGE": "fr"},
        {"HTTP_ACCEPT_LANGUAGE": "de", "HTTP_COOKIE": "svc_language=it"},
        {"HTTP_ACCEPT_LANGUAGE": "fr"},
        {"HTTP_ACCEPT_LANGUAGE": "de-CH, de;q=0.9"},  # another header, the same language
    ):
        handler(factory.get("/replay/vary", **headers))
    assert view.calls == 3


def test_each_accept_value_gets_its_own_answer_and_names_accept_in_vary(replaying):
    view = CountingView(inputs=(Input.MEDIA_TYPE,))
    handler = replaying(view)
    answers = [handler(RequestFactory().get("/replay/accept", HTTP_ACCEPT=a)) for a in ("text/html", "text/turtle")]
    handler(RequestFactory().get("/replay/accept", HTTP_ACCEPT="text/html"))
    assert view.calls == 2
    assert [answer["Vary"] for answer in answers] == ["Accept, Accept-Encoding"] * 2


def test_an_answer_the_cache_may_not_keep_names_only_its_own_vary(replaying):
    """A 404 of a route declaring the media type does not vary on Accept: only kept answers get the declaration's."""

    def missing(response):
        delattr(response, CACHEABLE_ATTRIBUTE)  # as views answer a missing item: not marked cacheable
        response.status_code = 404

    view = CountingView(missing, inputs=(Input.MEDIA_TYPE,))
    answer = replaying(view)(RequestFactory().get("/replay/missing", HTTP_ACCEPT="text/html"))
    assert (answer.status_code, answer["Vary"]) == (404, "Accept-Encoding")


@pytest.mark.parametrize(
    "respond",
    [
        pytest.param(lambda response: response.__setitem__("Vary", "*"), id="vary-star"),
        pytest.param(lambda response: response.set_cookie("svc_language", "de"), id="set-cookie"),
        pytest.param(lambda response: setattr(response, "status_code", 404), id="not-200"),
        pytest.param(lambda response: delattr(response, CACHEABLE_ATTRIBUTE), id="not-cacheable"),
        pytest.param(lambda response: mark_cacheable(response, replay_until=time.time() - 1), id="replay-time-over"),
    ],
)
def test_responses_that_no_other_request_may_get_are_rendered_every_time(replaying, respond):
    view = CountingView(respond)
    handler = replaying(view)
    for _ in range(2):
        handler(RequestFactory().get("/replay/never"))
    assert view.calls == 2


def test_an_undeclared_view_is_never_kept(replaying):
    view = CountingView()
    view.declared = lambda request: None  # no @varies_on
    handler = replaying(view)
    for _ in range(2):
        handler(RequestFactory().get("/replay/undeclared"))
    assert view.calls == 2


def test_a_response_until_a_moment_is_replayed_before_it(replaying):
    later = time.time() + 60
    view = CountingView(lambda response: mark_cacheable(response, replay_until=later))
    handler = replaying(view)
    for _ in range(2):
        handler(RequestFactory().get("/replay/until"))
    assert view.calls == 1


def test_streamed_responses_and_unsafe_methods_are_never_kept(replaying):
    def streamed(request):
        streamed.calls += 1
        return mark_cacheable(StreamingHttpResponse(iter([b"x"])))

    streamed.calls = 0
    handler = ResponseCacheMiddleware(streamed)
    for _ in range(2):
        handler(RequestFactory().get("/replay/streamed"))
    assert streamed.calls == 2

    view = CountingView()
    handler = replaying(view)
    handler(RequestFactory().post("/replay/post"))
    handler(RequestFactory().get("/replay/post"))  # a POST's answer is never a GET's
    handler(RequestFactory().post("/replay/post"))
    assert view.calls == 3


def test_a_new_catalogue_starts_without_kept_responses(install_catalog):
    view = CountingView()
    handler = ResponseCacheMiddleware(view)
    for data in (CORPUS_DIR, CORPUS_DIR, SAMPLE_DIR, SAMPLE_DIR):
        install_catalog(data)
        handler(RequestFactory().get("/replay/reload"))
    assert view.calls == 2


# --- over the socket: a replayed response is the rendered one ------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    # One worker: the second request of a pair is answered by the process that rendered the first.
    running = start_server(CORPUS_DIR, {**HIGH_LIMITS_ENV, "SVC_WORKERS": "1"})
    yield running
    stop_server(running)


@pytest.mark.parametrize(
    "path",
    [
        "/projects?q=music",
        "/de/projects/0803",
        "/api/v2/projects/0803",
        "/sitemap.xml",
        "/projects/0803/citation.bib",
        "/robots.txt",
    ],
)
@pytest.mark.parametrize("accept_encoding", [None, "gzip", "br"])
def test_a_replayed_response_is_byte_for_byte_the_rendered_one(server, path, accept_encoding):
    headers = {"Accept-Encoding": accept_encoding} if accept_encoding else {}
    rendered = fetch(server.base_url, path, headers=headers)
    replayed = fetch(server.base_url, path, headers=headers)
    assert rendered.status == replayed.status == 200
    assert replayed.body == rendered.body
    assert same_headers(rendered, replayed)


def test_an_unprefixed_page_still_follows_the_readers_language_after_a_replay(server):
    for _ in range(2):
        english = fetch(server.base_url, "/projects/0803")
        assert english.status == 200 and english.headers["content-language"] == "en"
    german = fetch(server.base_url, "/projects/0803", headers={"Accept-Language": "de-CH, de;q=0.9"})
    french = fetch(server.base_url, "/projects/0803", headers={"Cookie": "svc_language=fr"})
    assert (german.status, german.headers["location"]) == (302, "/de/projects/0803")
    assert (french.status, french.headers["location"]) == (302, "/fr/projects/0803")


@pytest.mark.slow
def test_an_oai_answer_is_replayed_only_within_the_second_it_is_dated(server):
    """Every answer, replayed or rendered, carries the second it was asked in: never an earlier one."""
    path = f"{OAI_PATH}?verb=ListRecords&metadataPrefix=oai_dc"
    tags = set()
    started = time.time()
    while time.time() - started < 2.5:
        asked = math.floor(time.time())
        reply = fetch(server.base_url, path, headers={"Accept-Encoding": "gzip"})
        answered = time.time()
        date = gzip.decompress(reply.body).split(b"<responseDate>", 1)[1][:20].decode()
        assert asked <= calendar.timegm(time.strptime(date, "%Y-%m-%dT%H:%M:%SZ")) <= answered
        tags.add(reply.headers["etag"])
    assert len(tags) == 1  # and the answer itself stayed the same
