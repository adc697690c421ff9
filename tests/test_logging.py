"""Access lines and what they may contain: the client behind proxies, cut to its network; no personal query values."""

from __future__ import annotations

import contextlib
import json
import logging
import re
import socket
import urllib.parse

import pytest

from catalog.web.client import client_address
from svc_site.privacy import anonymize, printable, redact_query
from tests.conftest import start_server, stop_server
from tests.http_support import wait_until_read_by_server
from tests.ops_support import write_data_set


@pytest.mark.parametrize(
    ("forwarded_for", "hops", "expected"),
    [
        (None, 1, "10.0.0.9"),  # no proxy header: the TCP peer
        ("203.0.113.5", 0, "10.0.0.9"),  # proxies not trusted: the header is ignored
        ("192.0.2.1, 203.0.113.5", 1, "203.0.113.5"),  # one proxy: the entry it appended
        ("192.0.2.1, 203.0.113.5", 2, "192.0.2.1"),
        ("203.0.113.5", 3, "203.0.113.5"),  # fewer entries than hops: all written by trusted proxies
        ("192.0.2.1, not-an-address", 1, "10.0.0.9"),  # garbage: the peer, not the garbage
        (" 2001:db8::7 ", 1, "2001:db8::7"),
    ],
)
def test_client_address_behind_trusted_proxies(forwarded_for, hops, expected):
    assert client_address("10.0.0.9", forwarded_for, hops) == expected


def test_addresses_are_cut_to_their_network():
    assert anonymize("198.51.100.23") == "198.51.100.0"
    assert anonymize("2001:db8:abcd:12:1:2:3:4") == "2001:db8:abcd::"
    assert anonymize("unix-socket") == "-"


def test_query_values_are_kept_only_for_protocol_parameters():
    assert redact_query("verb=ListRecords&metadataPrefix=oai_dc&set=project:0803") == (
        "verb=ListRecords&metadataPrefix=oai_dc&set=project%3A0803"
    )
    assert redact_query("q=Jane+Doe&page=2&email=a%40b.ch") == "q=REDACTED&page=2&email=REDACTED"
    assert redact_query("") == ""


def test_control_characters_are_escaped_for_one_inert_line():
    assert printable("a\nb\r\tc\x1b[31md\x7f\x85\u2028é") == "a\\nb\\r\\tc\\x1b[31md\\x7f\\x85\\u2028é"


def test_one_access_line_per_request(client, caplog):
    with caplog.at_level(logging.INFO, logger="svc.access"):
        response = client.get("/?q=Jane%20Doe&verb=Identify", REMOTE_ADDR="192.0.2.44")
    (line,) = [record for record in caplog.records if record.name == "svc.access"]
    assert response.status_code == 308
    assert (line.method, line.path, line.query, line.status, line.client) == (
        "GET",
        "/",
        "q=REDACTED&verb=Identify",
        308,
        "192.0.2.0",
    )
    assert line.duration_ms >= 0
    assert "Jane" not in line.getMessage() and "192.0.2.44" not in line.getMessage()


# -- what a client can make the server write (issue 21, point 2) ---------------------------------------------------

FORGED = "2026-01-01 00:00:00,000 ERROR   catalog.domain.loader: reload refused"


def _raw_exchange(server, request: bytes) -> bytes:
    """Send raw bytes, read until the server closes (or answers a whole response); what came back."""
    host, port = server.base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        received = b""
        with contextlib.suppress(TimeoutError):
            while chunk := sock.recv(65536):
                received += chunk
                if b"\r\n\r\n" in received and b"Connection: close" not in received:
                    break
        return received


def _problems(output: str, env: str) -> list[str]:
    """The lines at ERROR or above, in either format."""
    if env == "PROD":
        return [line for line in output.splitlines() if json.loads(line)["level"] in {"ERROR", "CRITICAL"}]
    return [line for line in output.splitlines() if re.match(r"\S+ \S+ (ERROR|CRITICAL) ", line)]


@pytest.mark.slow
@pytest.mark.parametrize("env", ["DEV", "PROD"])
def test_a_client_cannot_forge_log_lines_or_leak_query_text(tmp_path, env):
    data = write_data_set(tmp_path / "data", ["0001"])
    extra = {"FRAMEWORK_ENV": env, "SVC_WORKERS": "1", "SVC_OAI_MAX_CONCURRENT": "1"}
    server = start_server(data, extra)
    try:
        forged_path = "/" + urllib.parse.quote("\n" + FORGED) + "%1B%5B31mred"
        assert _raw_exchange(server, f"GET {forged_path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()).startswith(
            b"HTTP/1.1 404 "
        )
        # Malformed request lines: a space in the query, raw control bytes, a bare line feed.
        for request_line in (
            b"GET /projects?q=Jane Doe HTTP/1.1",
            b"GET /projects?q=secret\x1b[31m word HTTP/1.1",
            b"GET /projects?q=secret\n" + FORGED.encode() + b" HTTP/1.1",
        ):
            answer = _raw_exchange(server, request_line + b"\r\nHost: x\r\n\r\n")
            assert answer.startswith(b"HTTP/1.1 400 "), (request_line, answer)
        # A header with a control byte in its value.
        _raw_exchange(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Note: a\x1bb\r\n\r\n")

        # A client over its OAI limits: one request in flight (its body still coming), a second one refused.
        host, port = server.base_url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as slow:
            slow.sendall(
                b"POST /dpe/oai HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                b"Content-Length: 200\r\n\r\nverb="
            )
            wait_until_read_by_server(slow)  # in flight: its view waits for the rest of the body
            refused = _raw_exchange(server, b"GET /dpe/oai?verb=Identify HTTP/1.1\r\nHost: x\r\n\r\n")
            assert refused.startswith(b"HTTP/1.1 503 "), refused
        # ... and that upload, aborted when the socket closed above.
        server.wait_for_output("POST /dpe/oai")
    finally:
        output = stop_server(server)

    assert "\x1b" not in output and "\u2028" not in output
    for secret in ("Jane", "Doe", "secret", "word"):
        assert secret not in output, secret
    assert _problems(output, env) == [], output
    assert "Traceback" not in output, output
    if env == "PROD":
        assert all(json.loads(line) for line in output.splitlines())  # every line is one JSON object
    else:
        assert "GET /\\n" + FORGED + "\\x1b[31mred 404" in output  # the access line, escaped, on one line
