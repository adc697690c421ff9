"""Stable responses replayed whole (svc_site.replay): what is kept, what matches, and that a replay is the page."""

from __future__ import annotations

import calendar
import gzip
import math
import time
from collections.abc import Iterator

import pytest
from django.http import HttpResponse, StreamingHttpResponse
from django.test import RequestFactory

from catalog.web import wire
from svc_site.replay import ReplayMiddleware
from tests.conftest import CORPUS_DIR, SAMPLE_DIR, Server, start_server, stop_server
from tests.http_support import fetch, same_headers
from tests.oai_support import HIGH_LIMITS_ENV, OAI_PATH

# --- the middleware around a view of our own ----------------------------------------------------


class CountingView:
    """A view that says how often it ran; ``respond`` shapes its response."""

    def __init__(self, respond=None) -> None:
        self.calls = 0
        self.respond = respond or (lambda response: None)

    def __call__(self, request) -> HttpResponse:
        self.calls += 1
        response = HttpResponse(f"call {self.calls}".encode() * 200, content_type="text/html; charset=utf-8")
        wire.mark_stable(response, wire.Stable("v1", ("test", request.path)))
        self.respond(response)
        return response


@pytest.fixture
def replaying(install_catalog):
    install_catalog(CORPUS_DIR)  # kept responses live in the served catalogue's page cache

    def wrap(view: CountingView) -> ReplayMiddleware:
        return ReplayMiddleware(view)

    return wrap


def test_a_stable_response_is_rendered_once_then_replayed(replaying):
    view = CountingView(lambda response: response.__setitem__("Last-Modified", "Tue, 03 Mar 2026 10:00:00 GMT"))
    handler = replaying(view)
    first, second = (handler(RequestFactory().get("/replay/once", {"q": "x"})) for _ in range(2))
    assert view.calls == 1
    assert second.content == first.content == b"call 1" * 200
    assert dict(second.items()) == {
        "Content-Type": "text/html; charset=utf-8",
        "Last-Modified": "Tue, 03 Mar 2026 10:00:00 GMT",
    }
    assert wire.stable_of(second) == wire.stable_of(first)
    # HEAD is answered from the same kept response; another query string is another URL.
    handler(RequestFactory().head("/replay/once", {"q": "x"}))
    handler(RequestFactory().get("/replay/once", {"q": "y"}))
    assert view.calls == 2


def test_each_value_of_a_varying_header_gets_its_own_answer(replaying):
    view = CountingView(lambda response: response.__setitem__("Vary", "Accept-Language, Cookie, Accept-Encoding"))
    handler = replaying(view)
    factory = RequestFactory()
    for headers in (
        {"HTTP_ACCEPT_LANGUAGE": "de"},
        {"HTTP_ACCEPT_LANGUAGE": "de", "HTTP_ACCEPT_ENCODING": "gzip"},  # the coding is negotiated outside
        {"HTTP_ACCEPT_LANGUAGE": "fr"},
        {"HTTP_ACCEPT_LANGUAGE": "de", "HTTP_COOKIE": "svc_language=it"},
        {"HTTP_ACCEPT_LANGUAGE": "fr"},
    ):
        handler(factory.get("/replay/vary", **headers))
    assert view.calls == 3


@pytest.mark.parametrize(
    "respond",
    [
        pytest.param(lambda response: response.__setitem__("Vary", "*"), id="vary-star"),
        pytest.param(lambda response: response.set_cookie("svc_language", "de"), id="set-cookie"),
        pytest.param(lambda response: setattr(response, "status_code", 404), id="not-200"),
        pytest.param(lambda response: delattr(response, wire.STABLE_ATTRIBUTE), id="not-stable"),
        pytest.param(
            lambda response: wire.mark_stable(response, wire.Stable("v1", "past", replay_until=time.time() - 1)),
            id="replay-time-over",
        ),
    ],
)
def test_responses_that_no_other_request_may_get_are_rendered_every_time(replaying, respond):
    view = CountingView(respond)
    handler = replaying(view)
    for _ in range(2):
        handler(RequestFactory().get("/replay/never"))
    assert view.calls == 2


def test_a_response_until_a_moment_is_replayed_before_it(replaying):
    later = time.time() + 60
    view = CountingView(lambda response: wire.mark_stable(response, wire.Stable("v1", "soon", replay_until=later)))
    handler = replaying(view)
    for _ in range(2):
        handler(RequestFactory().get("/replay/until"))
    assert view.calls == 1


def test_streamed_responses_and_unsafe_methods_are_never_kept(replaying):
    def streamed(request):
        streamed.calls += 1
        response = StreamingHttpResponse(iter([b"x"]))
        wire.mark_stable(response, wire.Stable("v1", "streamed"))
        return response

    streamed.calls = 0
    handler = ReplayMiddleware(streamed)
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
    handler = ReplayMiddleware(view)
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


@pytest.mark.parametrize(
    ("vary", "keys"),
    [
        (None, ()),
        ("Accept-Encoding", ()),
        ("Accept, Accept-Language, Cookie, Accept-Encoding", ("HTTP_ACCEPT", "HTTP_ACCEPT_LANGUAGE", "HTTP_COOKIE")),
        ("content-type", ("CONTENT_TYPE",)),
        ("Accept, *", None),
    ],
)
def test_vary_names_the_request_values_a_kept_response_is_keyed_by(vary, keys):
    assert wire.varying_request_keys(vary) == keys
