"""catalog.web.client: the client address of a WSGI environ (client_address's cases are in tests/test_logging.py)."""

from __future__ import annotations

import pytest

from catalog.web.client import request_client


@pytest.mark.parametrize(
    "environ, hops, expected",
    [
        ({"REMOTE_ADDR": "10.0.0.9"}, 1, "10.0.0.9"),  # no header: the peer
        ({"REMOTE_ADDR": "10.0.0.9", "HTTP_X_FORWARDED_FOR": "203.0.113.7"}, 0, "10.0.0.9"),  # no proxy trusted
        ({"REMOTE_ADDR": "10.0.0.9", "HTTP_X_FORWARDED_FOR": "198.51.100.1, 203.0.113.7"}, 1, "203.0.113.7"),
        ({"REMOTE_ADDR": "10.0.0.9", "HTTP_X_FORWARDED_FOR": "198.51.100.1, 203.0.113.7"}, 2, "198.51.100.1"),
        ({"REMOTE_ADDR": "10.0.0.9", "HTTP_X_FORWARDED_FOR": "2001:DB8::1"}, 1, "2001:db8::1"),  # normalised
        ({"REMOTE_ADDR": "10.0.0.9", "HTTP_X_FORWARDED_FOR": "unknown"}, 1, "10.0.0.9"),  # malformed: the peer
        ({}, 1, ""),  # no peer at all (not a socket): empty, not an error
    ],
)
def test_request_client_reads_the_peer_and_the_forwarded_header(environ, hops, expected):
    assert request_client(environ, hops) == expected
