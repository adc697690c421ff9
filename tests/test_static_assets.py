"""The CSS/JS package: named by the FRAMEWORK_* variables, fingerprinted, compressed, long-cached."""

from __future__ import annotations

import dataclasses
import gzip
import re

import pytest
from django.conf import settings
from django.test import Client, override_settings
from lxml import html

from svc_site.assets import SOURCE_DIR, is_built
from tests import datadir
from tests.conftest import CORPUS_DIR


@pytest.fixture(autouse=True)
def corpus(install_catalog):
    return install_catalog(CORPUS_DIR)


def asset_urls(client: Client) -> tuple[str, str]:
    tree = html.fromstring(client.get("/about").content)
    (css,) = tree.xpath("//link[@rel='stylesheet']/@href")
    (js,) = tree.xpath("//script[@src]/@src")
    return css, js


def test_default_names_are_pkg_svc(static_assets):
    assert (static_assets / "pkg" / "svc.css").is_file() and (static_assets / "pkg" / "svc.js").is_file()
    css, js = asset_urls(Client())
    assert re.fullmatch(r"/static/pkg/svc\.[0-9a-f]{12}\.css", css)
    assert re.fullmatch(r"/static/pkg/svc\.[0-9a-f]{12}\.js", js)
    assert (static_assets / css.removeprefix("/static/")).read_bytes() == (SOURCE_DIR / "site.css").read_bytes()


def test_fingerprinted_assets_are_served_compressed_and_cached_for_a_year(static_assets):
    client = Client()
    css, js = asset_urls(client)
    for url in (css, js):
        response = client.get(url, HTTP_ACCEPT_ENCODING="gzip")
        assert response.status_code == 200
        assert response["Content-Encoding"] == "gzip"
        assert "immutable" in response["Cache-Control"] and "max-age=315360000" in response["Cache-Control"]
        body = gzip.decompress(b"".join(response.streaming_content))
        source = "site.css" if url.endswith(".css") else "site.js"
        assert body == (SOURCE_DIR / source).read_bytes()


def test_names_follow_the_framework_variables(tmp_path):
    config = dataclasses.replace(settings.SVC, site_pkg_dir="assets/v2", output_name="catalogue")
    with override_settings(SVC=config, STATIC_ROOT=str(tmp_path)):
        assert not is_built(tmp_path, config)
        from svc_site.assets import ensure_built

        ensure_built()
        assert is_built(tmp_path, config)
        assert (tmp_path / "assets" / "v2" / "catalogue.css").is_file()
        assert (tmp_path / "assets" / "v2" / "catalogue.js.gz").is_file()
        css, js = asset_urls(Client())
    assert re.fullmatch(r"/static/assets/v2/catalogue\.[0-9a-f]{12}\.css", css)
    assert re.fullmatch(r"/static/assets/v2/catalogue\.[0-9a-f]{12}\.js", js)
    # Built for other names, the root is stale for the defaults.
    assert not is_built(tmp_path, settings.SVC)


def test_pages_still_render_when_assets_were_not_built(tmp_path, install_catalog):
    install_catalog(datadir.write_data_dir(tmp_path / "data"))  # a new catalogue: nothing rendered yet
    with override_settings(STATIC_ROOT=str(tmp_path / "empty")):
        response = Client().get("/about")
    assert response.status_code == 200
    assert b'href="/static/pkg/svc.css"' in response.content


def test_no_third_party_fonts_or_cdn():
    css = (SOURCE_DIR / "site.css").read_text()
    js = (SOURCE_DIR / "site.js").read_text()
    assert "@import" not in css and "@font-face" not in css and "url(" not in css
    assert "http://" not in css + js and "https://" not in css + js
