"""The DCAT-AP writer without a server: paging, vocabularies, the same bytes on every rendering and process."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.compare import isomorphic
from rdflib.namespace import DCAT, DCTERMS, RDF

from catalog.domain import dates
from catalog.domain.ledger import iso_time, read_view
from catalog.domain.loader import load_catalog
from catalog.formats import dcat, vocabularies
from tests.conftest import PROJECT_ROOT, SAMPLE_DIR, run_svc

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


# Renders every kind of description in every format into a directory, one file each.
_RENDER_ALL = """
import sys
from pathlib import Path
from catalog.domain.loader import load_catalog
from catalog.formats import dcat, links

catalog = load_catalog(Path(sys.argv[1]))
out = Path(sys.argv[2])
site = dcat.Site("https://meta.example.org", "Test", "https://meta.example.org/oai", "a@example.org",
                 "http://creativecommons.org/licenses/by/4.0/")
project = catalog.projects[0]
cluster = next(iter(catalog.clusters.values()))
collection = next(iter(catalog.collections.values()))
members = lambda group: [catalog.get_project(s) for s in group.project_shortcodes]
graphs = {
    "catalogue": lambda: dcat.catalogue_page(catalog, site, 1, site.base_url + "/catalogue/dcat?page={page}"),
    "project": lambda: dcat.project_graph(catalog, project, site),
    "record": lambda: dcat.record_graph(catalog, project, catalog.records_of(project), 0, site),
    "person": lambda: dcat.person_graph(catalog, next(iter(catalog.persons.values())), site),
    "organization": lambda: dcat.organization_graph(catalog, next(iter(catalog.organizations.values())), site),
    "cluster": lambda: dcat.group_graph(cluster, members(cluster), links.cluster_path(cluster.id), site),
    "collection": lambda: dcat.group_graph(collection, members(collection), links.collection_path(collection.id), site),
}
for kind, graph in graphs.items():
    for rdflib_format, media_type in dcat.FORMATS.items():
        (out / f"{kind}.{rdflib_format}").write_bytes(dcat.serialise(graph(), media_type))
"""
KINDS = ("catalogue", "project", "record", "person", "organization", "cluster", "collection")


def _render_all(out: Path, hash_seed: str) -> dict[str, bytes]:
    out.mkdir()
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    subprocess.run(
        [sys.executable, "-c", _RENDER_ALL, str(SAMPLE_DIR), str(out)], env=env, cwd=PROJECT_ROOT, check=True
    )
    return {path.name: path.read_bytes() for path in sorted(out.iterdir())}


@pytest.mark.slow
def test_every_process_writes_the_same_bytes_whatever_its_hash_seed(tmp_path) -> None:
    """Replicas behind a load balancer must agree on entity tags: one process per string-hash seed."""
    first = _render_all(tmp_path / "seed-1", "1")
    second = _render_all(tmp_path / "seed-2", "2")
    assert sorted(first) == sorted(f"{kind}.{name}" for kind in KINDS for name in dcat.FORMATS)
    assert [name for name in first if first[name] != second[name]] == []


@pytest.mark.slow
@pytest.mark.parametrize("rdflib_format", dcat.FORMATS)
def test_each_format_writes_the_graph_it_was_given(sample, rdflib_format: str) -> None:
    graph = dcat.catalogue_page(sample, SITE, 1, BASE + "/x?page={page}")
    written = dcat.serialise(graph, dcat.FORMATS[rdflib_format])
    assert isomorphic(Graph().parse(data=written, format=rdflib_format), graph)


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


def test_issued_is_the_publication_date_and_modified_the_ledgers_last_change(tmp_path) -> None:
    data_dir = tmp_path / "data"
    shutil.copytree(SAMPLE_DIR, data_dir)
    assert run_svc("stamp", str(data_dir)).returncode == 0
    loaded = load_catalog(data_dir)
    view = read_view(loaded)
    assert view is not None
    stamped = dataclasses.replace(loaded, ledger=view)
    graph = dcat.catalogue_page(stamped, SITE, 1, BASE + "/x?page={page}")
    issued = {project.shortcode: dates.project_issued(stamped, project) for project in stamped.projects}
    project = next(p for p in stamped.projects if len(issued[p.shortcode] or "") == 10)
    year_only = next(p for p in stamped.projects if len(issued[p.shortcode] or "") == 4)
    times = view.projects[project.key]
    subject = URIRef(f"{BASE}/projects/{project.shortcode}")
    assert graph.value(subject, DCTERMS.issued) == Literal(issued[project.shortcode], datatype=dcat.XSD.date)
    # DCAT-AP CH types dct:issued as a date: a year alone is no dct:issued (DataCite and JSON-LD carry it).
    assert graph.value(URIRef(f"{BASE}/projects/{year_only.shortcode}"), DCTERMS.issued) is None
    assert graph.value(subject, DCTERMS.modified) == Literal(iso_time(times.changed), datatype=dcat.XSD.dateTime)
    assert graph.value(dcat.catalogue_uri(BASE), DCTERMS.modified) is not None
