"""HTTP over a real socket: what a client receives, headers and bytes exactly as sent (no decoding)."""

from __future__ import annotations

import http.client
from dataclasses import dataclass
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
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
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
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
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
