"""Replicas behind a load balancer answer every RDF route with the same bytes and entity tag.

Two real `svc serve` processes of the same data, started with different string-hash
seeds (as two containers get), are asked for the catalogue and each kind of page in
every RDF format, with one Host header: a DCAT harvester reaching either one must see
no change where there is none.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import CORPUS_DIR, SAMPLE_DIR, Server, start_server, stop_server

HOST = "catalogue.example.org"
CATALOGUE = [f"/catalogue/dcat.{extension}" for extension in ("ttl", "rdf", "jsonld")]
NEGOTIATED = ("text/turtle", "application/rdf+xml", "application/ld+json")
EXPORTS = ("metadata.ttl", "metadata.rdf")


def get(base_url: str, path: str, accept: str = "*/*") -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(base_url + path, headers={"Host": HOST, "Accept": accept})
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.status, dict(response.headers), response.read()


def _first_id(base_url: str, kind: str) -> str:
    return json.loads(get(base_url, f"/api/v2/{kind}")[2])[0]["id"]


def entity_pages(base_url: str, kinds: tuple[str, ...]) -> list[str]:
    """The first project with records, its first record (the page's first Signposting item) and one page
    of each other kind."""
    for project in json.loads(get(base_url, "/api/v2/projects")[2]):
        page = f"/projects/{project['shortcode']}"
        item = re.search(r'<([^>]+)> ; rel="item"', get(base_url, page)[1]["Link"])
        if item is not None:
            record = item.group(1).removeprefix(f"http://{HOST}")
            return [page, record, *(f"/{kind}/{_first_id(base_url, kind)}" for kind in kinds)]
    raise AssertionError("no project has records")


pytestmark = pytest.mark.slow  # two replicas of the corpus and of the sample, every RDF export: a minute in all


@pytest.fixture(
    scope="module",
    params=[
        (CORPUS_DIR, ("persons", "organizations", "clusters")),
        (SAMPLE_DIR, ("persons", "organizations", "clusters", "collections")),
    ],
    ids=["corpus", "sample"],
)
def replicas(request) -> Iterator[tuple[Server, Server, tuple[str, ...]]]:
    data_dir, kinds = request.param
    first = start_server(Path(data_dir), {"PYTHONHASHSEED": "1"})
    try:
        second = start_server(Path(data_dir), {"PYTHONHASHSEED": "2"})
    except Exception:
        stop_server(first)
        raise
    yield first, second, kinds
    stop_server(second)
    stop_server(first)


def _same_answer(first: Server, second: Server, path: str, accept: str = "*/*") -> None:
    one, two = get(first.base_url, path, accept), get(second.base_url, path, accept)
    assert one[0] == two[0] == 200, path
    assert one[1]["ETag"] == two[1]["ETag"], path
    assert one[2] == two[2], path


def test_the_catalogue_is_the_same_on_every_replica(replicas) -> None:
    first, second, _ = replicas
    for path in CATALOGUE:
        _same_answer(first, second, path)
    for media_type in NEGOTIATED:
        _same_answer(first, second, "/catalogue/dcat", media_type)


def test_every_pages_rdf_is_the_same_on_every_replica(replicas) -> None:
    first, second, kinds = replicas
    pages = entity_pages(first.base_url, kinds)
    assert len(pages) == 2 + len(kinds)
    for page in pages:
        for export in EXPORTS:
            _same_answer(first, second, f"{page}/{export}")
