"""catalog.web.origin: the site's origin as the request names it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from catalog.web.origin import base_url


@dataclass
class Request:
    scheme: str
    host: str

    def get_host(self) -> str:
        return self.host


@pytest.mark.parametrize(
    "scheme, host, expected",
    [
        ("https", "meta.example.org", "https://meta.example.org"),
        ("http", "127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http", "[::1]:8080", "http://[::1]:8080"),
    ],
)
def test_base_url_is_scheme_and_host_without_a_trailing_slash(scheme, host, expected):
    assert base_url(Request(scheme, host)) == expected
