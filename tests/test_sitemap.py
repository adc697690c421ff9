"""/robots.txt, /sitemap.xml and the paged sitemaps, checked against the sitemaps.org protocol's structure."""

from __future__ import annotations

import re
from urllib.parse import quote, unquote, urlsplit

import pytest
from django.test import Client
from lxml import etree

from catalog.domain.loader import load_catalog
from catalog.formats.sitemap import MAX_URLS_PER_SITEMAP
from catalog.runtime import install
from tests.api_data_sets import corpus_catalog, stored_objects, write_large_data_set, write_small_data_set
from tests.conftest import CORPUS_DIR, SAMPLE_DIR
from tests.http_support import head_and_get, same_headers

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
# W3C Datetime, as the protocol requires for <lastmod>.
W3C_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?")
MAX_SITEMAP_BYTES = 50 * 1024 * 1024


@pytest.fixture
def client() -> Client:
    install(corpus_catalog())
    return Client()


def parse_urlset(response, base: str = "http://testserver") -> list[tuple[str, str | None]]:
    """(path, lastmod) of every <url>, after checking the document against the protocol's rules."""
    assert response.status_code == 200 and response["Content-Type"] == "application/xml"
    assert len(response.content) <= MAX_SITEMAP_BYTES
    assert response.content.startswith(b'<?xml version="1.0" encoding="UTF-8"?>')
    root = etree.fromstring(response.content)
    assert root.tag == f"{{{NS}}}urlset"
    entries = []
    for url in root:
        assert url.tag == f"{{{NS}}}url"
        own = [child for child in url if child.tag.startswith(f"{{{NS}}}")]
        # The protocol admits elements of other namespaces; the one used is xhtml:link (hreflang alternates).
        assert {child.tag for child in url if child not in own} <= {"{http://www.w3.org/1999/xhtml}link"}
        children = {child.tag.removeprefix(f"{{{NS}}}"): child.text for child in own}
        assert set(children) <= {"loc", "lastmod", "changefreq", "priority"} and "loc" in children
        loc = children["loc"]
        assert len(loc) < 2048 and loc.startswith(base + "/"), loc
        assert loc == quote(unquote(loc), safe=":/-._~!$&'()*+,;=@"), f"not percent-encoded: {loc}"
        if children.get("lastmod") is not None:
            assert W3C_DATETIME.fullmatch(children["lastmod"]), children["lastmod"]
        entries.append((urlsplit(loc).path, children.get("lastmod")))
    assert 0 < len(entries) <= MAX_URLS_PER_SITEMAP
    assert len({path for path, _ in entries}) == len(entries), "duplicate URLs"
    return entries


def test_robots_txt_allows_crawling_and_names_the_sitemap(client):
    response = client.get("/robots.txt")
    assert response.status_code == 200 and response["Content-Type"] == "text/plain; charset=utf-8"
    lines = response.content.decode().splitlines()
    assert lines[0] == "User-agent: *" and "Allow: /" in lines
    assert not any(line.startswith("Disallow") for line in lines)
    assert "Sitemap: http://testserver/sitemap.xml" in lines


def test_robots_txt_names_the_host_and_scheme_of_the_request(client):
    response = client.get("/robots.txt", HTTP_HOST="catalogue.example.org", secure=True)
    assert "Sitemap: https://catalogue.example.org/sitemap.xml" in response.content.decode().splitlines()


def test_corpus_sitemap_lists_every_entity_page(client):
    entries = parse_urlset(client.get("/sitemap.xml"))
    paths = [path for path, _ in entries]
    projects = sorted(stored_objects(CORPUS_DIR, "projects"), key=lambda p: p["shortcode"].lower())
    records = sorted(stored_objects(CORPUS_DIR, "records"), key=lambda r: r["pid"])
    expected = [
        "/projects",
        "/about",
        *(
            path
            for project in projects
            for path in [f"/projects/{project['shortcode']}"]
            + (["/projects/0803/records"] if project["shortcode"] == "0803" else [])
        ),
        *(f"/clusters/{c['id']}" for c in sorted(stored_objects(CORPUS_DIR, "clusters"), key=lambda c: c["id"])),
        *(f"/persons/{p['id']}" for p in sorted(stored_objects(CORPUS_DIR, "persons"), key=lambda p: p["id"])),
        *(
            f"/organizations/{o['id']}"
            for o in sorted(stored_objects(CORPUS_DIR, "organizations"), key=lambda o: o["id"])
        ),
        *(f"/projects/0803/records/{r['pid'].rpartition('/')[2]}" for r in records),
    ]
    assert paths == expected
    assert len(paths) == 2 + 85 + 1 + 5 + 416 + 142 + 4198
    # Record pages carry their datestamp (dateModified, else datePublished, else dateCreated).
    by_path = dict(entries)
    first = records[0]
    assert by_path[f"/projects/0803/records/{first['pid'].rpartition('/')[2]}"] == (
        first["datePublished"].replace("Z", "+00:00")
    )
    assert by_path["/projects/0803"] is None


def test_sitemap_urls_use_the_request_host(client):
    response = client.get("/sitemap.xml", HTTP_HOST="catalogue.example.org", secure=True)
    assert parse_urlset(response, base="https://catalogue.example.org")[0][0] == "/projects"


def test_small_data_set_sitemap_escapes_and_encodes(tmp_path):
    install(load_catalog(write_small_data_set(tmp_path / "data")))
    response = Client().get("/sitemap.xml")
    assert b"&amp;" in response.content  # the & of an id, escaped for XML
    paths = [unquote(path) for path, _ in parse_urlset(response)]
    assert paths == [
        "/projects",
        "/about",
        "/projects/0A0F",
        "/projects/0A0F/records",
        "/projects/0b1c",
        "/clusters/cluster-001",
        "/collections/collection-001",
        "/collections/collection-002",
        "/persons/person-002",
        "/persons/person-ä&b",
        "/organizations/org 1",
        "/projects/0A0F/records/rec-2",
        "/projects/0A0F/records/rec-3",
        "/projects/0A0F/records/rec=1",
    ]
    assert (
        dict(parse_urlset(Client().get("/sitemap.xml")))["/projects/0A0F/records/rec=1"] == "2021-03-04T05:06:07+00:00"
    )


def test_paged_sitemaps_exist_only_beyond_the_limit(client):
    assert client.get("/sitemap-1.xml").status_code == 404
    assert client.get("/sitemap-0.xml").status_code == 404


def test_only_get_and_head(client, corpus_server):
    for path in ("/sitemap.xml", "/robots.txt"):
        assert client.post(path).status_code == 405
        # Over a socket: Django's test client would drop a HEAD body itself.
        head, get = head_and_get(corpus_server.base_url, path, headers={"Accept-Encoding": "gzip"})
        assert head.status == get.status == 200 and head.body == b"" and len(get.body) > 0
        assert same_headers(head, get) and int(head.headers["content-length"]) == len(get.body)


@pytest.mark.slow
def test_more_than_50000_urls_become_a_sitemap_index(tmp_path):
    records = MAX_URLS_PER_SITEMAP + 10
    install(load_catalog(write_large_data_set(tmp_path / "data", records)))
    client = Client()
    response = client.get("/sitemap.xml")
    assert response.status_code == 200 and response["Content-Type"] == "application/xml"
    root = etree.fromstring(response.content)
    assert root.tag == f"{{{NS}}}sitemapindex"
    locs = []
    for sitemap in root:
        assert sitemap.tag == f"{{{NS}}}sitemap"
        assert [child.tag for child in sitemap] == [f"{{{NS}}}loc"]
        locs.append(sitemap[0].text)
    assert locs == ["http://testserver/sitemap-1.xml", "http://testserver/sitemap-2.xml"]

    first = parse_urlset(client.get("/sitemap-1.xml"))
    second = parse_urlset(client.get("/sitemap-2.xml"))
    assert len(first) == MAX_URLS_PER_SITEMAP
    # /projects, /about, the project, its record list, then every record once, in pid order.
    all_paths = [path for path, _ in first + second]
    assert all_paths[:4] == ["/projects", "/about", "/projects/0C0C", "/projects/0C0C/records"]
    assert all_paths[4:] == [f"/projects/0C0C/records/r{n:06d}" for n in range(records)]
    assert client.get("/sitemap-3.xml").status_code == 404


# The sitemap's 1,600 pages, rendered in shards that parallel workers share (every page is in one shard).
SHARDS = 8


@pytest.mark.slow  # 3,200 pages rendered: a minute and a half of CPU in all
@pytest.mark.parametrize("shard", range(SHARDS), ids=[f"shard{n}" for n in range(SHARDS)])
@pytest.mark.parametrize("data_dir", [SAMPLE_DIR], ids=["sample"])
def test_every_sitemap_url_is_a_page_and_links_its_json(data_dir, shard, install_catalog, static_assets):
    """The sitemap and the pages agree: each listed URL answers 200, and each entity page's JSON link answers too."""
    install_catalog(data_dir)
    client = Client()
    paths = [path for path, _ in parse_urlset(client.get("/sitemap.xml"))]
    assert len(paths) > 100
    json_links: set[str] = set()
    for path in paths[shard::SHARDS]:
        response = client.get(path)
        assert response.status_code == 200, path
        json_links.update(re.findall(r'<link rel="alternate" type="application/json" href="([^"]+)"', response.text))
    assert json_links
    for link in sorted(json_links):
        assert client.get(urlsplit(link).path).status_code == 200, link
