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
from lxml import etree, html
from pyshacl import validate
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import DCAT, DCTERMS, FOAF, PROV, RDF, SH, SKOS, XSD

from catalog.domain.ledger import iso_time, read_view
from catalog.domain.loader import load_catalog
from catalog.domain.model import Catalog
from catalog.domain.values import is_http_url
from tests.conftest import Server, start_server, stop_server
from tests.http_support import fetch
from tests.oai_support import schema
from tests.test_dcat_catalogue import SHAPE_SETS, SHAPES, violations

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


# Provenance ------------------------------------------------------------------------------------------

ISO_ROLE = "http://registry.it.csiro.au/def/isotc211/CI_RoleCode/"


def attributions(graph: Graph, subject: URIRef) -> set[tuple[str, str]]:
    """(agent, ISO 19115 role code) of each ``prov:qualifiedAttribution``; a blank agent by its ``foaf:name``."""
    found = set()
    for attribution in graph.objects(subject, PROV.qualifiedAttribution):
        assert (attribution, RDF.type, PROV.Attribution) in graph
        agent = graph.value(attribution, PROV.agent)
        name = str(agent) if isinstance(agent, URIRef) else str(graph.value(agent, FOAF.name))
        found.add((name, str(graph.value(attribution, DCAT.hadRole)).removeprefix(ISO_ROLE)))
    return found


def provenance_violations(graph: Graph) -> list[str]:
    """What the DCAT-AP 3 and DCAT-AP CH shapes find wrong with the attributions (an entity's own document is no
    catalogue: the catalogue's test checks the rest, tests/test_dcat_catalogue.py)."""
    about = ("prov#", "hadRole", "Attribution")
    return [found for name in SHAPE_SETS for found in violations(graph, name) if any(a in found for a in about)]


def test_a_project_states_who_did_what_with_roles(server) -> None:
    """0110's one project leader and contact: the attributions, and the one creator as ``prov:wasAttributedTo``."""
    graph = turtle(server, "/projects/0110")
    subject = URIRef(server.base_url + "/projects/0110")
    person = server.base_url + "/persons/person-033"
    assert attributions(graph, subject) == {(person, "originator"), (person, "pointOfContact")}
    assert list(graph.objects(subject, PROV.wasAttributedTo)) == [URIRef(person)]
    assert provenance_violations(graph) == []


def test_a_project_with_many_agents_and_funders_has_an_attribution_for_each_role(server, stamped) -> None:
    graph = turtle(server, "/projects/0101")
    subject = URIRef(server.base_url + "/projects/0101")
    found = attributions(graph, subject)
    person = server.base_url + "/persons/person-00"
    assert {(person + "1", "originator"), (person + "1", "custodian"), (person + "5", "collaborator")} <= found
    assert len(list(graph.objects(subject, DCTERMS.creator))) == 2
    assert list(graph.objects(subject, PROV.wasAttributedTo)) == []  # two creators: none alone
    funded = turtle(server, "/projects/0803")
    assert "funder" in {role for _, role in attributions(funded, URIRef(server.base_url + "/projects/0803"))}
    assert provenance_violations(graph) == []


def test_a_record_states_who_created_it_and_who_holds_its_rights(server, stamped) -> None:
    path, index = record_path(stamped, "0803")
    graph = turtle(server, path)
    subject = URIRef(server.base_url + path)
    stored = stamped.records_of(stamped.get_project("0803")).record(index)
    holder = stored["legalInfo"]["copyrightHolder"]
    assert attributions(graph, subject) == {("DaSCH", "originator"), (holder, "rightsHolder")}
    agent = graph.value(subject, PROV.wasAttributedTo)
    assert str(graph.value(agent, FOAF.name)) == "DaSCH"
    assert provenance_violations(graph) == []


# DataCite JSON --------------------------------------------------------------------------------------

DATACITE_JSON = "application/vnd.datacite.datacite+json"


def xml_pairs(resource: etree._Element, element: str, *attributes: str) -> list[tuple[str, ...]]:
    """(text, attribute values…) of each ``element`` (a path) of the XSD-valid DataCite XML."""
    return [(node.text, *(node.get(a) for a in attributes)) for node in resource.xpath(element, namespaces=DATACITE)]


def json_pairs(items: list[dict[str, object]], value: str, *keys: str) -> list[tuple[object, ...]]:
    return [(item[value], *(item.get(k) for k in keys)) for item in items]


@pytest.mark.parametrize("shortcode", ["0101", "0110", "0803", "0117"])
def test_datacite_json_says_what_the_valid_datacite_xml_says(server, shortcode) -> None:
    path = f"/projects/{shortcode}"
    negotiated = fetch(server.base_url, path, headers={"Accept": DATACITE_JSON})
    assert (negotiated.status, negotiated.headers["location"]) == (303, path + "/datacite.json")
    reply = fetch(server.base_url, path + "/datacite.json")
    assert reply.headers["content-type"] == DATACITE_JSON + "; charset=utf-8"
    document = json.loads(reply.body)
    resource = datacite(server, path)
    identifier = resource.xpath("d:identifier", namespaces=DATACITE)[0]
    assert document["identifiers"][0] == {
        "identifier": identifier.text,
        "identifierType": identifier.get("identifierType"),
    }
    assert document["url"] == server.base_url + path
    assert document["schemaVersion"] == "http://datacite.org/schema/kernel-4"
    assert str(document["publicationYear"]) == resource.xpath("string(d:publicationYear)", namespaces=DATACITE)
    assert document["publisher"]["name"] == resource.xpath("string(d:publisher)", namespaces=DATACITE)
    assert [c["name"] for c in document["creators"]] == [
        t for (t,) in xml_pairs(resource, "d:creators/d:creator/d:creatorName")
    ]
    assert json_pairs(document["titles"], "title", "titleType", "lang") == xml_pairs(
        resource, "d:titles/d:title", "titleType", "{http://www.w3.org/XML/1998/namespace}lang"
    )
    assert json_pairs(document.get("contributors", []), "name", "contributorType") == [
        (node.xpath("string(d:contributorName)", namespaces=DATACITE), node.get("contributorType"))
        for node in resource.xpath("d:contributors/d:contributor", namespaces=DATACITE)
    ]
    assert json_pairs(document["dates"], "date", "dateType") == xml_pairs(resource, "d:dates/d:date", "dateType")
    assert json_pairs(document["relatedIdentifiers"], "relatedIdentifier", "relatedIdentifierType", "relationType") == (
        xml_pairs(resource, "d:relatedIdentifiers/d:relatedIdentifier", "relatedIdentifierType", "relationType")
    )
    assert json_pairs(document["rightsList"], "rights", "rightsUri") == xml_pairs(
        resource, "d:rightsList/d:rights", "rightsURI"
    )
    assert document["types"] == {
        "resourceTypeGeneral": resource.xpath("string(d:resourceType/@resourceTypeGeneral)", namespaces=DATACITE),
        "resourceType": resource.xpath("string(d:resourceType)", namespaces=DATACITE),
    }


def test_datacite_json_is_offered_everywhere_a_harvester_looks(server, stamped) -> None:
    path, _ = record_path(stamped, "0803")
    for page in ("/projects/0803", path):
        negotiated = fetch(server.base_url, page, headers={"Accept": DATACITE_JSON})
        assert negotiated.headers["location"] == page + "/datacite.json"
        described = {link.strip() for link in negotiated.headers.get("link", "").split(",")}
        html_reply = fetch(server.base_url, page)
        link = f'<{server.base_url}{page}/datacite.json> ; rel="describedby" ; type="{DATACITE_JSON}"'
        assert link in {part.strip() for part in html_reply.headers["link"].split(",")}, described
        assert f'<link rel="alternate" type="{DATACITE_JSON}" href="{page}/datacite.json"'.encode() in html_reply.body
    record = json.loads(body(server, path + "/datacite.json"))
    assert record["relatedIdentifiers"][0] == {
        "relatedIdentifier": ARK_0803,
        "relatedIdentifierType": "ARK",
        "relationType": "IsPartOf",
    }
    graph = turtle(server, "/projects/0803")
    media = {str(m) for m in graph.objects(None, DCAT.mediaType)}
    assert "https://www.iana.org/assignments/media-types/" + DATACITE_JSON in media


# What the DCAT-AP shapes found that was svc's (issue 39, point 13) ------------------------------------

ADMS_TYPE = "http://purl.org/adms/licencetype/"
EU_LICENCE = "http://publications.europa.eu/resource/authority/licence/"


def test_a_placeholder_place_is_no_location_and_the_others_keep_theirs(server) -> None:
    """0110's ``{"type": "URL", "url": "MISSING"}`` is left out, as on its page; 0101's GeoNames places stay."""
    placeholder = turtle(server, "/projects/0110")
    assert list(placeholder.objects(URIRef(server.base_url + "/projects/0110"), DCTERMS.spatial)) == []
    assert list(placeholder.subjects(RDF.type, DCTERMS.Location)) == []
    graph = turtle(server, "/projects/0101")
    places = set(graph.objects(URIRef(server.base_url + "/projects/0101"), DCTERMS.spatial))
    assert places == {URIRef("https://www.geonames.org/3017382/"), URIRef("https://www.geonames.org/2658434/")}
    assert {str(graph.value(place, SKOS.prefLabel)) for place in places} == {"France", "Switzerland"}


def test_the_eu_licences_svc_writes_carry_their_adms_licence_types(server) -> None:
    graph = turtle(server, "/projects/0101")
    by_sa = URIRef(EU_LICENCE + "CC_BYSA_4_0")
    assert {str(t) for t in graph.objects(by_sa, DCTERMS.type)} == {
        ADMS_TYPE + "Attribution",
        ADMS_TYPE + "ViralEffect-ShareAlike",
    }
    assert {str(t) for t in graph.objects(URIRef(EU_LICENCE + "CC0"), DCTERMS.type)} == {ADMS_TYPE + "PublicDomain"}
    for kind in graph.objects(by_sa, DCTERMS.type):
        assert (kind, RDF.type, SKOS.Concept) in graph


@pytest.mark.slow  # the recommended shapes over the whole catalogue: 10 to 20 s
def test_no_recommended_shape_warns_about_an_eu_licence_or_a_placeholder_place(server) -> None:
    catalogue = Graph().parse(data=body(server, "/catalogue/dcat.ttl"), format="turtle")
    shapes = Graph().parse(SHAPES / "dcat-ap-3.0.0-shapes-recommended.ttl")
    _, report, _ = validate(catalogue, shacl_graph=shapes, allow_warnings=True)
    focus = [report.value(result, SH.focusNode) for result in report.subjects(SH.resultSeverity, SH.Warning)]
    assert [node for node in focus if str(node).startswith(EU_LICENCE)] == []
    labels = [
        catalogue.value(node, SKOS.prefLabel) for node in focus if (node, RDF.type, DCTERMS.Location) in catalogue
    ]
    assert Literal("URL") not in labels


# Vocabularies in the reader's language --------------------------------------------------------------

LANGUAGES = ("en", "de", "fr", "it")


def page(server: Server, language: str, path: str) -> etree._Element:
    reply = fetch(server.base_url, path if language == "en" else f"/{language}{path}")
    assert reply.status == 200, (language, path, reply.status)
    return html.fromstring(reply.body)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_licence_is_named_from_the_licence_vocabulary_in_every_language(server, stamped, language) -> None:
    """0803's records call CC0 "public domain"; the record page, the records listing and the project's records
    name it as every other licence is named, by the vocabulary ("CC0 1.0")."""
    path, _ = record_path(stamped, "0803")
    licences = page(server, language, path).xpath("//a[@rel='license']")
    assert [(a.text, a.get("href")) for a in licences] == [
        ("CC0 1.0", "https://creativecommons.org/publicdomain/zero/1.0/")
    ]
    listing = page(server, language, "/records?project=0803")
    facet_labels = " ".join(listing.xpath("//*[contains(@class, 'facet')]//text()"))
    assert "CC0 1.0" in facet_labels and "public domain" not in facet_labels


# The FAIRsFAIR metrics (v0.8) that depend on svc, on every project page and its first record ------------

# Projects whose licence is a placeholder: no licence a machine can read (FsF-R1.1-01M fails on the data).
PLACEHOLDER_LICENCE = {"0110", "0119", "0816", "082C", "083C"}


def fair_signals(server: Server, path: str) -> dict[str, object]:
    """What F-UJI reads of a landing page: the embedded JSON-LD, the typed links, DataCite XML and DCAT."""
    reply = fetch(server.base_url, path)
    assert reply.status == 200, path
    tree = html.fromstring(reply.body)
    document = json.loads(tree.xpath("//script[@type='application/ld+json']/text()")[0])
    links = {part.split(";")[1].strip() for part in reply.headers["link"].split(",")}
    resource = datacite(server, path)
    graph = turtle(server, path)
    subject = URIRef(server.base_url + path)
    return {
        "core": {
            key for key in ("name", "creator", "identifier", "datePublished", "publisher", "@type") if document.get(key)
        },
        "summary and keywords": bool(document.get("description")) and bool(document.get("keywords")),
        "licence": bool(document.get("license")),
        "access level": bool(
            resource.xpath(
                "d:rightsList/d:rights[starts-with(@rightsURI, 'http://purl.org/coar/access_right/')]",
                namespaces=DATACITE,
            )
        ),
        "relations": len(related(resource, "IsPartOf")) + len(related(resource, "IsIdenticalTo")),
        "provenance": bool(list(graph.objects(subject, PROV.qualifiedAttribution))),
        "typed links": {'rel="cite-as"', 'rel="describedby"', 'rel="type"'} <= links,
    }


@pytest.mark.slow  # every project of the corpus, four documents each: tens of seconds
def test_every_project_page_passes_the_metrics_that_depend_on_svc(server, stamped) -> None:
    core = {"name", "creator", "identifier", "datePublished", "publisher", "@type"}
    for project in stamped.projects:
        found = fair_signals(server, f"/projects/{project.shortcode}")
        assert found["core"] == core, project.shortcode  # FsF-F2-01M-2
        assert found["summary and keywords"], project.shortcode  # FsF-F2-01M-3
        assert found["licence"] == (project.shortcode not in PLACEHOLDER_LICENCE), project.shortcode  # FsF-R1.1-01M
        assert found["access level"], project.shortcode  # FsF-A1-01M
        # FsF-I3-01M: the catalogue, and the data application where the data names one (13 projects do not).
        stored = project.get("url")
        has_app = isinstance(stored, tuple) and bool(stored) and is_http_url(stored[0])
        assert found["relations"] >= 1 + has_app, project.shortcode
        assert found["provenance"], project.shortcode  # FsF-R1.2-01M-2 (PROV)
        assert found["typed links"], project.shortcode  # FsF-F2/I1 via Signposting


def test_a_record_page_passes_the_metrics_that_depend_on_svc(server, stamped) -> None:
    path, _ = record_path(stamped, "0803")
    found = fair_signals(server, path)
    assert found["core"] == {"name", "creator", "identifier", "datePublished", "publisher", "@type"}
    assert found["summary and keywords"] is False  # the corpus's records have neither (the data's)
    assert (found["licence"], found["access level"], found["provenance"], found["typed links"]) == (True,) * 4
    assert found["relations"] == 1  # IsPartOf its project
