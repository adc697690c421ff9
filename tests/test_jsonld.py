"""schema.org JSON-LD on the entity pages parses and carries the required properties."""

from __future__ import annotations

import json

import pytest
from lxml import html

from catalog.domain.identifiers import shared_pids
from catalog.formats import links
from tests import datadir
from tests.conftest import CORPUS_DIR

pytestmark = pytest.mark.usefixtures("static_assets")


def jsonld_of(client, url: str) -> dict:
    response = client.get(url)
    assert response.status_code == 200
    blocks = html.fromstring(response.content).xpath("//script[@type='application/ld+json']/text()")
    assert len(blocks) == 1
    return json.loads(blocks[0])


@pytest.mark.slow
def test_every_corpus_project_is_a_complete_dataset(client, install_catalog):
    catalog = install_catalog(CORPUS_DIR)
    for project in catalog.projects:
        document = jsonld_of(client, links.project_path(project.shortcode))
        assert document["@context"] == "https://schema.org"
        assert document["@type"] == "Dataset"
        assert document["name"] == project.name
        assert 50 <= len(document["description"]) <= 5000, project.shortcode
        assert document["url"] == f"http://testserver/projects/{project.shortcode}"
        identifiers = document["identifier"] if isinstance(document["identifier"], list) else [document["identifier"]]
        # A pid several items share identifies none of them: the page does (catalog.domain.identifiers).
        shared = shared_pids(catalog).is_shared(project.pid)
        assert (document["url"] if shared else project.pid) in identifiers
        assert (project.pid not in identifiers) == shared
        assert document["creator"] and all(c["@type"] in {"Person", "Organization"} for c in document["creator"])
        assert all(c["name"] for c in document["creator"])
        assert isinstance(document["isAccessibleForFree"], bool)
        assert document["conditionsOfAccess"]
        assert document["keywords"]
        for optional in ("license", "temporalCoverage", "spatialCoverage", "funder"):
            if optional in document:
                assert document[optional]


def test_dataset_properties_of_0803(client, install_catalog):
    install_catalog(CORPUS_DIR)
    document = jsonld_of(client, "/projects/0803")
    assert document["license"] == "https://creativecommons.org/licenses/by/4.0/"
    assert document["temporalCoverage"] == "1250/1500"  # "Late Middle Ages", resolved as OAI resolves it
    assert document["spatialCoverage"] == [
        {"@type": "Place", "name": "Basel", "sameAs": "https://www.geonames.org/2661604/basel.html"}
    ]
    assert [funder["name"] for funder in document["funder"]] == ["Swiss National Science Foundation (SNSF)"]
    creators = {creator["name"] for creator in document["creator"]}
    assert creators == {"Barbara Schellewald", *(p.display_name for p in _persons("person-072", "person-073"))}
    assert document["isAccessibleForFree"] is True
    assert "Basel" in document["keywords"]


def _persons(*ids: str):
    from catalog.runtime import get_catalog

    return [get_catalog().persons[i] for i in ids]


def test_short_and_long_descriptions_are_brought_within_50_to_5000(client, tmp_path, install_catalog):
    short = datadir.project("0D01", description={"en": "Tiny."}, shortDescription="Tiny.", abstract=None)
    long_text = "Sediment cores from the lake floor. " * 400
    long = datadir.project("0D02", description={"en": long_text})
    install_catalog(datadir.write_data_dir(tmp_path / "d", projects=[short, long]))
    short_description = jsonld_of(client, "/projects/0D01")["description"]
    assert 50 <= len(short_description) <= 5000 and short_description.startswith("Tiny.")
    long_description = jsonld_of(client, "/projects/0D02")["description"]
    assert len(long_description) <= 5000 and long_description.endswith("lake floor.")  # cut after a sentence


def test_embargoed_project_is_not_free_and_says_until_when(client, tmp_path, install_catalog):
    embargoed = datadir.project("0D03", accessRights={"accessRights": "Embargoed Access", "embargoDate": "2031-06-30"})
    install_catalog(datadir.write_data_dir(tmp_path, projects=[embargoed]))
    document = jsonld_of(client, "/projects/0D03")
    assert document["isAccessibleForFree"] is False
    assert document["conditionsOfAccess"] == "Embargoed Access (embargo until 2031-06-30)"


def test_project_without_creator_roles_names_the_publisher(client, tmp_path, install_catalog):
    project = datadir.project("0D04", attributions=[{"contributor": "person-001", "contributorType": ["Data curator"]}])
    install_catalog(datadir.write_data_dir(tmp_path, projects=[project]))
    document = jsonld_of(client, "/projects/0D04")
    assert document["creator"] == [{"@type": "Organization", "name": "DaSCH"}]
    assert [c["name"] for c in document["contributor"]] == ["Mira Sommer"]


def test_person_organization_record_and_cluster(client, install_catalog):
    catalog = install_catalog(CORPUS_DIR)
    person = jsonld_of(client, "/persons/person-071")
    assert person["@type"] == "Person" and person["name"] == "Barbara Schellewald"
    assert person["familyName"] == "Schellewald" and person["givenName"] == "Barbara"
    assert person["affiliation"][0]["@type"] == "Organization"
    assert "email" not in person

    organization = jsonld_of(client, "/organizations/organization-002")
    assert organization["@type"] == "Organization"
    assert organization["url"] == "http://www.snf.ch/"
    assert organization["address"]["addressLocality"] == "Bern"

    table = catalog.records["0803"]
    record = jsonld_of(client, links.record_path("0803", table.pids[0]))
    assert record["@type"] == "CreativeWork" and record["identifier"] == table.pids[0]
    assert record["isPartOf"]["@id"] == "http://testserver/projects/0803"

    cluster = jsonld_of(client, "/clusters/cluster-001")
    assert cluster["@type"] == "Collection"
    assert {part["@id"] for part in cluster["hasPart"]} == {
        "http://testserver/projects/0812",
        "http://testserver/projects/082A",
    }


def test_orcid_goes_to_same_as(client, tmp_path, install_catalog):
    install_catalog(datadir.write_data_dir(tmp_path))
    assert jsonld_of(client, "/persons/person-001")["sameAs"] == ["https://orcid.org/0000-0002-1825-0097"]
