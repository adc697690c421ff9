"""Sets (SPEC §5.3): the hierarchy, membership in headers, selective harvesting by set."""

from __future__ import annotations

import logging

import pytest

from catalog.domain.loader import load_catalog
from tests.conftest import CORPUS_DIR
from tests.oai_support import NS, errors, harvest, identifiers, load, oai, project, record, serving, token

serve = pytest.fixture(serving)
ARK = "oai:dasch.swiss:ark:/72163/1/"


def header_sets(document) -> dict[str, list[str]]:
    return {
        header.findtext("o:identifier", namespaces=NS): header.xpath("o:setSpec/text()", namespaces=NS)
        for header in document.xpath("//o:header", namespaces=NS)
    }


@pytest.fixture(scope="module")
def corpus_catalog():
    return load_catalog(CORPUS_DIR)


@pytest.fixture
def corpus(serve, corpus_catalog):
    return serve(corpus_catalog)


def test_headers_list_every_set_of_the_item_with_its_parents(client, corpus):
    clustered = oai(client, verb="GetRecord", identifier=ARK + "0801b", metadataPrefix="oai_dc")
    assert header_sets(clustered) == {
        ARK + "0801b": ["entityType", "entityType:ResearchProject", "cluster", "cluster:cluster-003", "openaire_data"]
    }
    a_record = oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc", set="project:0803")
    assert set(map(tuple, header_sets(a_record).values())) == {
        ("entityType", "entityType:Record", "project", "project:0803", "openaire_data")
    }


def complete_size(client, spec: str) -> int:
    page = oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc", set=spec)
    resumption = token(page)
    return int(resumption.get("completeListSize")) if resumption is not None else len(identifiers(page))


def test_set_sizes(client, corpus):
    assert complete_size(client, "entityType") == 85 + 4198
    assert complete_size(client, "entityType:ResearchProject") == 85
    assert complete_size(client, "entityType:Record") == 4198
    assert complete_size(client, "project") == 4198
    assert complete_size(client, "project:0803") == 4198
    assert complete_size(client, "cluster") == 13
    assert complete_size(client, "cluster:cluster-003") == 5


def test_every_cluster_set_selects_exactly_the_items_whose_headers_name_it(client, corpus):
    specs = oai(client, verb="ListSets").xpath("//o:setSpec/text()", namespaces=NS)
    membership = {}
    for page in harvest(client, metadataPrefix="oai_dc", set="entityType:ResearchProject")[1]:
        membership.update(header_sets(page))
    assert len(membership) == 85
    for spec in (spec for spec in specs if spec.startswith("cluster")):
        listed, pages = harvest(client, metadataPrefix="oai_dc", set=spec)
        assert set(listed) == {identifier for identifier, sets in membership.items() if spec in sets}
        for page in pages:
            assert all(spec in sets for sets in header_sets(page).values())


def test_records_of_a_project_and_empty_sets(client, corpus):
    listed, _ = harvest(client, metadataPrefix="oai_dc", set="project:0803")
    assert len(listed) == 4198 and all(identifier.startswith(ARK + "0803/") for identifier in listed)
    # A set without items, advertised or not, and an unknown set select nothing: noRecordsMatch.
    for spec in ("project:0101", "project:9999", "cluster:cluster-999", "doesnotexist"):
        assert errors(oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc", set=spec)) == ["noRecordsMatch"]


def test_cluster_sets_hold_projects_and_their_records(client, serve, tmp_path, caplog):
    serve(
        load(
            tmp_path,
            {
                "projects/a.json": project("0AAA"),
                "projects/b.json": project("0BBC"),
                "projects/c.json": project("0CCC"),
                "records/0AAA-records.json": [record("0AAA", "r2"), record("0AAA", "r1")],
                "records/0bbc-records.json": [record("0BBC", "x")],
                "clusters/one.json": {"id": "cluster-one", "name": "One", "projects": ["0aaa", "0BBC"]},
                "clusters/bad.json": {"id": "bad id", "name": "Spaces", "projects": ["0CCC"]},
            },
        )
    )
    with caplog.at_level(logging.WARNING, logger="oaipmh"):
        listed, _ = harvest(client, metadataPrefix="oai_dc", set="cluster:cluster-one")
    assert listed == [ARK + "0AAA", ARK + "0AAA/r1", ARK + "0AAA/r2", ARK + "0BBC", ARK + "0BBC/x"]
    # A cluster whose id cannot be a setSpec gets no set, and the log says so.
    specs = oai(client, verb="ListSets").xpath("//o:setSpec/text()", namespaces=NS)
    assert not any("bad" in spec for spec in specs)
    assert "bad id" in caplog.text
    # Shortcodes match case-insensitively in project sets, as everywhere.
    assert identifiers(oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc", set="project:0bbc")) == [
        ARK + "0BBC/x"
    ]
