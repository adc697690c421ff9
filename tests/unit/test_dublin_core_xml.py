"""The ``oai_dc`` writer: every value escaped whatever it holds, valid metadata from hostile data,
records that share their legal parts written as if alone."""

from __future__ import annotations

import dataclasses

from lxml import etree

from catalog.formats import dublin_core_xml, item_metadata
from tests.oai_support import schema
from tests.unit.xml_hostile import BASE_URL, CLEAN, LOADED_CLEAN, hostile_catalog, hostile_item, hostile_items

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def _elements(metadata: str) -> list[tuple[str, str | None, str | None]]:
    return [(e.tag.rpartition("}")[2], e.get(XML_LANG), e.text) for e in etree.fromstring(metadata)]


def test_a_hostile_value_is_read_back_as_given_less_what_xml_cannot_carry():
    elements = _elements(dublin_core_xml.render(hostile_item()))  # well-formed, or fromstring raises
    assert elements == [
        ("title", CLEAN, CLEAN),
        ("creator", None, CLEAN),
        ("subject", CLEAN, CLEAN),
        ("description", CLEAN, CLEAN),
        ("publisher", None, CLEAN),
        ("date", None, CLEAN),
        ("date", None, f"info:eu-repo/date/embargoEnd/{CLEAN[:10]}"),
        ("type", None, "Dataset"),
        ("format", None, CLEAN),
        ("identifier", None, CLEAN),
        ("identifier", None, CLEAN),
        ("language", None, CLEAN),
        ("relation", None, CLEAN),
        ("relation", None, CLEAN),
        ("coverage", None, CLEAN),
        ("rights", None, CLEAN),
        ("rights", None, CLEAN),
        ("rights", None, CLEAN),
        ("rights", None, CLEAN),
    ]


def test_hostile_data_gives_valid_metadata(tmp_path):
    """Quotes, markup, control characters and non-characters in identifiers, languages, licence URIs, names
    and dates of a project and its record: valid against the oai_dc XSD, the languages that are tags kept."""
    for item in hostile_items(tmp_path):
        document = etree.fromstring(dublin_core_xml.render(item))
        assert schema().validate(document), schema().error_log
        elements = _elements(dublin_core_xml.render(item))
        assert ("language", None, "de") in elements
        assert {lang for _, lang, _ in elements} <= {None, "de", "en"}


def test_records_that_share_their_legal_parts_are_written_as_if_alone(tmp_path):
    catalog = hostile_catalog(tmp_path)
    project = catalog.projects[0]
    table = catalog.records_of(project)
    assert table is not None
    context = item_metadata.project_context(catalog, project, BASE_URL, "2024")
    other = {**table.record(0), "publisher": "Other Publisher", "legalInfo": [], "accessRights": "Full Open Access"}
    written = []
    for record in (table.record(0), other, table.record(0), other):
        item = item_metadata.record_metadata(record, context)
        assert item.shared_renderings is not None
        written.append(dublin_core_xml.render(item))
        assert written[-1] == dublin_core_xml.render(dataclasses.replace(item, shared_renderings=None))
    publishers = [[text for tag, _, text in _elements(metadata) if tag == "publisher"] for metadata in written]
    assert publishers == [[LOADED_CLEAN], ["Other Publisher"], [LOADED_CLEAN], ["Other Publisher"]]
