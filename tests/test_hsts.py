"""Strict-Transport-Security over a real `svc serve`: only when svc knows the request came over HTTPS (RFC 6797)."""

from __future__ import annotations

import http.client
from collections.abc import Iterator

import pytest

from tests.conftest import PROJECT_ROOT, Server, start_server, stop_server

SAMPLE_DATA = PROJECT_ROOT / "modules/svc/server/data"
# /healthz is answered before Django (healthz/wsgi.py) for probes, not browsers: it carries no browser headers.
PATHS = ["/projects", "/api/v2/projects", "/static/favicon.svg", "/no-such-page", "/dpe/oai?verb=Identify"]


def get(server: Server, path: str, headers: dict[str, str]) -> http.client.HTTPResponse:
    host, port = server.base_url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


@pytest.fixture(scope="module")
def behind_proxy() -> Iterator[Server]:
    server = start_server(
        SAMPLE_DATA,
        {"SVC_TRUSTED_PROXY_HOPS": "1", "SVC_HSTS_MAX_AGE": "600", "SVC_WORKERS": "1"},
    )
    yield server
    stop_server(server)


@pytest.fixture(scope="module")
def exposed() -> Iterator[Server]:
    server = start_server(SAMPLE_DATA, {"SVC_WORKERS": "1"})
    yield server
    stop_server(server)


@pytest.mark.parametrize("path", PATHS)
def test_https_through_a_trusted_proxy_gets_hsts(behind_proxy: Server, path: str):
    response = get(behind_proxy, path, {"X-Forwarded-Proto": "https", "X-Forwarded-For": "192.0.2.7"})
    assert response.getheader("Strict-Transport-Security") == "max-age=600"


@pytest.mark.parametrize("path", PATHS)
def test_plain_http_through_the_proxy_gets_none(behind_proxy: Server, path: str):
    response = get(behind_proxy, path, {"X-Forwarded-Proto": "http", "X-Forwarded-For": "192.0.2.7"})
    assert response.getheader("Strict-Transport-Security") is None


def test_a_client_claiming_https_without_a_trusted_proxy_gets_none(exposed: Server):
    response = get(exposed, "/projects", {"X-Forwarded-Proto": "https"})
    assert response.status == 200
    assert response.getheader("Strict-Transport-Security") is None
