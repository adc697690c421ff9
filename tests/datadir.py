"""Small, fictional data directories with the shapes a test needs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def project(shortcode: str = "0AA1", **fields: Any) -> dict[str, Any]:
    """A complete fictional project; keyword arguments replace fields (None removes one)."""
    data: dict[str, Any] = {
        "id": shortcode,
        "pid": f"https://ark.example.org/ark:/99999/1/{shortcode}",
        "name": f"Lake Dwellings of the Jura {shortcode}",
        "shortcode": shortcode,
        "officialName": f"Lake Dwellings of the Jura {shortcode}",
        "status": "Ongoing",
        "shortDescription": "Pile dwellings around the lakes of the Jura foot, surveyed from boats.",
        "description": {"en": "A survey of prehistoric pile dwellings on the shores of three lakes."},
        "startDate": "2019-03-01",
        "endDate": "2024-02-29",
        "howToCite": f"Lake Dwellings of the Jura ({shortcode}). Example Repository.",
        "accessRights": {"accessRights": "Full Open Access"},
        "legalInfo": [
            {
                "license": {
                    "licenseIdentifier": "CC BY 4.0",
                    "licenseDate": "2024-01-01",
                    "licenseURI": "https://creativecommons.org/licenses/by/4.0/",
                },
                "copyrightHolder": "Example University",
                "authorship": ["Mira Sommer"],
            }
        ],
        "keywords": [{"en": "Archaeology"}, {"de": "Pfahlbauten"}],
        "disciplines": [{"en": "10402 Archaeology"}],
        "temporalCoverage": [{"en": "Neolithic"}],
        "spatialCoverage": [
            {
                "type": "Geonames",
                "url": "https://www.geonames.org/2659836/lake-neuchatel.html",
                "text": "Lac de Neuchâtel",
            }
        ],
        "attributions": [{"contributor": "person-001", "contributorType": ["Project Leader"]}],
        "funding": [
            {
                "funders": ["organization-001"],
                "number": "4242",
                "name": "Lakes grant",
                "url": "https://grants.example.org/4242",
            }
        ],
        "typeOfData": ["Image", "Text"],
        "dataLanguage": ["de", "fr"],
        "contactPoint": ["person-001"],
    }
    for name, value in fields.items():
        if value is None:
            data.pop(name, None)
        else:
            data[name] = value
    return data


def person(person_id: str = "person-001", given: str = "Mira", family: str = "Sommer", **fields: Any) -> dict[str, Any]:
    return {
        "id": person_id,
        "givenNames": [given],
        "familyNames": [family],
        "jobTitles": ["Researcher"],
        "affiliations": ["organization-001"],
        "sameAs": [{"type": "ORCID", "url": "https://orcid.org/0000-0002-1825-0097"}],
        **fields,
    }


def organization(
    organization_id: str = "organization-001", name: str = "Example University", **fields: Any
) -> dict[str, Any]:
    return {
        "id": organization_id,
        "name": name,
        "url": "https://www.example.org/",
        "address": {"street": "Seestrasse 1", "postalCode": "2000", "locality": "Neuchâtel", "country": "Switzerland"},
        **fields,
    }


def record(shortcode: str, suffix: str, label: str = "Site plan", **fields: Any) -> dict[str, Any]:
    return {
        "id": f"http://rdf.example.org/{shortcode}/{suffix}",
        "pid": f"https://ark.example.org/ark:/99999/1/{shortcode}/{suffix}",
        "label": {"en": label},
        "accessRights": "Full Open Access",
        "publisher": "Example Repository",
        "datePublished": "2024-01-02T10:00:00Z",
        "typeOfData": "Image",
        **fields,
    }


def write_data_dir(
    root: Path,
    projects: list[dict] | None = None,
    persons: list[dict] | None = None,
    organizations: list[dict] | None = None,
    clusters: list[dict] | None = None,
    collections: list[dict] | None = None,
    records: dict[str, list[dict]] | None = None,
) -> Path:
    """Write the entities as a data directory (one file per entity, records per project)."""
    groups = {
        "projects": (projects if projects is not None else [project()], "shortcode"),
        "persons": (persons if persons is not None else [person()], "id"),
        "organizations": (organizations if organizations is not None else [organization()], "id"),
        "clusters": (clusters or [], "id"),
        "collections": (collections or [], "id"),
    }
    for kind, (entities, key) in groups.items():
        (root / kind).mkdir(parents=True, exist_ok=True)
        for entity in entities:
            (root / kind / f"{entity[key]}.json").write_text(json.dumps(entity, ensure_ascii=False))
    (root / "records").mkdir(exist_ok=True)
    for shortcode, items in (records or {}).items():
        (root / "records" / f"{shortcode}-records.json").write_text(json.dumps(items, ensure_ascii=False))
    return root
