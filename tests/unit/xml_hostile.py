"""Hostile values for the XML writers' tests: markup, quotes and characters XML 1.0 cannot carry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from catalog.domain.loader import load_catalog
from catalog.domain.model import Catalog
from catalog.formats import item_metadata, vocabularies
from catalog.formats.item_metadata import (
    Affiliation,
    Agent,
    Date,
    Funding,
    ItemMetadata,
    NameIdentifier,
    Related,
    Rights,
    Subject,
    Text,
)
from tests import datadir
from tests.oai_support import write_data

# A quote, markup, an entity-like text, C0 controls, a lone surrogate and a non-character.
HOSTILE = 'a"b<c>&amp;\x01\x0b\ud800\ufffe d'
CLEAN = 'a"b<c>&amp; d'  # what a parser reads back: only the characters XML cannot carry are gone
# Read from a data file, the lone surrogate is already U+FFFD (the loader's repair, catalog.domain.text_repair).
LOADED_CLEAN = 'a"b<c>&amp;\ufffd d'
BASE_URL = "https://meta.example.org"


def hostile_item() -> ItemMetadata:
    """An item with the hostile value in every text and attribute it has (as no mapping would let through)."""
    agent = Agent(
        HOSTILE,
        HOSTILE,
        HOSTILE,
        HOSTILE,
        (NameIdentifier(HOSTILE, HOSTILE, HOSTILE),),
        (Affiliation(HOSTILE, HOSTILE),),
    )
    return ItemMetadata(
        identifier=HOSTILE,
        identifier_type=HOSTILE,
        publisher=HOSTILE,
        publisher_identifier=HOSTILE,
        publication_year=HOSTILE,
        resource_type=(HOSTILE, HOSTILE),
        titles=[Text(HOSTILE, HOSTILE, HOSTILE)],
        creators=[agent],
        contributors=[(agent, HOSTILE)],
        subjects=[Subject(HOSTILE, HOSTILE, HOSTILE, HOSTILE, HOSTILE)],
        descriptions=[Text(HOSTILE, HOSTILE, HOSTILE)],
        dates=[Date(HOSTILE, HOSTILE, HOSTILE)],
        issued=HOSTILE,
        embargo_end=HOSTILE,
        related_texts=[HOSTILE],
        languages=[HOSTILE],
        alternate_identifiers=[(HOSTILE, HOSTILE)],
        related=[Related(HOSTILE, HOSTILE, "IsPartOf")],
        extra_identifiers=[HOSTILE],
        formats=[HOSTILE],
        sizes=[HOSTILE],
        rights=[Rights(HOSTILE, HOSTILE, HOSTILE)],
        access=vocabularies.AccessRight(HOSTILE, HOSTILE, HOSTILE, HOSTILE),
        places=[HOSTILE],
        funding=[Funding(HOSTILE, HOSTILE, HOSTILE, HOSTILE, HOSTILE, HOSTILE)],
    )


def hostile_catalog(root: Path) -> Catalog:
    """A data directory with the hostile value in every field the writers put into an attribute or text:
    identifiers, languages, scheme and licence URIs, names, affiliations, dates."""
    licence = {"license": {"licenseIdentifier": HOSTILE, "licenseURI": f"https://licences.example.org/{HOSTILE}"}}
    legal = [{**licence, "copyrightHolder": HOSTILE, "authorship": [HOSTILE]}]
    project = datadir.project(
        "0AA1",
        pid=f"https://ark.example.org/ark:/99999/1/0AA1{HOSTILE}",
        name=HOSTILE,
        officialName=f"{HOSTILE} official",
        alternativeNames=[{HOSTILE: HOSTILE}],
        shortDescription={HOSTILE: HOSTILE, "en": HOSTILE},
        startDate=HOSTILE,
        endDate=f"2020-01-0{HOSTILE}",
        legalInfo=legal,
        keywords=[{HOSTILE: HOSTILE}, {"de": HOSTILE}],
        disciplines=[{"type": "Skos", "url": f"http://skos.um.es/unesco6/{HOSTILE}", "text": HOSTILE}],
        temporalCoverage=[{"en": HOSTILE}],
        spatialCoverage=[{"type": "Geonames", "url": f"https://www.geonames.org/{HOSTILE}", "text": HOSTILE}],
        attributions=[
            {"contributor": "person-001", "contributorType": ["Project Leader", HOSTILE]},
            {"contributor": "organization-001", "contributorType": [HOSTILE]},
        ],
        funding=[{"funders": ["organization-001"], "number": HOSTILE, "name": HOSTILE, "url": HOSTILE}],
        accessRights={"accessRights": "Embargoed Access", "embargoDate": HOSTILE},
        dataLanguage=[HOSTILE, "de"],
        contactPoint=["person-001"],
    )
    person = datadir.person(
        given=HOSTILE,
        family=HOSTILE,
        sameAs=[
            {"type": "ORCID", "url": f"https://orcid.org/0000-0002-1825-0097{HOSTILE}"},
            {"type": "GND", "url": f"https://d-nb.info/gnd/{HOSTILE}"},
        ],
    )
    organization = datadir.organization(
        name=HOSTILE, sameAs=[{"type": "ROR", "url": f"https://ror.org/{HOSTILE}"}], url=HOSTILE
    )
    record = datadir.record(
        "0AA1",
        "r1",
        # (an id or pid with a lone surrogate stops the loader: catalog.domain.model packs them as UTF-8)
        id=f"http://rdf.example.org/0AA1/{HOSTILE.replace(chr(0xD800), '')}",
        pid=f"https://ark.example.org/ark:/99999/1/0AA1/{HOSTILE.replace(chr(0xD800), '')}",
        label={HOSTILE: HOSTILE, "en": HOSTILE},
        description={"en": HOSTILE},
        publisher=HOSTILE,
        dateCreated=HOSTILE,
        dateModified="2021-01-01T00:00:00Z" + HOSTILE,
        datePublished=HOSTILE,
        legalInfo=legal,
        accessRights=HOSTILE,
        keywords=[{HOSTILE: HOSTILE}],
        typeOfData=HOSTILE,
        file={"url": f"https://files.example.org/{HOSTILE}", "mimeType": HOSTILE},
        size=HOSTILE,
    )
    files = {
        "projects/0AA1.json": project,
        "persons/person-001.json": person,
        "organizations/organization-001.json": organization,
        "records/0AA1-records.json": [record],
    }
    return load_catalog(write_data(root, files))  # JSON escapes keep the lone surrogate writable


def hostile_items(root: Path) -> list[ItemMetadata]:
    """The project and its record of :func:`hostile_catalog`, mapped as OAI-PMH maps them."""
    catalog = hostile_catalog(root)
    project = catalog.projects[0]
    table = catalog.records_of(project)
    assert table is not None
    context = item_metadata.project_context(catalog, project, BASE_URL, "2024")
    record: dict[str, Any] = table.record(0)
    return [
        item_metadata.project_metadata(catalog, project, BASE_URL, "2024"),
        item_metadata.record_metadata(record, context),
    ]
