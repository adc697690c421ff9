"""The JSON Schemas of catalog/domain/schemas: valid and invalid examples of each type."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from catalog.domain.schema import SCHEMA_DIR, SCHEMA_FILES, schemas
from tests.validation_data import PROJECT_FILE, RECORDS_FILE, project, record, valid_files


def errors(kind: str, instance: Any) -> list[tuple[tuple[str | int, ...], str]]:
    return list(schemas().errors(kind, instance))


def changed(value: dict[str, Any], **fields: Any) -> dict[str, Any]:
    result = copy.deepcopy(value)
    for name, new in fields.items():
        if new is None:
            del result[name]
        else:
            result[name] = new
    return result


SHORTCODE = "is not a project shortcode (four hexadecimal digits, optionally followed by a lowercase letter)"
ARK = "is not an ARK URL (https://host/ark:/NAAN/…) or a placeholder"
RECORD_ARK = "is not a record ARK URL (https://host/ark:/NAAN/1/<shortcode>/<record>) or a placeholder"
DATE = "is not a date (YYYY-MM-DD) or a placeholder"
TIMESTAMP = "is not a timestamp (RFC 3339, e.g. 2024-01-31T12:00:00Z) or a placeholder"
URL = "is not an http(s) URL without spaces, or a placeholder"
LANGUAGE_MAP = 'is not a language map ({"en": "…", …}) with at least one text'
ACCESS_RIGHTS = (
    'is not one of "Full Open Access", "Open Access with Restrictions", "Embargoed Access", '
    '"Metadata only Access", or a placeholder'
)
CONTRIBUTOR = "is not a person or organization id (person-NNN, organization-NNN)"
FUNDING = 'is not a list of grants ({funders: [ids], number?, name?, url?}) or a text such as "No funding"'
PROJECT_URL = "is not a reference ({type, url, text?}) or the legacy array [data URL, website URL]"
W3CDTF = "is not a W3CDTF year or start/end range of years (e.g. 1850, -0945/-0715) or null"


FILES = valid_files()
PERSON = FILES["persons/person-001.json"]
ORGANIZATION = FILES["organizations/organization-002.json"]
CLUSTER = FILES["clusters/cluster-001.json"]
COLLECTION = FILES["collections/collection-001.json"]


def test_every_schema_is_draft_2020_12_and_names_its_file() -> None:
    for name in ("definitions.json", *SCHEMA_FILES.values()):
        schema = json.loads((SCHEMA_DIR / name).read_text("utf-8"))
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema", name
        assert schema["title"].startswith("svc: "), name


@pytest.mark.parametrize(
    "kind, instance",
    [
        ("project", FILES[PROJECT_FILE]),
        ("record", FILES[RECORDS_FILE][0]),
        ("person", PERSON),
        ("organization", ORGANIZATION),
        ("cluster", CLUSTER),
        ("collection", COLLECTION),
        ("chronontology-periods", FILES["chronontology-periods.json"]),
        ("temporal-coverage-enrichment", FILES["temporal-coverage-enrichment.json"]),
    ],
)
def test_valid_examples(kind: str, instance: Any) -> None:
    assert errors(kind, instance) == []


def test_project_accepts_the_shapes_of_the_data_model() -> None:
    """Funding as a string, url as a reference, placeholders where a value is unknown, unknown fields."""
    variant = changed(
        project(),
        funding="No funding",
        url={"type": "URL", "url": "https://app.example.org/p"},
        startDate="MISSING",
        status="MISSING",
        dataPublicationYear="2026",
        abstract="Plain text",
        additionalMaterial=["https://example.org/more", {"type": "URL", "url": "MISSING"}],
        somethingNew={"kept": True},
    )
    variant["legalInfo"][0]["license"] = {
        "licenseIdentifier": "MISSING",
        "licenseDate": "MISSING",
        "licenseURI": "MISSING",
    }
    variant["accessRights"] = {"accessRights": "Metadata only Access"}
    assert errors("project", variant) == []
    assert errors("project", changed(project(), url=["MISSING"], funding=[])) == []


@pytest.mark.parametrize(
    "fields, expected",
    [
        ({"shortcode": "ABCDE"}, [(("shortcode",), f'"ABCDE" {SHORTCODE}')]),
        ({"pid": "ark:/99999/1/0A1B"}, [(("pid",), f'"ark:/99999/1/0A1B" {ARK}')]),
        ({"status": "Active"}, [(("status",), '"Active" is not "Ongoing", "Finished" or a placeholder')]),
        ({"endDate": "2024-13-01"}, [(("endDate",), f'"2024-13-01" {DATE}')]),
        ({"accessRights": {"accessRights": "Open"}}, [(("accessRights", "accessRights"), f'"Open" {ACCESS_RIGHTS}')]),
        ({"description": "plain"}, [(("description",), f'"plain" {LANGUAGE_MAP}')]),
        ({"keywords": [{"english": "x"}]}, [(("keywords", 0), f'{{"english": "x"}} {LANGUAGE_MAP}')]),
        (
            {"temporalCoverage": [{"type": "Periodo"}]},
            [
                (
                    ("temporalCoverage", 0),
                    '{"type": "Periodo"} is not a language map or an authority reference ({type, url, text?})',
                )
            ],
        ),
        (
            {"spatialCoverage": [{"type": "Geonames", "url": "www.geonames.org/1"}]},
            [(("spatialCoverage", 0, "url"), f'"www.geonames.org/1" {URL}')],
        ),
        (
            {"attributions": [{"contributor": "person-1", "contributorType": []}]},
            [(("attributions", 0, "contributorType"), "[] has less than 1 item")],
        ),
        (
            {"attributions": [{"contributor": "anna", "contributorType": ["Editor"]}]},
            [(("attributions", 0, "contributor"), f'"anna" {CONTRIBUTOR}')],
        ),
        ({"funding": [{"name": "Grant"}]}, [(("funding", 0), 'missing required field "funders"')]),
        ({"funding": 12}, [(("funding",), f"12 {FUNDING}")]),
        (
            {"url": ["https://a.example.org", "https://b.example.org", "https://c.example.org"]},
            [(("url",), f'["https://a.example.org", "https://b.example.org", "https://c.example.org"] {PROJECT_URL}')],
        ),
        ({"url": ["a url"]}, [(("url", 0), f'"a url" {URL}')]),
        (
            {"dataLanguage": ["German"]},
            [(("dataLanguage", 0), '"German" is not a BCP 47 language tag (e.g. en, de-CH, x-cpa)')],
        ),
        ({"contactPoint": "person-001"}, [(("contactPoint",), "expected an array, found a string")]),
        ({"dataPublicationYear": "26"}, [(("dataPublicationYear",), '"26" is not a year (YYYY) or a placeholder')]),
        ({"publications": [{"text": ""}]}, [(("publications", 0, "text"), '"" is not a non-empty string')]),
        ({"howToCite": None}, [((), 'missing required field "howToCite"')]),
    ],
)
def test_invalid_projects(fields: dict[str, Any], expected: list[tuple[tuple[str | int, ...], str]]) -> None:
    assert errors("project", changed(project(), **fields)) == expected


def test_identifiers_take_no_placeholder() -> None:
    assert errors("project", changed(project(), shortcode="MISSING")) == [(("shortcode",), f'"MISSING" {SHORTCODE}')]
    assert errors("person", changed(PERSON, id="MISSING")) == [(("id",), '"MISSING" is not a person id (person-NNN)')]


@pytest.mark.parametrize(
    "kind, instance, expected",
    [
        ("person", changed(PERSON, givenNames=[]), [(("givenNames",), "[] has less than 1 item")]),
        ("person", changed(PERSON, familyNames=None), [((), 'missing required field "familyNames"')]),
        (
            "person",
            changed(PERSON, affiliations=["person-002"]),
            [(("affiliations", 0), '"person-002" is not an organization id (organization-NNN)')],
        ),
        (
            "person",
            changed(PERSON, email="anna at example.org"),
            [(("email",), '"anna at example.org" is not an e-mail address or a placeholder')],
        ),
        (
            "person",
            changed(PERSON, sameAs=[{"url": "https://orcid.org/1"}]),
            [(("sameAs", 0), 'missing required field "type"')],
        ),
        ("person", [PERSON], [((), "expected an object, found an array")]),
        (
            "organization",
            changed(ORGANIZATION, id="org-2"),
            [(("id",), '"org-2" is not an organization id (organization-NNN)')],
        ),
        (
            "organization",
            changed(ORGANIZATION, address={"locality": "X", "country": "CH"}),
            [(("address",), 'missing required field "street"'), (("address",), 'missing required field "postalCode"')],
        ),
        ("organization", changed(ORGANIZATION, url="www.example.org"), [(("url",), f'"www.example.org" {URL}')]),
        ("cluster", changed(CLUSTER, projects=None), [((), 'missing required field "projects"')]),
        ("cluster", changed(CLUSTER, projects=["0A1B", 7]), [(("projects", 1), f"7 {SHORTCODE}")]),
        (
            "collection",
            changed(COLLECTION, id="selected"),
            [(("id",), '"selected" is not a collection id (collection-NNN)')],
        ),
        (
            "collection",
            changed(COLLECTION, collections=["collection-002", ""]),
            [(("collections", 1), '"" is not a collection id (collection-NNN)')],
        ),
    ],
)
def test_invalid_entities(kind: str, instance: Any, expected: list[tuple[tuple[str | int, ...], str]]) -> None:
    assert errors(kind, instance) == expected


def test_record_accepts_placeholders_and_the_optional_fields() -> None:
    variant = changed(
        record(1),
        dateCreated="CALCULATED",
        dateModified="2024-02-03T10:00:00+01:00",
        accessRights="MISSING",
        typeOfData=["Text", "Image"],
        description={"en": "A letter."},
        size="2 pages",
        file=None,
    )
    assert errors("record", variant) == []


@pytest.mark.parametrize(
    "fields, expected",
    [
        (
            {"pid": "https://ark.example.org/ark:/99999/1/0A1B"},
            [(("pid",), f'"https://ark.example.org/ark:/99999/1/0A1B" {RECORD_ARK}')],
        ),
        ({"id": "rec1"}, [(("id",), '"rec1" is not a repository IRI (http(s) URL)')]),
        ({"datePublished": "2024-02-02"}, [(("datePublished",), f'"2024-02-02" {TIMESTAMP}')]),
        (
            {"accessRights": {"accessRights": "Full Open Access"}},
            [(("accessRights",), f'{{"accessRights": "Full Open Access"}} {ACCESS_RIGHTS}')],
        ),
        ({"legalInfo": [record(1)["legalInfo"]]}, [(("legalInfo",), "expected an object, found an array")]),
        (
            {"file": {"mimeType": "jp2", "url": "https://files.example.org/1"}},
            [(("file", "mimeType"), '"jp2" is not a media type (e.g. image/jp2)')],
        ),
        (
            {"label": None, "publisher": None},
            [((), 'missing required field "label"'), ((), 'missing required field "publisher"')],
        ),
    ],
)
def test_invalid_records(fields: dict[str, Any], expected: list[tuple[tuple[str | int, ...], str]]) -> None:
    assert errors("record", changed(record(1), **fields)) == expected


def test_temporal_coverage_files() -> None:
    assert errors("temporal-coverage-enrichment", {"Iron Age": {"date": "-800/-50", "source": "manual"}}) == [
        (("Iron Age", "date"), f'"-800/-50" {W3CDTF}')
    ]
    assert errors("temporal-coverage-enrichment", {"Swiss": {"date": None}}) == [
        (("Swiss",), 'missing required field "source"')
    ]
    assert errors("chronontology-periods", {"abc": {"hasTimespan": [{"begin": {"at": 1500}}]}}) == [
        (("abc", "hasTimespan", 0, "begin", "at"), "expected a string, found a number")
    ]
