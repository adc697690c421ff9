"""``oai_dc``: simple Dublin Core, the format every OAI-PMH repository must offer (SPEC §5.6)."""

from __future__ import annotations

from catalog.formats.item_metadata import ItemMetadata
from catalog.formats.xmltext import esc

PREFIX = "oai_dc"
SCHEMA = "http://www.openarchives.org/OAI/2.0/oai_dc.xsd"
NAMESPACE = "http://www.openarchives.org/OAI/2.0/oai_dc/"
DC_NAMESPACE = "http://purl.org/dc/elements/1.1/"

# xsi is declared on the OAI-PMH root element.
OPEN = f'<oai_dc:dc xmlns:oai_dc="{NAMESPACE}" xmlns:dc="{DC_NAMESPACE}" xsi:schemaLocation="{NAMESPACE} {SCHEMA}">'
CLOSE = "</oai_dc:dc>"


def _element(name: str, value: str, lang: str | None = None) -> str:
    attribute = f' xml:lang="{lang}"' if lang else ""
    return f"<dc:{name}{attribute}>{esc(value)}</dc:{name}>"


def render(item: ItemMetadata) -> str:
    out = [OPEN]
    out.extend(_element("title", title.value, title.lang) for title in item.titles)
    out.extend(_element("creator", agent.name) for agent in item.creators)
    out.extend(_element("subject", subject.value, subject.lang) for subject in item.subjects)
    out.extend(_element("description", text.value, text.lang) for text in item.descriptions)
    out.append(_element("publisher", item.publisher))
    contributors = dict.fromkeys(agent.name for agent, _ in item.contributors)
    out.extend(_element("contributor", name) for name in contributors)
    if item.main_date:
        out.append(_element("date", item.main_date))
    out.append(_element("type", item.resource_type[0]))
    out.extend(_element("format", value) for value in item.formats)
    out.append(_element("identifier", item.identifier))
    out.extend(_element("identifier", value) for value in item.extra_identifiers)
    out.extend(_element("language", language) for language in item.languages)
    out.extend(_element("relation", related.value) for related in item.related if related.relation == "IsPartOf")
    out.extend(_element("coverage", coverage.name or coverage.date or "") for coverage in item.coverage)
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
