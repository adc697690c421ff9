"""``oai_datacite``: DataCite kernel 4.6 inside the ``oai-1.1`` wrapper (SPEC §5.6)."""

from __future__ import annotations

from catalog.formats.item_metadata import Agent, ItemMetadata, Text
from catalog.formats.vocabularies import SPDX_SCHEME_URI
from catalog.formats.xmltext import esc

PREFIX = "oai_datacite"
SCHEMA = "http://schema.datacite.org/oai/oai-1.1/oai.xsd"
NAMESPACE = "http://schema.datacite.org/oai/oai-1.1/"
KERNEL_NAMESPACE = "http://datacite.org/schema/kernel-4"
KERNEL_SCHEMA = "http://schema.datacite.org/meta/kernel-4.6/metadata.xsd"
SCHEMA_VERSION = "4.6"
DATACENTRE_SYMBOL = "DASCH.DSP"

XSI_NAMESPACE = "http://www.w3.org/2001/XMLSchema-instance"

# Every namespace is declared on the metadata root, so that the metadata parses on its own (harvesters store it so).
OPEN = (
    f'<oai_datacite xmlns="{NAMESPACE}" xmlns:xsi="{XSI_NAMESPACE}" xsi:schemaLocation="{NAMESPACE} {SCHEMA}">'
    f"<schemaVersion>{SCHEMA_VERSION}</schemaVersion><datacentreSymbol>{DATACENTRE_SYMBOL}</datacentreSymbol>"
    f'<payload><resource xmlns="{KERNEL_NAMESPACE}" xsi:schemaLocation="{KERNEL_NAMESPACE} {KERNEL_SCHEMA}">'
)
CLOSE = "</resource></payload></oai_datacite>"


def _lang(lang: str | None) -> str:
    return f' xml:lang="{lang}"' if lang else ""


def _text(element: str, text: Text, kind_attribute: str) -> str:
    kind = f' {kind_attribute}="{text.kind}"' if text.kind else ""
    return f"<{element}{kind}{_lang(text.lang)}>{esc(text.value)}</{element}>"


def _agent(element: str, agent: Agent, extra: str = "") -> str:
    name_type = f' nameType="{agent.name_type}"' if agent.name_type else ""
    parts = [f"<{element}{extra}><{element}Name{name_type}>{esc(agent.name)}</{element}Name>"]
    if agent.given_name:
        parts.append(f"<givenName>{esc(agent.given_name)}</givenName>")
    if agent.family_name:
        parts.append(f"<familyName>{esc(agent.family_name)}</familyName>")
    for identifier in agent.identifiers:
        parts.append(
            f'<nameIdentifier nameIdentifierScheme="{identifier.scheme}" schemeURI="{esc(identifier.scheme_uri)}">'
            f"{esc(identifier.value)}</nameIdentifier>"
        )
    for affiliation in agent.affiliations:
        ror = (
            f' affiliationIdentifier="{esc(affiliation.ror)}" affiliationIdentifierScheme="ROR"'
            f' schemeURI="https://ror.org"'
            if affiliation.ror
            else ""
        )
        parts.append(f"<affiliation{ror}>{esc(affiliation.name)}</affiliation>")
    parts.append(f"</{element}>")
    return "".join(parts)


def _publisher(item: ItemMetadata) -> str:
    if not item.publisher_identifier:
        return f"<publisher>{esc(item.publisher)}</publisher>"
    return (
        f'<publisher publisherIdentifier="{esc(item.publisher_identifier)}" publisherIdentifierScheme="ROR"'
        f' schemeURI="https://ror.org/">{esc(item.publisher)}</publisher>'
    )


def _related_item(text: str) -> str:
    """A publication known only by its citation: DataCite 4.4+ relatedItem, the citation as its title."""
    return (
        '<relatedItem relatedItemType="Text" relationType="IsCitedBy">'
        f"<titles><title>{esc(text)}</title></titles></relatedItem>"
    )


def render(item: ItemMetadata) -> str:
    out = [
        OPEN,
        f'<identifier identifierType="{item.identifier_type}">{esc(item.identifier)}</identifier><creators>',
        *(_agent("creator", agent) for agent in item.creators),
        "</creators><titles>",
        *(_text("title", title, "titleType") for title in item.titles),
        "</titles>",
        _publisher(item),
        f"<publicationYear>{item.publication_year}</publicationYear>",
        f'<resourceType resourceTypeGeneral="{item.resource_type[0]}">{esc(item.resource_type[1])}</resourceType>',
    ]
    if item.subjects:
        out.append("<subjects>")
        for subject in item.subjects:
            attributes = _lang(subject.lang)
            if subject.scheme:
                attributes += f' subjectScheme="{esc(subject.scheme)}"'
            if subject.scheme_uri:
                attributes += f' schemeURI="{esc(subject.scheme_uri)}"'
            if subject.value_uri:
                attributes += f' valueURI="{esc(subject.value_uri)}"'
            out.append(f"<subject{attributes}>{esc(subject.value)}</subject>")
        out.append("</subjects>")
    if item.contributors:
        out.append("<contributors>")
        out.extend(_agent("contributor", agent, f' contributorType="{kind}"') for agent, kind in item.contributors)
        out.append("</contributors>")
    if item.dates:
        out.append("<dates>")
        for date in item.dates:
            information = f' dateInformation="{esc(date.information)}"' if date.information else ""
            out.append(f'<date dateType="{date.kind}"{information}>{esc(date.value)}</date>')
        out.append("</dates>")
    if item.languages:
        # The kernel allows one language; oai_dc carries all of them.
        out.append(f"<language>{item.languages[0]}</language>")
    if item.alternate_identifiers:
        out.append("<alternateIdentifiers>")
        out.extend(
            f'<alternateIdentifier alternateIdentifierType="{esc(kind)}">{esc(value)}</alternateIdentifier>'
            for value, kind in item.alternate_identifiers
        )
        out.append("</alternateIdentifiers>")
    if item.related:
        out.append("<relatedIdentifiers>")
        out.extend(
            f'<relatedIdentifier relatedIdentifierType="{related.identifier_type}"'
            f' relationType="{related.relation}">{esc(related.value)}</relatedIdentifier>'
            for related in item.related
        )
        out.append("</relatedIdentifiers>")
    if item.sizes:
        out.append("<sizes>" + "".join(f"<size>{esc(size)}</size>" for size in item.sizes) + "</sizes>")
    if item.formats:
        out.append("<formats>" + "".join(f"<format>{esc(value)}</format>" for value in item.formats) + "</formats>")
    if item.rights or item.access:
        out.append("<rightsList>")
        for rights in item.rights:
            attributes = f' rightsURI="{esc(rights.uri)}"' if rights.uri else ""
            if rights.spdx:
                attributes += (
                    f' rightsIdentifier="{rights.spdx}" rightsIdentifierScheme="SPDX" schemeURI="{SPDX_SCHEME_URI}"'
                )
            out.append(f"<rights{attributes}>{esc(rights.text)}</rights>")
        if item.access:
            # COAR (OpenAIRE Guidelines v3+) and info:eu-repo (v2, still read by OpenAIRE and BASE).
            out.append(f'<rights rightsURI="{item.access.coar_uri}">{item.access.coar_label}</rights>')
            out.append(f'<rights rightsURI="{item.access.eu_repo_uri}">{item.access.coar_label}</rights>')
        out.append("</rightsList>")
    if item.descriptions:
        out.append("<descriptions>")
        out.extend(_text("description", text, "descriptionType") for text in item.descriptions)
        out.append("</descriptions>")
    if item.places:
        out.append("<geoLocations>")
        out.extend(
            f"<geoLocation><geoLocationPlace>{esc(place)}</geoLocationPlace></geoLocation>" for place in item.places
        )
        out.append("</geoLocations>")
    if item.funding:
        out.append("<fundingReferences>")
        for funding in item.funding:
            out.append(f"<fundingReference><funderName>{esc(funding.funder)}</funderName>")
            if funding.identifier:
                out.append(
                    f'<funderIdentifier funderIdentifierType="{funding.identifier_type}">'
                    f"{esc(funding.identifier)}</funderIdentifier>"
                )
            if funding.award_number:
                uri = f' awardURI="{esc(funding.award_uri)}"' if funding.award_uri else ""
                out.append(f"<awardNumber{uri}>{esc(funding.award_number)}</awardNumber>")
            if funding.award_title:
                out.append(f"<awardTitle>{esc(funding.award_title)}</awardTitle>")
            out.append("</fundingReference>")
        out.append("</fundingReferences>")
    if item.related_texts:
        out.append("<relatedItems>")
        out.extend(_related_item(text) for text in item.related_texts)
        out.append("</relatedItems>")
    out.append(CLOSE)
    return "".join(out)
