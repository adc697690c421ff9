"""Every verb in both formats answers schema-valid XML on every data set, item by item.

The real corpus is covered page by page in test_oai_protocol.py; here the
bundled sample data and a small data set of odd but loadable shapes.
"""

from __future__ import annotations

import pytest

from catalog.domain.loader import load_catalog
from tests.conftest import SAMPLE_DIR
from tests.oai_support import NS, errors, harvest, load, oai, project, record, serving

serve = pytest.fixture(serving)


def odd_data(root):
    """Collections, clusters, shared and missing pids, records without pids or dates, placeholders."""
    return load(
        root,
        {
            "projects/a.json": project(
                "0AAA",
                pid="https://ark.dasch.swiss/ark:/72163/1/0AA0",
                collections=["collection-1"],
                temporalCoverage=[{"en": "Somewhen"}, {"type": "URL", "url": "MISSING"}],
                spatialCoverage=[{"type": "Geonames", "url": "https://www.geonames.org/1"}],
                funding=[{"funders": ["organization-1"], "url": "https://funder.test/grant"}],
                attributions=[
                    {"contributor": "person-1", "contributorType": ["Projektleitung"]},
                    {"contributor": "organization-1", "contributorType": ["Research Group"]},
                    {"contributor": "person-1", "contributorType": []},
                ],
                url=["https://app.test/project/0AAA", "https://website.test"],
            ),
            "projects/b.json": project("0BBB", pid="https://ark.dasch.swiss/ark:/72163/1/0AA0", endDate="MISSING"),
            "projects/c.json": project(
                "0CCC", pid="", publications=[{"text": "A book", "pid": {"url": "doi:10.1234/x"}}]
            ),
            "persons/p.json": [
                {
                    "id": "person-1",
                    "givenNames": ["Ada"],
                    "familyNames": ["MISSING"],
                    "affiliations": ["organization-1"],
                    "sameAs": [{"type": "GND", "url": "http://d-nb.info/gnd/123"}],
                }
            ],
            "organizations/o.json": {
                "id": "organization-1",
                "name": "Org",
                "sameAs": [{"type": "ROR", "url": "https://ror.org/00test"}],
            },
            "clusters/c.json": {"id": "cluster-1", "name": "C", "pid": "https://ark.test/c", "projects": ["0BBB"]},
            "collections/c.json": {
                "id": "collection-1",
                "name": "Coll",
                "projects": ["0AAA"],
                "pid": "https://x.test/c",
            },
            "records/0AAA-records.json": [
                record("0AAA", "r1"),
                record("0AAA", "r2", dateCreated="MISSING", datePublished=None, typeOfData=["Video"], size=12),
                {"id": "http://rdfh.ch/0AAA/nopid", "label": {"xx-invalid-language-tag!": "odd"}},
            ],
        },
    )


DATA = [
    pytest.param(odd_data, id="odd-data"),
    pytest.param(
        lambda _root: load_catalog(SAMPLE_DIR),
        id="sample",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("make", DATA)
def test_every_verb_and_every_item_in_both_formats(client, serve, tmp_path, make):
    catalog = serve(make(tmp_path))
    assert not errors(oai(client, verb="Identify"))
    assert not errors(oai(client, verb="ListSets"))
    listed, _ = harvest(client, metadataPrefix="oai_dc")
    assert len(listed) == len(set(listed)) == len(catalog.projects) + catalog.record_count
    for prefix in ("oai_dc", "oai_datacite"):
        records, _ = harvest(client, "ListRecords", metadataPrefix=prefix)
        assert records == listed
        for identifier in listed:
            assert not errors(oai(client, verb="GetRecord", identifier=identifier, metadataPrefix=prefix))
    for identifier in listed:
        assert not errors(oai(client, verb="ListMetadataFormats", identifier=identifier))


def test_odd_data_identifiers_and_roles(client, serve, tmp_path):
    serve(odd_data(tmp_path))
    listed, _ = harvest(client, metadataPrefix="oai_dc")
    ark = "oai:dasch.swiss:ark:/72163/1/"
    # Shared pid: identifiers from the shortcodes. A record whose pid is unlike
    # its siblings' (here: none, so its IRI stands in) is identified by all of it.
    assert listed == [
        ark + "0AAA",
        ark + "0AAA/~http%3A%2F%2Frdfh.ch%2F0AAA%2Fnopid",
        ark + "0AAA/r1",
        ark + "0AAA/r2",
        ark + "0BBB",
        ark + "0CCC",
    ]
    document = oai(client, verb="GetRecord", identifier=ark + "0AAA", metadataPrefix="oai_datacite")
    # A creator by one attribution is not also a contributor by another.
    assert document.xpath("//d:creatorName/text()", namespaces=NS) == ["Ada"]
    assert document.xpath("//d:contributorName/text()", namespaces=NS) == ["Org"]
