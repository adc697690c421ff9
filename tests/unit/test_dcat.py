"""The DCAT-AP writer without a server: paging, vocabularies, identical bytes on every rendering."""

from __future__ import annotations

import dataclasses
import shutil

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import DCAT, DCTERMS, RDF

from catalog.domain.ledger import iso_time, read_view
from catalog.domain.loader import load_catalog
from catalog.formats import dcat, vocabularies
from tests.conftest import SAMPLE_DIR, run_svc

BASE = "https://meta.example.org"
HYDRA = dcat.HYDRA
SITE = dcat.Site(
    BASE, "Test catalogue", f"{BASE}/oai", "info@example.org", "http://creativecommons.org/licenses/by/4.0/"
)


@pytest.fixture(scope="module")
def sample():
    return load_catalog(SAMPLE_DIR)


def test_a_catalogue_of_more_than_one_page_links_its_pages_with_hydra(sample) -> None:
    count = len(sample.projects)
    assert count >= 3
    url = BASE + "/catalogue/dcat.ttl?page={page}"
    pages = dcat.catalogue_pages(sample, page_size=2)
    seen = []
    for number in range(1, pages + 1):
        graph = dcat.catalogue_page(sample, SITE, number, url, page_size=2)
        catalogue = dcat.catalogue_uri(BASE)
        view = URIRef(url.format(page=number))
        seen += list(graph.objects(catalogue, DCAT.dataset))
        assert (catalogue, HYDRA.view, view) in graph
        assert graph.value(catalogue, HYDRA.totalItems) == Literal(count)
        assert graph.value(view, HYDRA.first) == URIRef(url.format(page=1))
        assert graph.value(view, HYDRA.last) == URIRef(url.format(page=pages))
        assert graph.value(view, HYDRA.next) == (URIRef(url.format(page=number + 1)) if number < pages else None)
        assert graph.value(view, HYDRA.previous) == (URIRef(url.format(page=number - 1)) if number > 1 else None)
    assert sorted(seen) == sorted(URIRef(f"{BASE}/projects/{p.shortcode}") for p in sample.projects)


def test_a_catalogue_of_one_page_has_no_hydra_view(sample) -> None:
    graph = dcat.catalogue_page(sample, SITE, 1, BASE + "/catalogue/dcat.ttl?page={page}")
    assert graph.value(dcat.catalogue_uri(BASE), HYDRA.view) is None


@pytest.mark.parametrize("media_type", dcat.FORMATS.values())
def test_every_rendering_is_the_same_bytes(sample, media_type: str) -> None:
    bodies = {
        dcat.serialise(dcat.catalogue_page(sample, SITE, 1, BASE + "/x?page={page}"), media_type) for _ in range(2)
    }
    assert len(bodies) == 1
    assert len(Graph().parse(data=bodies.pop(), format={v: k for k, v in dcat.FORMATS.items()}[media_type])) > 0


@pytest.mark.parametrize(
    ("code", "uri"),
    [("de", "DEU"), ("en", "ENG"), ("el", "ELL"), ("cop", "COP"), ("rm", "ROH"), ("x-cpa", None), ("qqq", None)],
)
def test_languages_map_to_the_eu_authority(code: str, uri: str | None) -> None:
    assert dcat.eu_language(code) == (dcat.EU_LANGUAGE[uri] if uri else None)


@pytest.mark.parametrize(
    ("spdx", "code"),
    [("CC-BY-4.0", "CC_BY_4_0"), ("CC-BY-NC-SA-4.0", "CC_BYNCSA_4_0"), ("CC-BY-3.0", "CC_BY_3_0"), ("CC0-1.0", "CC0")],
)
def test_creative_commons_licences_map_to_the_eu_authority(spdx: str, code: str) -> None:
    assert dcat.eu_licence(spdx) == dcat.EU_LICENCE[code]


def test_licences_without_an_eu_uri_keep_their_own() -> None:
    assert dcat.eu_licence("CC-BY-2.5") is None
    assert dcat.eu_licence(None) is None
    assert vocabularies.spdx_id("https://creativecommons.org/licenses/by-nc/4.0/") == "CC-BY-NC-4.0"


def test_the_metadata_licence_is_the_catalogues_and_the_metadata_distributions(sample) -> None:
    graph = dcat.catalogue_page(sample, SITE, 1, BASE + "/x?page={page}")
    cc_by = dcat.EU_LICENCE["CC_BY_4_0"]
    assert graph.value(dcat.catalogue_uri(BASE), DCTERMS.license) == cc_by
    project = sample.projects[0]
    json_distribution = URIRef(f"{BASE}/projects/{project.shortcode}#distribution-json")
    assert graph.value(json_distribution, DCTERMS.license) == cc_by
    assert (cc_by, RDF.type, DCTERMS.LicenseDocument) in graph


def test_a_period_without_dates_keeps_its_name_only() -> None:
    graph = dcat.new_graph()
    from catalog.domain.temporal import TemporalCoverage
    from catalog.formats.item_metadata import ItemMetadata

    item = ItemMetadata("x", "URL", "DaSCH", "2020", ("Project", "Research Project"))
    item.coverage = [TemporalCoverage("Swiss", None, True), TemporalCoverage("Bronze Age", "-2200/-0800")]
    subject = URIRef(BASE + "/projects/0000")
    dcat._temporal(graph, subject, item)
    periods = {str(graph.value(node, dcat.SKOS.prefLabel)): node for node in graph.objects(subject, DCTERMS.temporal)}
    assert graph.value(periods["Swiss"], DCAT.startDate) is None
    assert graph.value(periods["Bronze Age"], DCAT.startDate) == Literal("-2200", datatype=dcat.XSD.gYear)
    assert graph.value(periods["Bronze Age"], DCAT.endDate) == Literal("-0800", datatype=dcat.XSD.gYear)


def test_issued_and_modified_come_from_the_change_ledger(tmp_path) -> None:
    data_dir = tmp_path / "data"
    shutil.copytree(SAMPLE_DIR, data_dir)
    assert run_svc("stamp", str(data_dir)).returncode == 0
    loaded = load_catalog(data_dir)
    view = read_view(loaded)
    assert view is not None
    stamped = dataclasses.replace(loaded, ledger=view)
    graph = dcat.catalogue_page(stamped, SITE, 1, BASE + "/x?page={page}")
    project = stamped.projects[0]
    times = view.projects[project.key]
    subject = URIRef(f"{BASE}/projects/{project.shortcode}")
    assert graph.value(subject, DCTERMS.issued) == Literal(iso_time(times.first_seen), datatype=dcat.XSD.dateTime)
    assert graph.value(subject, DCTERMS.modified) == Literal(iso_time(times.changed), datatype=dcat.XSD.dateTime)
    assert graph.value(dcat.catalogue_uri(BASE), DCTERMS.modified) is not None
