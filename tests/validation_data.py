"""A small, fully valid data directory (fictional), for the validator's tests to break one thing at a time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SHORTCODE = "0A1B"
PROJECT_FILE = f"projects/{SHORTCODE}_mountain-letters.json"
RECORDS_FILE = f"records/{SHORTCODE}-records.json"
PERIOD_ID = "qR7sT2uV9wXy"
ARK = "https://ark.example.org/ark:/99999/1"


def project(shortcode: str = SHORTCODE) -> dict[str, Any]:
    return {
        "id": shortcode,
        "pid": f"{ARK}/{shortcode}",
        "name": "Mountain Letters",
        "shortcode": shortcode,
        "officialName": "Mountain Letters: correspondence of an alpine valley",
        "status": "Ongoing",
        "shortDescription": "Letters written in an alpine valley.",
        "description": {"en": "An edition of letters written in an alpine valley.", "de": "Eine Briefedition."},
        "startDate": "2021-03-01",
        "endDate": "MISSING",
        "howToCite": "Mountain Letters (2024), Example Repository.",
        "accessRights": {"accessRights": "Embargoed Access", "embargoDate": "2030-01-01"},
        "legalInfo": [
            {
                "license": {
                    "licenseIdentifier": "CC BY 4.0",
                    "licenseDate": "2024-02-01",
                    "licenseURI": "https://creativecommons.org/licenses/by/4.0/",
                },
                "copyrightHolder": "Mountain Letters",
                "authorship": ["CALCULATED"],
            }
        ],
        "keywords": [{"en": "letters"}, {"de": "Briefe"}],
        "disciplines": [
            {"en": "History"},
            {"type": "Skos", "url": "https://skos.example.org/history", "text": "History"},
        ],
        "temporalCoverage": [
            {"en": "19th century", "de": "19. Jahrhundert"},
            {"type": "Chronontology", "url": f"https://chronontology.dainst.org/period/{PERIOD_ID}", "text": "Modern"},
        ],
        "spatialCoverage": [{"type": "Geonames", "url": "https://www.geonames.org/1000001/", "text": "Valley"}],
        "attributions": [
            {"contributor": "person-001", "contributorType": ["Project leader"]},
            {"contributor": "organization-002", "contributorType": ["Data curator"]},
        ],
        "funding": [{"funders": ["organization-001"], "number": "42", "name": "Project funding"}],
        "url": [f"https://app.example.org/project/{shortcode}", "https://letters.example.org/"],
        "contactPoint": ["person-001"],
        "clusters": ["cluster-001"],
        "collections": ["collection-001"],
        "dataLanguage": ["de", "x-walser"],
        "publications": [{"text": "A. Author (2023), Letters.", "pid": {"url": "https://doi.org/10.0000/x"}}],
    }


def record(number: int, shortcode: str = SHORTCODE) -> dict[str, Any]:
    return {
        "id": f"http://rdfh.example.org/{shortcode}/rec{number}",
        "pid": f"{ARK}/{shortcode}/rec{number}",
        "label": {"en": f"Letter {number}"},
        "accessRights": "Full Open Access",
        "legalInfo": {
            "license": {
                "licenseIdentifier": "CC0 1.0",
                "licenseDate": "2024-02-01",
                "licenseURI": "https://creativecommons.org/publicdomain/zero/1.0/",
            },
            "copyrightHolder": "Example Repository",
            "authorship": ["Example Repository"],
        },
        "howToCite": f"Letter {number}",
        "publisher": "Example Repository",
        "dateCreated": "2024-02-01T10:00:00Z",
        "datePublished": "2024-02-02T10:00:00.123456789Z",
        "typeOfData": "Text",
        "keywords": [],
        "file": {"mimeType": "image/jp2", "url": f"https://files.example.org/{shortcode}/{number}.jp2"},
    }


def valid_files() -> dict[str, Any]:
    """Relative path -> JSON value of every file of the valid data directory."""
    return {
        PROJECT_FILE: project(),
        "persons/person-001.json": {
            "id": "person-001",
            "givenNames": ["Anna"],
            "familyNames": ["Beispiel"],
            "jobTitles": ["Historian", "Project leader assistant"],
            "affiliations": ["organization-002"],
            "sameAs": [{"type": "ORCID", "url": "https://orcid.org/0000-0000-0000-0000", "text": "0000"}],
            "email": "anna@example.org",
        },
        "organizations/organization-001.json": {"id": "organization-001", "name": "Example Fund", "url": "MISSING"},
        "organizations/organization-002.json": {
            "id": "organization-002",
            "name": "Example University",
            "url": "https://university.example.org/",
            "address": {"street": "", "postalCode": "9999", "locality": "Exampletown", "country": "Switzerland"},
        },
        "clusters/cluster-001.json": {
            "id": "cluster-001",
            "name": "Alpine studies",
            "description": {"en": "Projects about the Alps."},
            "projects": [SHORTCODE.lower()],
        },
        "collections/collection-001.json": {
            "id": "collection-001",
            "name": {"en": "Selected letters"},
            "description": "Letters chosen for teaching.",
            "projects": [SHORTCODE],
            "records": [record(1)["id"]],
            "collections": ["collection-002"],
        },
        "collections/collection-002.json": {
            "id": "collection-002",
            "name": "Love letters",
            "description": "A nested collection.",
            "records": [record(2)["pid"]],
        },
        RECORDS_FILE: [record(1), record(2)],
        "chronontology-periods.json": {PERIOD_ID: {"hasTimespan": [{"begin": {"at": "1500"}, "end": {"at": "1849"}}]}},
        "temporal-coverage-enrichment.json": {
            "19th century": {"date": "1801/1900", "original_name": "19th century", "source": "manual"}
        },
    }


def write_data_dir(root: Path, files: dict[str, Any]) -> Path:
    """Write ``files`` (relative path -> JSON value, or str/bytes for raw content) under ``root``."""
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2), encoding="utf-8")
    for directory in ("projects", "persons", "organizations", "clusters", "collections", "records"):
        (root / directory).mkdir(exist_ok=True)
    return root
