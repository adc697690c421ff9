"""Relations, dates and provenance in every metadata format, as a real `svc serve` of the stamped corpus sends them.

One server of the real corpus, stamped (so it has a change ledger): each format of
a project and of a record is fetched over HTTP and read the way a harvester or a
FAIR tool reads it (XSD-valid DataCite XML, Dublin Core, DCAT Turtle, schema.org JSON-LD).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from lxml import etree
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, XSD

from catalog.domain.ledger import iso_time, read_view
from catalog.domain.loader import load_catalog
from catalog.domain.model import Catalog
from tests.conftest import Server, start_server, stop_server
from tests.http_support import fetch
from tests.oai_support import schema

DATACITE = {"d": "http://datacite.org/schema/kernel-4"}
DC = {"dc": "http://purl.org/dc/elements/1.1/"}
APP_0803 = "https://app.dasch.swiss/project/3ABR_2i8QYGSIDvmP9mlEw"
ARK_0803 = "https://ark.dasch.swiss/ark:/72163/1/0803"


@pytest.fixture(scope="module")
def server(stamped_corpus: Path) -> Iterator[Server]:
    running = start_server(stamped_corpus, {"SVC_WORKERS": "1"})
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def stamped(stamped_corpus: Path) -> Catalog:
    catalog = load_catalog(stamped_corpus)
    view = read_view(catalog)
    assert view is not None
    return dataclasses.replace(catalog, ledger=view)


def body(server: Server, path: str) -> bytes:
    reply = fetch(server.base_url, path)
    assert reply.status == 200, (path, reply.status)
    return reply.body


def datacite(server: Server, path: str) -> etree._Element:
    document = etree.fromstring(body(server, path + "/datacite.xml"))
    assert schema().validate(document), schema().error_log
    return document


def related(document: etree._Element, relation: str) -> list[str]:
    return document.xpath(
        f"d:relatedIdentifiers/d:relatedIdentifier[@relationType='{relation}']/text()", namespaces=DATACITE
    )


def dc(server: Server, path: str, element: str) -> list[str]:
    document = etree.fromstring(body(server, path + "/dc.xml"))
    assert schema().validate(document), schema().error_log
    return document.xpath(f"dc:{element}/text()", namespaces=DC)


def turtle(server: Server, path: str) -> Graph:
    return Graph().parse(data=body(server, path + "/metadata.ttl"), format="turtle")


def jsonld(server: Server, path: str) -> dict[str, object]:
    document: dict[str, object] = json.loads(body(server, path + "/metadata.jsonld"))
    return document


def record_path(catalog: Catalog, shortcode: str) -> tuple[str, int]:
    table = catalog.records_of(catalog.get_project(shortcode))  # type: ignore[arg-type]
    assert table is not None
    index = next(i for i in range(len(table)) if table.record(i).get("datePublished"))
    return f"/projects/{shortcode}/records/{table.pids[index].rpartition('/')[2]}", index


# Dates ---------------------------------------------------------------------------------------------


def test_a_project_is_issued_when_published_and_modified_when_the_ledger_saw_it_change(server, stamped) -> None:
    project = stamped.get_project("0803")
    changed = iso_time(stamped.ledger.projects[project.key].changed)
    graph = turtle(server, "/projects/0803")
    subject = URIRef(server.base_url + "/projects/0803")
    assert list(graph.objects(subject, DCTERMS.issued)) == [Literal("2011-04-14", datatype=XSD.date)]
    assert list(graph.objects(subject, DCTERMS.modified)) == [Literal(changed, datatype=XSD.dateTime)]
    document = jsonld(server, "/projects/0803")
    assert (document["datePublished"], document["dateModified"]) == ("2011-04-14", changed)
    resource = datacite(server, "/projects/0803")
    assert resource.xpath("d:dates/d:date[@dateType='Issued']/text()", namespaces=DATACITE) == ["2011-04-14"]
    assert dc(server, "/projects/0803", "date") == ["2011-04-14"]


def test_a_record_is_issued_when_published_and_modified_when_the_ledger_saw_it_change(server, stamped) -> None:
    path, index = record_path(stamped, "0803")
    project = stamped.get_project("0803")
    stored = stamped.records_of(project).record(index)
    published = stored["datePublished"][:10]
    changed = iso_time(stamped.ledger.record_changed_at(project.key, index))
    graph = turtle(server, path)
    subject = URIRef(server.base_url + path)
    assert list(graph.objects(subject, DCTERMS.issued)) == [Literal(published, datatype=XSD.date)]
    assert list(graph.objects(subject, DCTERMS.modified)) == [Literal(changed, datatype=XSD.dateTime)]
    document = jsonld(server, path)
    assert (document["datePublished"], document["dateModified"]) == (published, changed)


# Relations -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shortcode", ["0101", "0110", "0803"])
def test_a_project_without_publications_names_its_catalogue_and_data_application(server, stamped, shortcode) -> None:
    """0101, 0110 and 0803 cite no publication: their relations are the catalogue and the data application."""
    catalogue = server.base_url + "/catalogue/dcat"
    project = stamped.get_project(shortcode)
    app = project.get("url")[0]
    path = f"/projects/{shortcode}"
    resource = datacite(server, path)
    assert related(resource, "IsPartOf") == [catalogue]
    assert related(resource, "IsIdenticalTo") == [app]
    assert dc(server, path, "relation")[:2] == [catalogue, app]
    graph = turtle(server, path)
    subject = URIRef(server.base_url + path)
    assert set(graph.objects(subject, DCTERMS.isPartOf)) == {URIRef(catalogue)}
    assert set(graph.objects(subject, DCTERMS.relation)) == {URIRef(app)}
    document = jsonld(server, path)
    assert app in document["sameAs"]
    assert document["includedInDataCatalog"]["@id"] == server.base_url + "/about#catalog"


def test_a_project_names_its_cluster_by_pid_or_by_its_page(server) -> None:
    beol = datacite(server, "/projects/0801a")
    catalogue = server.base_url + "/catalogue/dcat"
    assert related(beol, "IsPartOf") == ["https://ark.dasch.swiss/ark:/72163/1/0801", catalogue]
    cluster_page = server.base_url + "/clusters/cluster-001"
    resource = datacite(server, "/projects/0812")
    assert related(resource, "IsPartOf") == [cluster_page, catalogue]
    assert cluster_page in dc(server, "/projects/0812", "relation")
    graph = turtle(server, "/projects/0812")
    assert URIRef(cluster_page) in set(graph.objects(URIRef(server.base_url + "/projects/0812"), DCTERMS.isPartOf))
    parts = [part["@id"] for part in jsonld(server, "/projects/0812")["isPartOf"]]  # type: ignore[index]
    assert parts == [cluster_page]


def test_a_projects_publications_are_its_citing_works(server) -> None:
    resource = datacite(server, "/projects/0117")
    assert "10.1484/J.ALMAGEST.5.113697" in related(resource, "IsCitedBy")
    graph = turtle(server, "/projects/0117")
    cited_by = set(graph.objects(URIRef(server.base_url + "/projects/0117"), DCTERMS.isReferencedBy))
    assert URIRef("https://doi.org/10.1484/J.ALMAGEST.5.113697") in cited_by


def test_a_record_is_part_of_its_project_in_every_format(server, stamped) -> None:
    path, _ = record_path(stamped, "0803")
    assert related(datacite(server, path), "IsPartOf") == [ARK_0803]
    assert ARK_0803 in dc(server, path, "relation")
    graph = turtle(server, path)
    assert list(graph.objects(URIRef(server.base_url + path), DCTERMS.isPartOf)) == [
        URIRef(server.base_url + "/projects/0803")
    ]
    assert jsonld(server, path)["isPartOf"]["@id"] == server.base_url + "/projects/0803"  # type: ignore[index]
