"""RDF on every entity page, over a real `svc serve` of the real corpus.

Each page answers Accept: text/turtle and application/rdf+xml with a 303 to its
export, whose description has the page URL as subject and links the catalogue;
media-type parameters and q-values negotiate as DOI resolvers do.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from functools import cache

import pytest
from rdflib import Graph, URIRef
from rdflib.namespace import RDF

from tests.conftest import SAMPLE_DIR, start_server, stop_server

RDF_TYPES = {"text/turtle": ("metadata.ttl", "turtle"), "application/rdf+xml": ("metadata.rdf", "xml")}


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def get(url: str, accept: str | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    try:
        with _opener.open(request, timeout=60) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@cache
def entity_paths(base_url: str) -> dict[str, str]:
    """One page of each kind (the corpus has no collections); the record is the project's first item link."""
    _, headers, _ = get(f"{base_url}/projects/0803")
    record = re.search(r'<([^>]+)> ; rel="item"', headers["Link"]).group(1).removeprefix(base_url)
    return {
        "project": "/projects/0803",
        "record": record,
        "person": "/persons/person-002",
        "organization": "/organizations/organization-001",
        "cluster": "/clusters/cluster-001",
    }


KINDS = ("project", "record", "person", "organization", "cluster")


@pytest.fixture(scope="module")
def sample_server():
    """The bundled sample data: the corpus has no collections."""
    server = start_server(SAMPLE_DIR)
    yield server
    stop_server(server)


@pytest.mark.parametrize("media_type", RDF_TYPES)
def test_a_collection_page_describes_itself_in_rdf(sample_server, media_type: str) -> None:
    base = sample_server.base_url
    path = f"/collections/{json.loads(get(f'{base}/api/v2/collections')[2])[0]['id']}"
    file, rdflib_format = RDF_TYPES[media_type]
    assert get(base + path, media_type)[1]["Location"] == f"{path}/{file}"
    graph = Graph().parse(data=get(f"{base}{path}/{file}")[2], format=rdflib_format)
    assert list(graph.objects(URIRef(base + path), RDF.type))
    assert URIRef(f"{base}/catalogue/dcat") in set(graph.all_nodes())


@pytest.mark.parametrize("media_type", RDF_TYPES)
@pytest.mark.parametrize("kind", KINDS)
def test_each_page_describes_itself_in_rdf_linked_to_the_catalogue(corpus_server, kind: str, media_type: str) -> None:
    base = corpus_server.base_url
    path = entity_paths(base)[kind]
    file, rdflib_format = RDF_TYPES[media_type]
    status, headers, _ = get(base + path, media_type)
    assert (status, headers["Location"], headers["Vary"].split(",")[0]) == (303, f"{path}/{file}", "Accept")
    status, headers, body = get(f"{base}{path}/{file}")
    assert (status, headers["Content-Type"]) == (200, f"{media_type}; charset=utf-8")
    graph = Graph().parse(data=body, format=rdflib_format)
    assert list(graph.objects(URIRef(base + path), RDF.type))  # the page URL is the subject
    assert URIRef(f"{base}/catalogue/dcat") in set(graph.all_nodes())


@pytest.mark.parametrize(
    ("accept", "location"),
    [
        ("text/x-bibliography; style=apa", "/projects/0803/citation.txt?style=apa"),
        ('application/ld+json; profile="https://schema.org/"', "/projects/0803/metadata.jsonld"),
        ("application/json; charset=utf-8", "/api/v2/projects/0803"),
        ("text/html;q=0.5, text/turtle;q=0.9", "/projects/0803/metadata.ttl"),
        ("application/rdf+xml;q=0.8, text/turtle;q=0.3", "/projects/0803/metadata.rdf"),
    ],
)
def test_parameters_and_q_values_negotiate_like_doi_resolvers(corpus_server, accept: str, location: str) -> None:
    status, headers, _ = get(f"{corpus_server.base_url}/projects/0803", accept)
    assert (status, headers["Location"]) == (303, location)


def test_html_preferred_by_q_value_gets_the_page(corpus_server) -> None:
    status, headers, _ = get(f"{corpus_server.base_url}/projects/0803", "text/turtle;q=0.2, text/html")
    assert (status, headers["Content-Type"]) == (200, "text/html; charset=utf-8")


@pytest.mark.parametrize("kind", ["person", "organization"])
def test_person_and_organization_pages_send_signposting(corpus_server, kind: str) -> None:
    base = corpus_server.base_url
    path = entity_paths(base)[kind]
    _, headers, _ = get(base + path)
    link = headers["Link"]
    for media_type, (file, _) in RDF_TYPES.items():
        assert f'<{base}{path}/{file}> ; rel="describedby" ; type="{media_type}"' in link
    assert f'<{base}{path}> ; rel="cite-as"' in link
    status, _, body = get(f"{base}{path}/linkset")
    anchor = json.loads(body)["linkset"][0]
    assert (status, anchor["anchor"]) == (200, base + path)
    assert {target["type"] for target in anchor["describedby"]} >= set(RDF_TYPES)


def test_project_signposting_advertises_the_rdf_exports(corpus_server) -> None:
    base = corpus_server.base_url
    _, headers, _ = get(f"{base}/projects/0803")
    assert f'<{base}/projects/0803/metadata.ttl> ; rel="describedby" ; type="text/turtle"' in headers["Link"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_export_box_links_the_rdf_exports(corpus_server, kind: str) -> None:
    base = corpus_server.base_url
    path = entity_paths(base)[kind]
    page = get(base + path)[2].decode()
    export_box = page[page.index('id="export"') :]
    for file, _ in RDF_TYPES.values():
        assert f'href="{path}/{file}"' in export_box
