"""``oai_dc``: simple Dublin Core, the format every OAI-PMH repository must offer (SPEC §5.6).

Every value goes into the markup through :func:`~catalog.formats.xmltext.esc`
or :func:`~catalog.formats.xmltext.attribute`; the elements are a table, in order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from catalog.formats.item_metadata import ItemMetadata, Related, Subject, Text
from catalog.formats.vocabularies import dcmi_type
from catalog.formats.xmltext import attribute, esc

PREFIX = "oai_dc"
SCHEMA = "http://www.openarchives.org/OAI/2.0/oai_dc.xsd"
NAMESPACE = "http://www.openarchives.org/OAI/2.0/oai_dc/"
DC_NAMESPACE = "http://purl.org/dc/elements/1.1/"

XSI_NAMESPACE = "http://www.w3.org/2001/XMLSchema-instance"

# Every namespace is declared on the metadata root, so that the metadata parses on its own (harvesters store it so).
OPEN = (
    f'<oai_dc:dc xmlns:oai_dc="{NAMESPACE}" xmlns:dc="{DC_NAMESPACE}" xmlns:xsi="{XSI_NAMESPACE}"'
    f' xsi:schemaLocation="{NAMESPACE} {SCHEMA}">'
)
CLOSE = "</oai_dc:dc>"


# Relations that dc:relation carries: what the item is part of, the same data elsewhere (the data
# application) and the publications about it (a record's file is a dc:identifier already).
_DC_RELATIONS = frozenset({"IsPartOf", "IsIdenticalTo", "IsCitedBy", "IsReferencedBy"})


def _relation(related: Related) -> str:
    return f"https://doi.org/{related.value}" if related.identifier_type == "DOI" else related.value


def _contributors(item: ItemMetadata) -> list[str]:
    """Creators are not repeated as contributors; rights holders are rights, not contributors."""
    creators = {agent.name for agent in item.creators}
    return list(
        dict.fromkeys(
            agent.name for agent, kind in item.contributors if kind != "RightsHolder" and agent.name not in creators
        )
    )


def _dates(item: ItemMetadata) -> list[str]:
    embargo = f"info:eu-repo/date/embargoEnd/{item.embargo_end[:10]}" if item.embargo_end else None
    return [date for date in (item.issued, embargo) if date]


def _relations(item: ItemMetadata) -> list[str]:
    return [*(_relation(related) for related in item.related if related.relation in _DC_RELATIONS), *item.related_texts]


def _coverage(item: ItemMetadata) -> list[str]:
    return [*(coverage.name or coverage.date or "" for coverage in item.coverage), *item.places]


def _rights(item: ItemMetadata) -> list[str]:
    found = [item.access.eu_repo_uri, item.access.label] if item.access else []
    for rights in item.rights:
        found.append(rights.text)
        if rights.uri:
            found.append(rights.uri)
    return found


def _texts(name: str, values: Sequence[Text] | Sequence[Subject]) -> list[str]:
    return [f"<{name}{attribute('xml:lang', text.lang)}>{esc(text.value)}</{name}>" for text in values]


def _plain(name: str, values: Iterable[str]) -> list[str]:
    return [f"<{name}>{esc(value)}</{name}>" for value in values]


def _shared_parts(item: ItemMetadata) -> tuple[str, ...]:
    """Creators, publisher, contributors and rights: for a record, written once for all records that share
    them (:attr:`ItemMetadata.shared_renderings`)."""
    shared = item.shared_renderings
    parts = shared.get(PREFIX) if shared is not None else None
    if parts is None:
        parts = (
            "".join(_plain("dc:creator", [agent.name for agent in item.creators])),
            f"<dc:publisher>{esc(item.publisher)}</dc:publisher>",
            "".join(_plain("dc:contributor", _contributors(item))),
            "".join(_plain("dc:rights", _rights(item))),
        )
        if shared is not None:
            shared[PREFIX] = parts
    return parts


def render(item: ItemMetadata) -> str:
    creators, publisher, contributors, rights = _shared_parts(item)
    return "".join(
        [
            OPEN,
            *_texts("dc:title", item.titles),
            creators,
            *_texts("dc:subject", item.subjects),
            *_texts("dc:description", item.descriptions),
            publisher,
            contributors,
            *_plain("dc:date", _dates(item)),
            f"<dc:type>{esc(dcmi_type(item.resource_type[0]))}</dc:type>",
            *_plain("dc:format", item.formats),
            f"<dc:identifier>{esc(item.identifier)}</dc:identifier>",
            *_plain("dc:identifier", item.extra_identifiers),
            *_plain("dc:language", item.languages),
            *_plain("dc:relation", _relations(item)),
            *_plain("dc:coverage", _coverage(item)),
            rights,
            CLOSE,
        ]
    )
