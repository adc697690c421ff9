"""Access lines and what they may contain: the client behind proxies, cut to its network; no personal query values."""

from __future__ import annotations

import logging

import pytest

from catalog.web.client import client_address
from svc_site.privacy import anonymize, redact_query


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
