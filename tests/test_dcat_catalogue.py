"""The DCAT-AP catalogue over a real `svc serve` of the real corpus, validated with the official shapes.

Each serialisation must have zero violations against DCAT-AP 3.0.0 (mandatory
shapes plus class ranges) and against DCAT-AP CH (eCH-0200); the warnings of
the recommended shapes are measured, not asserted (see docs/linked-data.md).
"""

from __future__ import annotations

import gzip
import urllib.error
import urllib.request
from functools import cache

import pytest
from pyshacl import validate
from rdflib import Graph, URIRef
from rdflib.namespace import DCAT, DCTERMS, RDF, SH

from tests.conftest import PROJECT_ROOT

SHAPES = PROJECT_ROOT.parent / "shared" / "schemas" / "dcat-ap"
FORMATS = {
    "ttl": ("text/turtle", "turtle"),
    "rdf": ("application/rdf+xml", "xml"),
    "jsonld": ("application/ld+json", "json-ld"),
}
# The eCH-0200 shapes declare RDFS entailment (`sh:entailment`), which pyshacl applies when asked.
SHAPE_SETS = {
    "dcat-ap-3.0.0": (("dcat-ap-3.0.0-SHACL.ttl", "dcat-ap-3.0.0-range.ttl"), "none"),
    "ech-0200": (("ech-0200-dcat-ap-ch-SHACL.ttl",), "rdfs"),
}


def get(url: str, accept: str | None = None, **headers: str) -> tuple[int, dict[str, str], bytes]:
    sent = {name.replace("_", "-"): value for name, value in headers.items()}
    request = urllib.request.Request(url, headers={**sent, "Accept": accept} if accept else sent)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@cache
def shapes(name: str) -> Graph:
    graph = Graph()
    for file in SHAPE_SETS[name][0]:
        graph.parse(SHAPES / file)
    return graph


def violations(data: Graph, name: str) -> list[str]:
    _, report, _ = validate(data, shacl_graph=shapes(name), inference=SHAPE_SETS[name][1], allow_warnings=True)
    found = report.subjects(SH.resultSeverity, SH.Violation)
    return [
        f"{report.value(r, SH.focusNode)} {report.value(r, SH.resultPath)}: {report.value(r, SH.resultMessage)}"
        for r in found
    ]


@pytest.mark.slow  # SHACL over the whole catalogue: 10 to 20 s each
@pytest.mark.parametrize("extension", FORMATS)
def test_each_serialisation_has_no_violation_of_dcat_ap_or_dcat_ap_ch(corpus_server, extension: str) -> None:
    media_type, rdflib_format = FORMATS[extension]
    status, headers, body = get(f"{corpus_server.base_url}/catalogue/dcat.{extension}")
    assert status == 200
    assert headers["Content-Type"] == f"{media_type}; charset=utf-8"
    data = Graph().parse(data=body, format=rdflib_format)
    assert len(list(data.subjects(RDF.type, DCAT.Dataset))) == 85  # every project of the corpus
    for name in SHAPE_SETS:
        assert violations(data, name) == [], name


@pytest.mark.slow
def test_the_catalogue_names_its_services_and_each_dataset_has_four_distributions(corpus_server) -> None:
    _, _, body = get(f"{corpus_server.base_url}/catalogue/dcat.ttl")
    data = Graph().parse(data=body, format="turtle")
    catalogue = URIRef(f"{corpus_server.base_url}/catalogue/dcat")
    endpoints = {str(data.value(service, DCAT.endpointURL)) for service in data.objects(catalogue, DCAT.service)}
    assert endpoints == {"https://repository.dasch.swiss/dpe/oai", f"{corpus_server.base_url}/api/v2/"}
    project = URIRef(f"{corpus_server.base_url}/projects/0803")
    assert (catalogue, DCAT.dataset, project) in data
    assert len(list(data.objects(project, DCAT.distribution))) == 4


@pytest.mark.slow
def test_a_doi_only_in_a_publications_text_is_referenced(corpus_server) -> None:
    _, _, body = get(f"{corpus_server.base_url}/catalogue/dcat.ttl")
    data = Graph().parse(data=body, format="turtle")
    project = URIRef(f"{corpus_server.base_url}/projects/0844")
    assert URIRef("https://doi.org/10.25592/uhhfdm.8477") in set(data.objects(project, DCTERMS.isReferencedBy))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        ("text/turtle", "text/turtle"),
        ("application/rdf+xml", "application/rdf+xml"),
        ("application/ld+json", "application/ld+json"),
        ("application/rdf+xml;q=0.5, text/turtle;q=0.9", "text/turtle"),
        ("*/*", "text/turtle"),
        ('application/ld+json; profile="http://www.w3.org/ns/json-ld#compacted"', "application/ld+json"),
    ],
)
def test_the_negotiated_catalogue_answers_the_preferred_type(corpus_server, accept: str, expected: str) -> None:
    status, headers, _ = get(f"{corpus_server.base_url}/catalogue/dcat", accept)
    assert (status, headers["Content-Type"], headers["Vary"]) == (
        200,
        f"{expected}; charset=utf-8",
        "Accept, Accept-Encoding",
    )


def test_an_unoffered_type_is_406_with_the_offers(corpus_server) -> None:
    status, _, body = get(f"{corpus_server.base_url}/catalogue/dcat", "image/png")
    assert status == 406
    assert body.decode().splitlines()[1:] == ["text/turtle", "application/rdf+xml", "application/ld+json"]


@pytest.mark.slow
def test_the_catalogue_is_compressed_and_tagged(corpus_server) -> None:
    url = f"{corpus_server.base_url}/catalogue/dcat.ttl"
    status, headers, body = get(url, Accept_Encoding="gzip")
    assert (status, headers["Content-Encoding"]) == (200, "gzip")
    Graph().parse(data=gzip.decompress(body), format="turtle")
    assert get(url, Accept_Encoding="gzip", If_None_Match=headers["ETag"])[0] == 304


@pytest.mark.parametrize(("page", "status"), [("2", 404), ("0", 400), ("x", 400)])
def test_pages_past_the_end_or_malformed_are_refused(corpus_server, page: str, status: int) -> None:
    assert get(f"{corpus_server.base_url}/catalogue/dcat.ttl?page={page}")[0] == status
