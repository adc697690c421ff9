"""svc's gevent worker (svc_site/gevent_worker.py) over a real socket: kept-alive connections between requests.

The stop and reload cases (a request being read, an idle connection at a
stop, the 408 head deadline, stop signals around the fork, keep-alive load
across SIGHUPs) are in tests/test_lifecycle.py; here the connection's life
while the worker runs: requests in turn and pipelined, a body the view does
not read, the client's ``Connection: close``, and the idle close.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from svc_site.server import gunicorn_options
from tests.conftest import Server, start_server, stop_server
from tests.ops_support import write_data_set

KEEPALIVE = gunicorn_options("127.0.0.1:0", 1)["keepalive"]


class Connection:
    """One client connection reading whole responses (Content-Length bodies), keeping what follows them."""

    def __init__(self, server: Server) -> None:
        host, port = server.base_url.removeprefix("http://").split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=KEEPALIVE * 6)
        self.buffer = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        assert chunk, f"connection closed after {self.buffer!r}"
        self.buffer += chunk

    def response(self) -> tuple[str, dict[str, str], bytes]:
        """The next response: its status line, its headers (lower-case names) and its body."""
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        status, *lines = head.decode("latin-1").split("\r\n")
        headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
        length = int(headers["content-length"])
        while len(self.buffer) < length:
            self._fill()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, headers, body

    def closed_silently(self) -> bool:
        """Whether the server closes the connection with nothing more sent (waits for it, up to the timeout)."""
        return self.buffer == b"" and self.sock.recv(1024) == b""

    def close(self) -> None:
        self.sock.close()


def get(path: str, *extra: str) -> bytes:
    return "\r\n".join([f"GET {path} HTTP/1.1", "Host: localhost", *extra, "", ""]).encode()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = write_data_set(tmp_path_factory.mktemp("worker") / "data", ["0001", "0002"])
    running = start_server(data, {"SVC_WORKERS": "1"})
    yield running
    output = stop_server(running)
    assert " ERROR " not in output and "Traceback" not in output, output


@pytest.fixture
def connection(server: Server) -> Iterator[Connection]:
    opened = Connection(server)
    yield opened
    opened.close()


def test_requests_in_turn_and_pipelined_are_answered_in_order_on_one_connection(connection: Connection):
    connection.send(get("/healthz"))
    status, headers, _ = connection.response()
    assert status == "HTTP/1.1 200 OK" and headers["connection"] == "keep-alive"

    connection.send(get("/api/v2/projects/0002") + get("/api/v2/projects/0001"))  # two requests in one write
    answers = [connection.response() for _ in range(2)]
    assert [status for status, _, _ in answers] == ["HTTP/1.1 200 OK"] * 2
    assert [json.loads(body)["shortcode"] for _, _, body in answers] == ["0002", "0001"]
    assert [headers["connection"] for _, headers, _ in answers] == ["keep-alive"] * 2


def test_a_body_the_view_does_not_read_is_skipped_before_the_next_request(connection: Connection):
    connection.send(get("/healthz", "Content-Length: 11") + b"GET /nope x" + get("/healthz"))
    assert [connection.response()[0] for _ in range(2)] == ["HTTP/1.1 200 OK"] * 2  # the body is not a request


def test_the_clients_connection_close_is_honoured(connection: Connection):
    connection.send(get("/healthz", "Connection: close"))
    status, headers, _ = connection.response()
    assert status == "HTTP/1.1 200 OK" and headers["connection"] == "close"
    assert connection.closed_silently()


def test_a_body_still_coming_when_the_server_closes_is_read_not_reset(connection: Connection):
    """RFC 9112 §9.6: the server answers on the headers and closes, the client sends the rest, then reads to the end.

    Closed at once, the socket's unread bytes make the kernel send a reset: the rest of the body or the final
    read fails with ECONNRESET or EPIPE.
    """
    body = b"x" * 2_000_000
    head = get("/healthz", "Connection: close", f"Content-Length: {len(body)}")
    connection.send(head + body[:1000])
    status, headers, _ = connection.response()
    assert status == "HTTP/1.1 200 OK" and headers["connection"] == "close"
    connection.send(body[1000:])
    assert connection.closed_silently()


@pytest.mark.slow
def test_an_idle_kept_alive_connection_is_closed_without_a_word(connection: Connection):
    """After the keep-alive time (5 s) with no next request; the socket's timeout is six times that."""
    connection.send(get("/healthz"))
    assert connection.response()[1]["connection"] == "keep-alive"
    assert connection.closed_silently()


@pytest.mark.slow
def test_an_idle_connection_that_sent_nothing_is_closed_without_a_word(server: Server):
    silent = Connection(server)
    try:
        assert silent.closed_silently()
    finally:
        silent.close()
