"""``oai_dc``: simple Dublin Core, the format every OAI-PMH repository must offer (SPEC §5.6)."""

from __future__ import annotations

from catalog.formats.item_metadata import ItemMetadata, Related
from catalog.formats.vocabularies import dcmi_type
from catalog.formats.xmltext import esc

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


def _element(name: str, value: str, lang: str | None = None) -> str:
    attribute = f' xml:lang="{lang}"' if lang else ""
    return f"<dc:{name}{attribute}>{esc(value)}</dc:{name}>"


# Relations that dc:relation carries: what the item is part of and the publications about it.
_DC_RELATIONS = frozenset({"IsPartOf", "IsCitedBy", "IsReferencedBy"})


def _relation(related: Related) -> str:
    return f"https://doi.org/{related.value}" if related.identifier_type == "DOI" else related.value


def render(item: ItemMetadata) -> str:
    out = [OPEN]
    out.extend(_element("title", title.value, title.lang) for title in item.titles)
    out.extend(_element("creator", agent.name) for agent in item.creators)
    out.extend(_element("subject", subject.value, subject.lang) for subject in item.subjects)
    out.extend(_element("description", text.value, text.lang) for text in item.descriptions)
    out.append(_element("publisher", item.publisher))
    # Creators are not repeated as contributors; rights holders are rights, not contributors.
    creators = {agent.name for agent in item.creators}
    contributors = dict.fromkeys(
        agent.name for agent, kind in item.contributors if kind != "RightsHolder" and agent.name not in creators
    )
    out.extend(_element("contributor", name) for name in contributors)
    if item.issued:
        out.append(_element("date", item.issued))
    if item.embargo_end:
        out.append(_element("date", f"info:eu-repo/date/embargoEnd/{item.embargo_end[:10]}"))
    out.append(_element("type", dcmi_type(item.resource_type[0])))
    out.extend(_element("format", value) for value in item.formats)
    out.append(_element("identifier", item.identifier))
    out.extend(_element("identifier", value) for value in item.extra_identifiers)
    out.extend(_element("language", language) for language in item.languages)
    out.extend(
        _element("relation", _relation(related)) for related in item.related if related.relation in _DC_RELATIONS
    )
    out.extend(_element("relation", text) for text in item.related_texts)
    out.extend(_element("coverage", coverage.name or coverage.date) for coverage in item.coverage)
    out.extend(_element("coverage", place) for place in item.places)
    if item.access:
        out.append(_element("rights", item.access.eu_repo_uri))
        out.append(_element("rights", item.access.label))
    for rights in item.rights:
        out.append(_element("rights", rights.text))
        if rights.uri:
            out.append(_element("rights", rights.uri))
    out.append(CLOSE)
    return "".join(out)
