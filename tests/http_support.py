"""HTTP over a real socket: what a client receives, headers and bytes exactly as sent (no decoding)."""

from __future__ import annotations

import http.client
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

# Headers that legitimately differ between two answers to the same request.
PER_RESPONSE = {"date"}


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes


def _reply(response: http.client.HTTPResponse) -> Reply:
    body = response.read()
    return Reply(response.status, {name.lower(): value for name, value in response.getheaders()}, body)


def fetch(base_url: str, path: str, method: str = "GET", headers: dict[str, str] | None = None) -> Reply:
    """One request on a fresh connection; the body as it came off the wire (still compressed)."""
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(str(parts.hostname), parts.port, timeout=30)
    try:
        connection.request(method, path, headers=headers or {})
        return _reply(connection.getresponse())
    finally:
        connection.close()


def head_and_get(base_url: str, path: str, headers: dict[str, str] | None = None) -> tuple[Reply, Reply]:
    """HEAD, then GET on the same kept-alive connection.

    Had the server sent body bytes after the HEAD's headers, they would be read
    as the GET's status line and the GET would fail: the pair proves the HEAD had none.
    """
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(str(parts.hostname), parts.port, timeout=30)
    try:
        connection.request("HEAD", path, headers=headers or {})
        head = _reply(connection.getresponse())
        connection.request("GET", path, headers=headers or {})
        get = _reply(connection.getresponse())
    finally:
        connection.close()
    return head, get


def same_headers(first: Reply, second: Reply) -> bool:
    def comparable(reply: Reply) -> dict[str, str]:
        return {name: value for name, value in reply.headers.items() if name not in PER_RESPONSE}

    return comparable(first) == comparable(second)


def wait_until_read_by_server(sock: socket.socket, deadline: float = 30) -> None:
    """Until the server has read everything sent on ``sock``: its end's receive queue is empty.

    The kernel's table of TCP sockets (/proc/net/tcp) shows the server's end of
    the connection (local port: the server's, remote port: the client's) and
    the bytes it holds that no process has read yet. A gevent worker runs a
    request up to its first wait for the network once it has read it, so a
    request whose body is held back has then gone through the admission limits.
    """
    client_port = sock.getsockname()[1]
    server_port = sock.getpeername()[1]
    wanted = (f":{server_port:04X}", f":{client_port:04X}")
    end = time.monotonic() + deadline
    while True:
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            local, remote, queues = fields[1], fields[2], fields[4]
            if local.endswith(wanted[0]) and remote.endswith(wanted[1]) and int(queues.split(":")[1], 16) == 0:
                return
        if time.monotonic() > end:
            raise TimeoutError(f"the server did not read what was sent on {sock} within {deadline} s")
        time.sleep(0.01)
