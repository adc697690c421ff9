"""What an aggregator keeps of a full harvest, on the real corpus and the sample data (issue 11).

Harvesters such as HTTP::OAI and Catmandu store each record's ``<metadata>``
child by itself: it must parse and validate on its own. Deduplicating
aggregators key on the identifier: none may repeat. Every item must say when
it was issued, and no project whose attributions name a leading role may be
credited to the publisher.
"""

from __future__ import annotations

import pytest
from lxml import etree

from catalog.domain.loader import load_catalog
from catalog.domain.roles import creator_attributions
from tests.conftest import CORPUS_DIR, SAMPLE_DIR
from tests.oai_support import NS, SCHEMAS, harvest, serving

serve = pytest.fixture(serving)

DATA_SETS = {"corpus": CORPUS_DIR, "sample": SAMPLE_DIR}
_STANDALONE_SCHEMAS: dict[str, etree.XMLSchema] = {}


def standalone_schema(prefix: str) -> etree.XMLSchema:
    """The metadata format's own schema (not the OAI envelope)."""
    if prefix not in _STANDALONE_SCHEMAS:
        name = "oai_dc.xsd" if prefix == "oai_dc" else "oai_datacite.xsd"
        _STANDALONE_SCHEMAS[prefix] = etree.XMLSchema(etree.parse(str(SCHEMAS / name)))
    return _STANDALONE_SCHEMAS[prefix]


@pytest.fixture(scope="module", params=sorted(DATA_SETS))
def data_set(request):
    return request.param, load_catalog(DATA_SETS[request.param])


@pytest.fixture(scope="module")
def harvests(data_set):
    """Both formats harvested in full once per data set (each page XSD-valid: ``oai`` checks it)."""
    return {}


def full_harvest(client, serve, data_set, harvests, prefix: str, **arguments):
    serve(data_set[1])
    key = (prefix, tuple(sorted(arguments.items())))
    if key not in harvests:
        _, pages = harvest(client, verb="ListRecords", metadataPrefix=prefix, **arguments)
        harvests[key] = [
            (record.findtext("o:header/o:identifier", namespaces=NS), record.find("o:metadata", NS)[0])
            for page in pages
            for record in page.findall("o:ListRecords/o:record", NS)
        ]
    return harvests[key]


@pytest.mark.parametrize("prefix", ["oai_dc", "oai_datacite"])
def test_each_items_metadata_parses_and_validates_on_its_own(client, serve, data_set, harvests, prefix):
    items = full_harvest(client, serve, data_set, harvests, prefix)
    assert len(items) == len(data_set[1].projects) + data_set[1].record_count
    schema = standalone_schema(prefix)
    for oai_identifier, metadata in items:
        alone = etree.tostring(metadata)  # serialised without the envelope's namespace declarations
        reparsed = etree.fromstring(alone)
        assert schema.validate(reparsed), f"{oai_identifier}: {schema.error_log}"


def test_no_identifier_repeats_and_every_item_is_issued(client, serve, data_set, harvests):
    items = full_harvest(client, serve, data_set, harvests, "oai_datacite")
    identifiers = [metadata.findtext(".//d:resource/d:identifier", namespaces=NS) for _, metadata in items]
    assert all(identifiers) and len(set(identifiers)) == len(identifiers)
    not_issued = [
        oai_identifier
        for oai_identifier, metadata in items
        if not metadata.xpath(".//d:dates/d:date[@dateType='Issued']/text()", namespaces=NS)
    ]
    assert not_issued == []
    # No empty element anywhere (date, awardNumber, resourceType, …).
    for oai_identifier, metadata in items:
        for element in metadata.iter("{http://datacite.org/schema/kernel-4}*"):
            assert len(element) or (element.text or "").strip(), f"{oai_identifier}: empty {element.tag}"
    dc_items = full_harvest(client, serve, data_set, harvests, "oai_dc")
    dc_identifiers = [metadata.findtext("dc:identifier", namespaces=NS) for _, metadata in dc_items]
    assert len(set(dc_identifiers)) == len(dc_identifiers)
    for oai_identifier, metadata in dc_items:
        dates = metadata.xpath("dc:date/text()", namespaces=NS)
        assert dates and len(dates[0]) in (4, 10) and "T" not in dates[0], oai_identifier


def test_no_project_with_a_leading_role_is_credited_to_the_publisher(client, serve, data_set, harvests):
    catalog = data_set[1]
    items = dict(full_harvest(client, serve, data_set, harvests, "oai_datacite", set="entityType:ResearchProject"))
    assert len(items) == len(catalog.projects)
    credited_to_publisher = {
        oai_identifier
        for oai_identifier, metadata in items.items()
        if metadata.xpath(".//d:creators/d:creator/d:creatorName/text()", namespaces=NS) == ["DaSCH"]
    }
    with_leading_role = {p.shortcode for p in catalog.projects if creator_attributions(p)}
    assert not {i for i in credited_to_publisher if i.rpartition("/")[2] in with_leading_role}
    # Every creator, contributor and rights holder has a nameType.
    for metadata in items.values():
        names = metadata.xpath(".//d:creatorName | .//d:contributorName", namespaces=NS)
        assert all(name.get("nameType") in ("Personal", "Organizational") for name in names)


def test_openaire_data_is_a_set_whose_items_validate(client, serve, data_set, harvests):
    items = full_harvest(client, serve, data_set, harvests, "oai_datacite", set="openaire_data")
    assert items
    schema = standalone_schema("oai_datacite")
    for oai_identifier, metadata in items:
        assert schema.validate(etree.fromstring(etree.tostring(metadata))), oai_identifier
        resource = metadata.find(".//d:resource", NS)
        for path in ("d:identifier", "d:creators/d:creator", "d:titles/d:title", "d:publisher", "d:publicationYear"):
            assert resource.find(path, NS) is not None, (oai_identifier, path)
        rights = resource.xpath("d:rightsList/d:rights/@rightsURI", namespaces=NS)
        assert any(uri.startswith("info:eu-repo/semantics/") for uri in rights), oai_identifier
