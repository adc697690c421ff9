"""Slow and idle clients cannot starve `svc serve` (issue 13, point 1).

The attack: many connections each send a partial request (or a POST body)
and then trickle a byte now and then, so that a thread-per-request server
holds a thread per connection. This test keeps 200 such connections trickling
for 60 s against a real `svc serve` and probes ``/healthz`` and a page meanwhile.

What happens to the tricklers (docs/reliability.md): the 100 whose headers
never end are answered ``408 Request Timeout`` and closed 5 s after their
first byte (the request-head deadline; their next byte then meets a closed
connection); the 100 whose form body never ends hold their connection for
the whole minute (a body has no deadline of svc's own).

Slow by design (about 70 s): marked ``slow``; deselect with ``-m "not slow"``
while iterating, but it stays in the suite.
"""

from __future__ import annotations

import contextlib
import socket
import time
import urllib.request

import pytest

from svc_site.gevent_worker import REQUEST_HEAD_SECONDS
from tests.conftest import CORPUS_DIR, start_server, stop_server

pytestmark = pytest.mark.slow

CONNECTIONS = 200
ATTACK_SECONDS = 60
# Below the request-head deadline: a probe held back until the tricklers are answered 408 fails, whatever the
# machine's load; an orchestrator's own 1 s timeout is not asserted here (the CPU is shared: docs/testing.md).
DEADLINE = REQUEST_HEAD_SECONDS - 1


def _open_tricklers(base_url: str) -> list[socket.socket]:
    host, port = base_url.removeprefix("http://").split(":")
    sockets = []
    for number in range(CONNECTIONS):
        sock = socket.create_connection((host, int(port)), timeout=5)
        if number % 2:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # headers never finished
        else:  # a form body announced and never sent
            sock.sendall(b"POST /dpe/oai HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n")
            sock.sendall(b"Content-Length: 200\r\n\r\nverb=")
        sockets.append(sock)
    return sockets


def _timed_get(url: str) -> tuple[int, float]:
    started = time.monotonic()
    with urllib.request.urlopen(url, timeout=DEADLINE) as response:
        response.read()
        return response.status, time.monotonic() - started


def test_trickling_connections_do_not_delay_healthz_or_pages() -> None:
    server = start_server(CORPUS_DIR)
    tricklers: list[socket.socket] = []
    try:
        tricklers = _open_tricklers(server.base_url)
        end = time.monotonic() + ATTACK_SECONDS
        probes = 0
        while time.monotonic() < end:
            for sock in tricklers:  # one more byte each, never the end of the headers
                with contextlib.suppress(OSError):  # a request head past its 5 s deadline was answered 408 and closed
                    sock.sendall(b"X")
            for path in ("/healthz", "/projects"):
                status, elapsed = _timed_get(server.base_url + path)  # raises on the 1 s deadline
                assert status == 200 and elapsed < DEADLINE, (path, status, elapsed)
                probes += 1
            time.sleep(1)
        assert probes >= 2 * (ATTACK_SECONDS - 5) // 2
    finally:
        for sock in tricklers:
            sock.close()
        stop_server(server)
