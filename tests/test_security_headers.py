"""Security headers and a Content-Security-Policy without inline scripts, on every kind of response."""

from __future__ import annotations

import pytest
from lxml import html

from tests.conftest import CORPUS_DIR

pytestmark = pytest.mark.usefixtures("static_assets")

URLS = ["/projects", "/projects/0803", "/persons/person-071", "/about", "/projects/NOPE", "/projects?sort=bad"]


@pytest.fixture(autouse=True)
def corpus(install_catalog):
    return install_catalog(CORPUS_DIR)


def policy(response) -> dict[str, list[str]]:
    directives = {}
    for part in response["Content-Security-Policy"].split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


@pytest.mark.parametrize("url", URLS)
def test_security_headers(client, url):
    response = client.get(url)
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"
    csp = policy(response)
    assert csp["default-src"] == ["'none'"]
    assert csp["script-src"] == ["'self'"]
    assert csp["style-src"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["base-uri"] == ["'none'"]
    assert "unsafe-inline" not in response["Content-Security-Policy"]
    assert "unsafe-eval" not in response["Content-Security-Policy"]


def test_citation_downloads_carry_the_headers_too(client):
    response = client.get("/projects/0803/citation.bib")
    assert response["X-Content-Type-Options"] == "nosniff" and "Content-Security-Policy" in response


@pytest.mark.parametrize("url", URLS)
def test_pages_have_no_inline_script_or_style(client, url):
    tree = html.fromstring(client.get(url).content)
    for script in tree.xpath("//script"):
        assert script.get("src") or script.get("type") == "application/ld+json"
    assert not tree.xpath("//@style") and not tree.xpath("//style")
    handlers = [name for element in tree.iter() for name in element.attrib if name.lower().startswith("on")]
    assert handlers == []
