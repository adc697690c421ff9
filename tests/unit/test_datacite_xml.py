"""The ``oai_datacite`` writer: every value escaped whatever it holds, valid metadata from hostile data,
records that share their legal parts written as if alone."""

from __future__ import annotations

import dataclasses

import pytest
from lxml import etree

from catalog.formats import datacite_xml, item_metadata
from tests.oai_support import schema
from tests.unit.xml_hostile import BASE_URL, CLEAN, LOADED_CLEAN, hostile_catalog, hostile_item, hostile_items

NS = {"d": datacite_xml.KERNEL_NAMESPACE}

# Every text and attribute of the kernel that takes a value of the item (fixed scheme names aside).
VALUES = [
    "d:identifier",
    "d:identifier/@identifierType",
    "d:creators/d:creator/d:creatorName",
    "d:creators/d:creator/d:creatorName/@nameType",
    "d:creators/d:creator/d:givenName",
    "d:creators/d:creator/d:familyName",
    "d:creators/d:creator/d:nameIdentifier",
    "d:creators/d:creator/d:nameIdentifier/@nameIdentifierScheme",
    "d:creators/d:creator/d:nameIdentifier/@schemeURI",
    "d:creators/d:creator/d:affiliation",
    "d:creators/d:creator/d:affiliation/@affiliationIdentifier",
    "d:titles/d:title",
    "d:titles/d:title/@titleType",
    "d:titles/d:title/@xml:lang",
    "d:publisher",
    "d:publisher/@publisherIdentifier",
    "d:publicationYear",
    "d:resourceType",
    "d:resourceType/@resourceTypeGeneral",
    "d:subjects/d:subject",
    "d:subjects/d:subject/@xml:lang",
    "d:subjects/d:subject/@subjectScheme",
    "d:subjects/d:subject/@schemeURI",
    "d:subjects/d:subject/@valueURI",
    "d:contributors/d:contributor/@contributorType",
    "d:contributors/d:contributor/d:contributorName",
    "d:contributors/d:contributor/d:affiliation/@affiliationIdentifier",
    "d:dates/d:date",
    "d:dates/d:date/@dateType",
    "d:dates/d:date/@dateInformation",
    "d:language",
    "d:alternateIdentifiers/d:alternateIdentifier",
    "d:alternateIdentifiers/d:alternateIdentifier/@alternateIdentifierType",
    "d:relatedIdentifiers/d:relatedIdentifier",
    "d:relatedIdentifiers/d:relatedIdentifier/@relatedIdentifierType",
    "d:sizes/d:size",
    "d:formats/d:format",
    "d:rightsList/d:rights[1]",
    "d:rightsList/d:rights[1]/@rightsURI",
    "d:rightsList/d:rights[1]/@rightsIdentifier",
    "d:descriptions/d:description",
    "d:descriptions/d:description/@descriptionType",
    "d:descriptions/d:description/@xml:lang",
    "d:geoLocations/d:geoLocation/d:geoLocationPlace",
    "d:fundingReferences/d:fundingReference/d:funderName",
    "d:fundingReferences/d:fundingReference/d:funderIdentifier",
    "d:fundingReferences/d:fundingReference/d:funderIdentifier/@funderIdentifierType",
    "d:fundingReferences/d:fundingReference/d:awardNumber",
    "d:fundingReferences/d:fundingReference/d:awardNumber/@awardURI",
    "d:fundingReferences/d:fundingReference/d:awardTitle",
    "d:relatedItems/d:relatedItem/d:titles/d:title",
]


def _resource(metadata: str) -> etree._Element:
    return etree.fromstring(metadata).find(".//d:resource", NS)


@pytest.mark.parametrize("path", VALUES)
def test_a_hostile_value_is_read_back_as_given_less_what_xml_cannot_carry(path):
    resource = _resource(datacite_xml.render(hostile_item()))  # well-formed, or fromstring raises
    found = resource.xpath(path if "@" in path else f"{path}/text()", namespaces=NS)
    assert found == [CLEAN]


def test_the_access_right_is_escaped_too():
    item = hostile_item()
    rights = _resource(datacite_xml.render(item)).findall("d:rightsList/d:rights", NS)
    assert [(r.get("rightsURI"), r.text) for r in rights[1:]] == [(CLEAN, CLEAN), (CLEAN, CLEAN)]


def test_hostile_data_gives_valid_metadata(tmp_path):
    """Quotes, markup, control characters and non-characters in identifiers, languages, scheme and licence
    URIs, names, affiliations and dates of a project and its record: valid against the kernel's XSD."""
    for item in hostile_items(tmp_path):
        document = etree.fromstring(datacite_xml.render(item))
        assert schema().validate(document), schema().error_log
        resource = document.find(".//d:resource", NS)
        assert LOADED_CLEAN in resource.xpath("d:creators/d:creator//text()", namespaces=NS)  # a name, as written
        for uri in resource.xpath("d:rightsList/d:rights/@rightsURI", namespaces=NS):
            assert '"' not in uri and "<" not in uri and " " not in uri  # licence URIs are percent-encoded


def test_records_that_share_their_legal_parts_are_written_as_if_alone(tmp_path):
    catalog = hostile_catalog(tmp_path)
    project = catalog.projects[0]
    table = catalog.records_of(project)
    assert table is not None
    context = item_metadata.project_context(catalog, project, BASE_URL, "2024")
    other = {**table.record(0), "publisher": "Other Publisher", "legalInfo": [], "accessRights": "Full Open Access"}
    for record in (table.record(0), other, table.record(0), other):
        item = item_metadata.record_metadata(record, context)
        assert item.shared_renderings is not None
        alone = dataclasses.replace(item, shared_renderings=None)
        assert datacite_xml.render(item) == datacite_xml.render(alone)
    publishers = {
        _resource(datacite_xml.render(item_metadata.record_metadata(record, context))).findtext("d:publisher", None, NS)
        for record in (table.record(0), other)
    }
    assert publishers == {LOADED_CLEAN, "Other Publisher"}
