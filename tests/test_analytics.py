"""The analytics script (Umami) appears only with SVC_ANALYTICS_SITE_ID, and the CSP follows."""

from __future__ import annotations

import dataclasses

import pytest
from django.conf import settings
from django.test import override_settings
from lxml import html

from svc_site.config import ConfigError, load_config
from tests.conftest import CORPUS_DIR

pytestmark = pytest.mark.usefixtures("static_assets")
SITE_ID = "5f0c2a7e-3d41-4a8e-9d8e-0b1f7c2d9a11"


@pytest.fixture(autouse=True)
def corpus(install_catalog):
    return install_catalog(CORPUS_DIR)


def analytics(**changes):
    return override_settings(SVC=dataclasses.replace(settings.SVC, **changes))


def external_scripts(response) -> list:
    return [s for s in html.fromstring(response.content).xpath("//script[@src]") if "://" in s.get("src")]


@pytest.mark.parametrize("url", ["/projects", "/projects/0803", "/about", "/projects/NOPE"])
def test_no_analytics_without_a_site_id(client, url):
    response = client.get(url)
    assert external_scripts(response) == []
    assert b"umami" not in response.content
    assert "umami" not in response["Content-Security-Policy"]
    assert not response.cookies


@pytest.mark.parametrize("url", ["/projects", "/projects/0803", "/about", "/projects/NOPE"])
def test_analytics_script_with_a_site_id(client, url):
    with analytics(analytics_site_id=SITE_ID):
        response = client.get(url)
    (script,) = external_scripts(response)
    assert script.get("src") == "https://cloud.umami.is/script.js"
    assert script.get("data-website-id") == SITE_ID
    assert script.get("data-host-url") == "https://cloud.umami.is"
    assert script.get("data-identity-stitching") == "false"  # no visitor id in localStorage
    assert script.get("defer") is not None
    csp = response["Content-Security-Policy"]
    assert "script-src 'self' https://cloud.umami.is;" in csp
    assert "connect-src 'self' https://cloud.umami.is;" in csp
    assert not response.cookies


def test_a_self_hosted_analytics_server(client):
    with analytics(analytics_site_id=SITE_ID, analytics_url="https://stats.example.org/umami"):
        response = client.get("/projects/0803")
    (script,) = external_scripts(response)
    assert script.get("src") == "https://stats.example.org/umami/script.js"
    assert "script-src 'self' https://stats.example.org;" in response["Content-Security-Policy"]


def test_analytics_configuration_is_validated():
    config, names = load_config({"SVC_ANALYTICS_SITE_ID": SITE_ID})
    assert config.analytics_site_id == SITE_ID and config.analytics_url == "https://cloud.umami.is"
    assert "SVC_ANALYTICS_URL" in names
    with pytest.raises(ConfigError, match="SVC_ANALYTICS_URL"):
        load_config({"SVC_ANALYTICS_URL": "javascript:alert(1)"})
