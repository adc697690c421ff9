"""Requests no client should be able to turn into a 500, a traceback or work without bound (issue 39).

Each test sends, over a socket to a real ``svc serve`` of the sample data,
one request the issue reproduced, and asserts the answer that replaces it.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from tests.conftest import SAMPLE_DIR, Server, start_server, stop_server
from tests.http_support import fetch

PROJECT = "08A1"  # a sample project with records


def log_problems(output: str) -> list[str]:
    """Lines at WARNING or above, and any traceback."""
    return [line for line in output.splitlines() if " WARNING " in line or " ERROR " in line or "Traceback" in line]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One worker, so that what one request leaves behind is what the next one meets."""
    running = start_server(SAMPLE_DIR, {"SVC_WORKERS": "1"})
    yield running
    stop_server(running)


# --- 1. one strict parser for every number in a query ------------------------------------------


NUMBERED = [
    "/catalogue/dcat?page=",
    "/catalogue/dcat.ttl?page=",
    "/catalogue/dcat.rdf?page=",
    "/catalogue/dcat.jsonld?page=",
    "/projects?page=",
    "/projects?from=",
    "/projects?to=",
    "/records?page=",
    "/persons?page=",
    f"/projects/{PROJECT}/records?page=",
    "/api/v2/records?page=",
    f"/api/v2/projects/{PROJECT}/records?page=",
    f"/api/v2/projects/{PROJECT}/records?page_size=",
]


@pytest.mark.parametrize("path", NUMBERED)
# Superscript 2, Arabic-Indic 1 and fullwidth 1 (str.isdigit takes all three), an exponent, a sign.
@pytest.mark.parametrize("number", ["%C2%B2", "%D9%A1", "%EF%BC%91", "1e3", "-1"])
def test_a_number_that_is_not_ascii_digits_is_a_400_never_a_500(server: Server, path: str, number: str) -> None:
    before = len(server.output())
    reply = fetch(server.base_url, path + number)
    assert reply.status == 400, reply.body[:300]
    assert log_problems(server.output()[before:]) == []


# --- 2. a parameter a view does not read costs what a kept response costs ----------------------------

KEPT = [
    "/catalogue/dcat",
    "/catalogue/dcat.ttl",
    "/catalogue/dcat.rdf",
    "/catalogue/dcat.jsonld",
    "/sitemap.xml",
    "/robots.txt",
    "/feeds/changes.atom",
    "/projects",
    f"/projects/{PROJECT}",
    "/about",
]


def _access_lines(server: Server, start: int, wanted: str, count: int) -> list[str]:
    """The first ``count`` access lines naming ``wanted`` written since ``start``, waiting for them (30 s at most)."""
    deadline = time.monotonic() + 30
    while True:
        found = [line for line in server.output()[start:].splitlines() if f"svc.access: GET {wanted} " in line]
        if len(found) >= count or time.monotonic() > deadline:
            return found[:count]
        time.sleep(0.05)


@pytest.mark.parametrize("path", KEPT)
def test_unknown_parameters_and_forwarded_hosts_are_answered_from_the_kept_response(server: Server, path: str) -> None:
    """Before, ``?zz=1``, ``?zz=2``… each rendered the document again (the whole catalogue, for the DCAT)."""
    before = len(server.output())
    first = fetch(server.base_url, path)
    assert first.status == 200
    # Its line is written (by this server: the answer came from it): what follows is the requests below.
    answered = _access_lines(server, before, path, 1)
    assert len(answered) == 1, ("the first request is not in this server's log", server.output()[before:])
    start = len(server.output())
    for number in range(5):
        again = fetch(server.base_url, f"{path}?zz={number}&utm_source=n{number}")
        assert (again.status, again.body) == (200, first.body)
    for number in range(5):  # not trusted (no proxy hops configured): it names no origin
        again = fetch(server.base_url, path, headers={"X-Forwarded-Host": f"h{number}.example"})
        assert (again.status, again.body) == (200, first.body)
    unknown = _access_lines(server, start, f"{path}?zz=REDACTED&utm_source=REDACTED", 5)
    forwarded = _access_lines(server, start, path, 5)
    # What else the server said meanwhile (a worker started again would start with no kept responses).
    said = [line for line in server.output()[before:].splitlines() if " svc.access: " not in line]
    assert [line.endswith(" cached") for line in unknown + forwarded] == [True] * 10, (
        answered + unknown + forwarded,
        said,
    )


@pytest.mark.parametrize(
    ("path", "accept"), [(f"/projects/{PROJECT}", "text/html"), ("/catalogue/dcat", "text/turtle")]
)
def test_accept_headers_choosing_the_same_type_share_the_kept_response(server: Server, path: str, accept: str) -> None:
    before = len(server.output())
    first = fetch(server.base_url, path, headers={"Accept": accept})
    assert first.status == 200
    _access_lines(server, before, path, 1)
    start = len(server.output())
    for number in range(5):
        again = fetch(server.base_url, path, headers={"Accept": f"{accept}, x/{number};q=0.5"})
        assert (again.status, again.body, again.headers["vary"]) == (200, first.body, first.headers["vary"])
    lines = _access_lines(server, start, path, 5)
    assert [line.endswith(" cached") for line in lines] == [True] * 5, lines


def test_a_parameter_a_page_reads_still_makes_its_own_answer(server: Server) -> None:
    before = len(server.output())
    fetch(server.base_url, "/projects")
    _access_lines(server, before, "/projects", 1)
    start = len(server.output())
    reply = fetch(server.base_url, "/projects?q=zz-no-such-project")
    assert reply.status == 200 and b"zz-no-such-project" in reply.body
    (line,) = _access_lines(server, start, "/projects?q=REDACTED", 1)
    assert not line.endswith(" cached")


def test_the_catalogue_is_rendered_once_however_a_request_spells_its_variant(client, monkeypatch) -> None:
    """``?page=01``, ``?page=001``, another ``Accept`` naming the same type: keyed apart, rendered once."""
    from catalog.formats import dcat

    rendered: list[str] = []
    serialise = dcat.serialise

    def counted(graph, media_type: str) -> bytes:
        rendered.append(media_type)
        return serialise(graph, media_type)

    monkeypatch.setattr(dcat, "serialise", counted)
    bodies = {
        client.get("/catalogue/dcat", {"page": page}, HTTP_ACCEPT=accept, HTTP_ACCEPT_ENCODING="").content
        for page in ("1", "01", "001")
        for accept in ("text/turtle", "text/turtle;q=0.9", "text/turtle, image/png;q=0.1", "*/*")
    }
    assert len(bodies) == 1 and rendered == ["text/turtle"]
    client.get("/catalogue/dcat.rdf?page=1&zz=1")
    client.get("/catalogue/dcat.rdf?page=01&zz=2")
    assert rendered == ["text/turtle", "application/rdf+xml"]


# --- 4. q=0 means "not acceptable", whatever a wildcard says --------------------------------------


def test_a_page_refused_with_q_0_is_not_readmitted_by_a_wildcard(server: Server) -> None:
    """The wildcard still admits the exports: the client is sent to the first one offered, its JSON."""
    reply = fetch(server.base_url, f"/projects/{PROJECT}", headers={"Accept": "text/html;q=0, */*;q=0.1"})
    assert (reply.status, reply.headers["location"]) == (303, f"/api/v2/projects/{PROJECT}")


def test_a_page_refused_with_nothing_else_acceptable_is_a_406(server: Server) -> None:
    reply = fetch(server.base_url, f"/projects/{PROJECT}", headers={"Accept": "text/html;q=0, image/*"})
    assert reply.status == 406
    assert reply.headers["content-type"].startswith("text/plain")
    assert reply.body.startswith(b"None of the accepted media types is offered.")


def test_the_catalogue_refused_in_turtle_is_answered_in_the_next_type_offered(server: Server) -> None:
    reply = fetch(server.base_url, "/catalogue/dcat", headers={"Accept": "text/turtle;q=0, */*"})
    assert (reply.status, reply.headers["content-type"]) == (200, "application/rdf+xml; charset=utf-8")
    assert reply.headers["content-location"] == "/catalogue/dcat.rdf"


def test_the_catalogue_refused_in_every_type_is_a_406(server: Server) -> None:
    refused = "text/turtle;q=0, application/rdf+xml;q=0, application/ld+json;q=0, */*"
    reply = fetch(server.base_url, "/catalogue/dcat", headers={"Accept": refused})
    assert reply.status == 406
    assert reply.headers["vary"] == "Accept"


# --- 5. the API does what its OpenAPI document says ------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/api/v2/records?page=1000000000", f"/api/v2/projects/{PROJECT}/records?page=1000000000"]
)
def test_a_page_past_the_last_is_a_404_however_far(server: Server, path: str) -> None:
    reply = fetch(server.base_url, path)
    assert (reply.status, reply.headers["content-type"]) == (404, "application/problem+json")
    assert b"past the last page" in reply.body


@pytest.mark.parametrize(("query", "detail"), [("sort=", b"sort must be one of"), ("page=", b"page must be")])
def test_an_empty_sort_or_page_is_outside_the_documented_values(server: Server, query: str, detail: bytes) -> None:
    reply = fetch(server.base_url, f"/api/v2/records?{query}")
    assert (reply.status, reply.headers["content-type"]) == (400, "application/problem+json")
    assert detail in reply.body


# --- 15. a CORS preflight for a conditional request is answered ---------------------------------


PREFLIGHT = {
    "Origin": "https://elsewhere.example",
    "Access-Control-Request-Method": "GET",
    "Access-Control-Request-Headers": "if-none-match",
}


@pytest.mark.parametrize("path", ["/api/v2/projects", f"/api/v2/projects/{PROJECT}/records?page=1"])
def test_a_preflight_for_a_conditional_get_is_allowed(server: Server, path: str) -> None:
    reply = fetch(server.base_url, path, method="OPTIONS", headers=PREFLIGHT)
    assert reply.status == 204 and reply.body == b""
    assert reply.headers["access-control-allow-origin"] == "*"
    assert reply.headers["access-control-allow-methods"] == "GET, HEAD"
    assert reply.headers["access-control-allow-headers"] == "If-None-Match, If-Modified-Since"
    assert reply.headers["access-control-max-age"] == "86400"
    assert reply.headers["allow"] == "GET, HEAD, OPTIONS"


def test_the_revalidation_the_preflight_allowed_gets_a_304_a_script_may_read(server: Server) -> None:
    origin = {"Origin": PREFLIGHT["Origin"]}
    first = fetch(server.base_url, "/api/v2/projects", headers=origin)
    again = fetch(server.base_url, "/api/v2/projects", headers={**origin, "If-None-Match": first.headers["etag"]})
    assert again.status == 304
    assert again.headers["access-control-allow-origin"] == "*"
    assert again.headers["access-control-expose-headers"] == "ETag, Link"


def test_other_methods_are_still_refused(server: Server) -> None:
    reply = fetch(server.base_url, "/api/v2/projects", method="DELETE", headers={"Origin": PREFLIGHT["Origin"]})
    assert (reply.status, reply.headers["allow"]) == (405, "GET, HEAD, OPTIONS")


# --- 17. a body shorter than its Content-Length is not processed ------------------------------------


def _post_and_half_close(base_url: str, body: bytes, announced: int) -> bytes:
    """POST ``body`` to the OAI endpoint announcing ``announced`` bytes, close the sending side, read the answer."""
    parts = urlsplit(base_url)
    head = (
        f"POST /dpe/oai HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {announced}\r\nConnection: close\r\n\r\n"
    )
    with socket.create_connection((str(parts.hostname), int(str(parts.port))), timeout=30) as connection:
        connection.sendall(head.encode() + body)
        connection.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


def test_a_body_shorter_than_its_content_length_is_a_400(server: Server) -> None:
    before = len(server.output())
    answer = _post_and_half_close(server.base_url, b"verb=Identify", 100)
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line == b"HTTP/1.1 400 Bad Request"
    assert rest.endswith(b"\r\n\r\nThe request body ended after 13 of the 100 bytes its Content-Length announced.\n")
    line = "incomplete request body: 13 of the 100 bytes its Content-Length announced"
    server.wait_for_output(line)
    logged = server.output()[before:]
    assert logged.count(line) == 1
    assert log_problems(logged) == []


def test_the_same_body_complete_is_answered(server: Server) -> None:
    answer = _post_and_half_close(server.base_url, b"verb=Identify", 13)
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n") and b"<Identify>" in answer
