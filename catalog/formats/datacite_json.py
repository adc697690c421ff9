"""DataCite JSON (``application/vnd.datacite.datacite+json``): the shape of the ``attributes`` of DataCite's REST API.

DOI resolvers and FAIR tools ask for it by content negotiation. It says what
:mod:`catalog.formats.datacite_xml` says, from the same :class:`ItemMetadata`,
in the REST API's names (``schemeUri``, ``rightsUri``, ``affiliation``, ``types``,
``identifiers``); properties without values are left out, as the XML leaves out
empty elements. The items carry no DOI, so ``identifiers`` holds the identifier
and the alternate identifiers.
"""

from __future__ import annotations

from typing import Any

from catalog.formats.datacite_xml import rights_list
from catalog.formats.item_metadata import Agent, ItemMetadata, Text
from catalog.formats.vocabularies import SPDX_SCHEME_URI

KERNEL = "http://datacite.org/schema/kernel-4"


def _compact(value: dict[str, Any]) -> dict[str, Any]:
    return {key: item for key, item in value.items() if item not in (None, "", [], {})}


def _text(text: Text, name: str, kind: str) -> dict[str, Any]:
    return _compact({name: text.value, kind: text.kind, "lang": text.lang})


def _agent(agent: Agent, kind: str | None = None) -> dict[str, Any]:
    return _compact(
        {
            "name": agent.name,
            "nameType": agent.name_type,
            "givenName": agent.given_name,
            "familyName": agent.family_name,
            "nameIdentifiers": [
                {"nameIdentifier": i.value, "nameIdentifierScheme": i.scheme, "schemeUri": i.scheme_uri}
                for i in agent.identifiers
            ],
            "affiliation": [
                _compact(
                    {
                        "name": a.name,
                        "affiliationIdentifier": a.ror,
                        "affiliationIdentifierScheme": "ROR" if a.ror else None,
                        "schemeUri": "https://ror.org" if a.ror else None,
                    }
                )
                for a in agent.affiliations
            ],
            "contributorType": kind,
        }
    )


def _publisher(item: ItemMetadata) -> dict[str, Any]:
    identifier = item.publisher_identifier
    return _compact(
        {
            "name": item.publisher,
            "publisherIdentifier": identifier,
            "publisherIdentifierScheme": "ROR" if identifier else None,
            "schemeUri": "https://ror.org/" if identifier else None,
        }
    )


def _rights(item: ItemMetadata) -> list[dict[str, Any]]:
    return [
        _compact(
            {
                "rights": rights.text,
                "rightsUri": rights.uri,
                "rightsIdentifier": rights.spdx,
                "rightsIdentifierScheme": "SPDX" if rights.spdx else None,
                "schemeUri": SPDX_SCHEME_URI if rights.spdx else None,
            }
        )
        for rights in rights_list(item)
    ]


def _funding(item: ItemMetadata) -> list[dict[str, Any]]:
    return [
        _compact(
            {
                "funderName": f.funder,
                "funderIdentifier": f.identifier,
                "funderIdentifierType": f.identifier_type,
                "awardNumber": f.award_number,
                "awardUri": f.award_uri,
                "awardTitle": f.award_title,
            }
        )
        for f in item.funding
    ]


def attributes(item: ItemMetadata, url: str) -> dict[str, Any]:
    """The item as the REST API's ``attributes``; ``url`` is its landing page."""
    general, resource_type = item.resource_type
    return _compact(
        {
            "identifiers": [
                {"identifier": item.identifier, "identifierType": item.identifier_type},
                *({"identifier": value, "identifierType": kind} for value, kind in item.alternate_identifiers),
            ],
            "creators": [_agent(agent) for agent in item.creators],
            "titles": [_text(title, "title", "titleType") for title in item.titles],
            "publisher": _publisher(item),
            "publicationYear": int(item.publication_year) if item.publication_year.isdigit() else None,
            "subjects": [
                _compact(
                    {
                        "subject": s.value,
                        "subjectScheme": s.scheme,
                        "schemeUri": s.scheme_uri,
                        "valueUri": s.value_uri,
                        "lang": s.lang,
                    }
                )
                for s in item.subjects
            ],
            "contributors": [_agent(agent, kind) for agent, kind in item.contributors],
            "dates": [
                _compact({"date": d.value, "dateType": d.kind, "dateInformation": d.information}) for d in item.dates
            ],
            "language": item.languages[0] if item.languages else None,
            "types": {"resourceTypeGeneral": general, "resourceType": resource_type},
            "relatedIdentifiers": [
                {"relatedIdentifier": r.value, "relatedIdentifierType": r.identifier_type, "relationType": r.relation}
                for r in item.related
            ],
            "relatedItems": [
                {"relationType": "IsCitedBy", "relatedItemType": "Text", "titles": [{"title": text}]}
                for text in item.related_texts
            ],
            "sizes": item.sizes,
            "formats": item.formats,
            "rightsList": _rights(item),
            "descriptions": [_text(d, "description", "descriptionType") for d in item.descriptions],
            "geoLocations": [{"geoLocationPlace": place} for place in item.places],
            "fundingReferences": _funding(item),
            "url": url,
            "schemaVersion": KERNEL,
        }
    )
