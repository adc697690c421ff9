"""``oai_datacite``: DataCite kernel 4.6 inside the ``oai-1.1`` wrapper (SPEC §5.6).

Every value goes into the markup through :func:`~catalog.formats.xmltext.esc`
or :func:`~catalog.formats.xmltext.attribute`. The kernel's list properties
are tables in its order; the parts a record shares with its project's other
records (creators, publisher, contributors, rights) are written once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

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
from catalog.formats.vocabularies import SPDX_SCHEME_URI
from catalog.formats.xmltext import attribute, esc

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

# The fixed attributes that follow an identifier from a known scheme.
ROR_SCHEME = ' affiliationIdentifierScheme="ROR" schemeURI="https://ror.org"'
PUBLISHER_ROR_SCHEME = ' publisherIdentifierScheme="ROR" schemeURI="https://ror.org/"'
SPDX_SCHEME = f' rightsIdentifierScheme="SPDX" schemeURI="{SPDX_SCHEME_URI}"'


def _text(name: str, text: Text, kind_attribute: str) -> str:
    return f"<{name}{attribute(kind_attribute, text.kind)}{attribute('xml:lang', text.lang)}>{esc(text.value)}</{name}>"


def _name_identifier(identifier: NameIdentifier) -> str:
    return (
        f"<nameIdentifier{attribute('nameIdentifierScheme', identifier.scheme)}"
        f"{attribute('schemeURI', identifier.scheme_uri)}>{esc(identifier.value)}</nameIdentifier>"
    )


def _affiliation(affiliation: Affiliation) -> str:
    return (
        f"<affiliation{attribute('affiliationIdentifier', affiliation.ror)}{ROR_SCHEME if affiliation.ror else ''}>"
        f"{esc(affiliation.name)}</affiliation>"
    )


def _agent(name: str, agent: Agent, kind: str = "") -> str:
    parts = [
        f"<{name}{attribute('contributorType', kind)}><{name}Name{attribute('nameType', agent.name_type)}>"
        f"{esc(agent.name)}</{name}Name>"
    ]
    if agent.given_name:
        parts.append(f"<givenName>{esc(agent.given_name)}</givenName>")
    if agent.family_name:
        parts.append(f"<familyName>{esc(agent.family_name)}</familyName>")
    parts.extend(map(_name_identifier, agent.identifiers))
    parts.extend(map(_affiliation, agent.affiliations))
    parts.append(f"</{name}>")
    return "".join(parts)


def _creator(agent: Agent) -> str:
    return _agent("creator", agent)


def _contributor(contributor: tuple[Agent, str]) -> str:
    return _agent("contributor", contributor[0], contributor[1])


def _title(title: Text) -> str:
    return _text("title", title, "titleType")


def _publisher(item: ItemMetadata) -> str:
    identifier = item.publisher_identifier
    return (
        f"<publisher{attribute('publisherIdentifier', identifier)}{PUBLISHER_ROR_SCHEME if identifier else ''}>"
        f"{esc(item.publisher)}</publisher>"
    )


def _subject(subject: Subject) -> str:
    return (
        f"<subject{attribute('xml:lang', subject.lang)}{attribute('subjectScheme', subject.scheme)}"
        f"{attribute('schemeURI', subject.scheme_uri)}{attribute('valueURI', subject.value_uri)}>"
        f"{esc(subject.value)}</subject>"
    )


def _date(date: Date) -> str:
    return (
        f"<date{attribute('dateType', date.kind)}{attribute('dateInformation', date.information)}>"
        f"{esc(date.value)}</date>"
    )


def _language(language: str) -> str:
    return f"<language>{esc(language)}</language>"


def _alternate_identifier(alternate: tuple[str, str]) -> str:
    value, kind = alternate
    return f"<alternateIdentifier{attribute('alternateIdentifierType', kind)}>{esc(value)}</alternateIdentifier>"


def _related_identifier(related: Related) -> str:
    return (
        f"<relatedIdentifier{attribute('relatedIdentifierType', related.identifier_type)}"
        f"{attribute('relationType', related.relation)}>{esc(related.value)}</relatedIdentifier>"
    )


def _size(size: str) -> str:
    return f"<size>{esc(size)}</size>"


def _format(value: str) -> str:
    return f"<format>{esc(value)}</format>"


def _rights(rights: Rights) -> str:
    return (
        f"<rights{attribute('rightsURI', rights.uri)}{attribute('rightsIdentifier', rights.spdx)}"
        f"{SPDX_SCHEME if rights.spdx else ''}>{esc(rights.text)}</rights>"
    )


def rights_list(item: ItemMetadata) -> list[Rights]:
    """The licences, then the access right in COAR (OpenAIRE Guidelines v3+) and info:eu-repo (v2, still read
    by OpenAIRE and BASE)."""
    access = item.access
    if access is None:
        return item.rights
    return [*item.rights, Rights(access.coar_label, access.coar_uri), Rights(access.coar_label, access.eu_repo_uri)]


def _description(text: Text) -> str:
    return _text("description", text, "descriptionType")


def _place(place: str) -> str:
    return f"<geoLocation><geoLocationPlace>{esc(place)}</geoLocationPlace></geoLocation>"


def _funding(funding: Funding) -> str:
    parts = [f"<fundingReference><funderName>{esc(funding.funder)}</funderName>"]
    if funding.identifier:
        parts.append(
            f"<funderIdentifier{attribute('funderIdentifierType', funding.identifier_type)}>"
            f"{esc(funding.identifier)}</funderIdentifier>"
        )
    if funding.award_number:
        parts.append(
            f"<awardNumber{attribute('awardURI', funding.award_uri)}>{esc(funding.award_number)}</awardNumber>"
        )
    if funding.award_title:
        parts.append(f"<awardTitle>{esc(funding.award_title)}</awardTitle>")
    parts.append("</fundingReference>")
    return "".join(parts)


def _related_item(text: str) -> str:
    """A publication known only by its citation: DataCite 4.4+ relatedItem, the citation as its title."""
    return (
        '<relatedItem relatedItemType="Text" relationType="IsCitedBy">'
        f"<titles><title>{esc(text)}</title></titles></relatedItem>"
    )


_List = tuple[str, str, Callable[[ItemMetadata], Sequence[Any]], Callable[[Any], str]]


def _list(name: str, values: Callable[[ItemMetadata], Sequence[Any]], write: Callable[[Any], str]) -> _List:
    return f"<{name}>", f"</{name}>", values, write


def _write_lists(out: list[str], item: ItemMetadata, lists: tuple[_List, ...]) -> None:
    """Each list element that has values (the schema forbids empty ones), with them written in it."""
    for start_tag, end_tag, values, write in lists:
        found = values(item)
        if found:
            out.append(start_tag)
            out.extend(map(write, found))
            out.append(end_tag)


_CREATORS = (_list("creators", attrgetter("creators"), _creator),)
_CONTRIBUTORS = (_list("contributors", attrgetter("contributors"), _contributor),)
_RIGHTS = (_list("rightsList", rights_list, _rights),)
# The kernel's optional properties, in its order, between those a record shares with its project's others.
_BEFORE_CONTRIBUTORS = (_list("subjects", attrgetter("subjects"), _subject),)
_BEFORE_RIGHTS = (
    _list("dates", attrgetter("dates"), _date),
    ("", "", lambda item: item.languages[:1], _language),  # the kernel allows one; oai_dc carries them all
    _list("alternateIdentifiers", attrgetter("alternate_identifiers"), _alternate_identifier),
    _list("relatedIdentifiers", attrgetter("related"), _related_identifier),
    _list("sizes", attrgetter("sizes"), _size),
    _list("formats", attrgetter("formats"), _format),
)
_AFTER_RIGHTS = (
    _list("descriptions", attrgetter("descriptions"), _description),
    _list("geoLocations", attrgetter("places"), _place),
    _list("fundingReferences", attrgetter("funding"), _funding),
    _list("relatedItems", attrgetter("related_texts"), _related_item),
)


def _shared_parts(item: ItemMetadata) -> tuple[str, ...]:
    """Creators, publisher, contributors and rights: for a record, written once for all records that share
    them (:attr:`ItemMetadata.shared_renderings`)."""
    shared = item.shared_renderings
    parts = shared.get(PREFIX) if shared is not None else None
    if parts is None:
        parts = (*(_lists(item, lists) for lists in (_CREATORS, _CONTRIBUTORS, _RIGHTS)), _publisher(item))
        if shared is not None:
            shared[PREFIX] = parts
    return parts


def _lists(item: ItemMetadata, lists: tuple[_List, ...]) -> str:
    out: list[str] = []
    _write_lists(out, item, lists)
    return "".join(out)


def render(item: ItemMetadata) -> str:
    creators, contributors, rights, publisher = _shared_parts(item)
    general, resource_type = item.resource_type
    out = [
        OPEN,
        f"<identifier{attribute('identifierType', item.identifier_type)}>{esc(item.identifier)}</identifier>",
        creators,
        "<titles>",
        *map(_title, item.titles),
        "</titles>",
        publisher,
        f"<publicationYear>{esc(item.publication_year)}</publicationYear>",
        f"<resourceType{attribute('resourceTypeGeneral', general)}>{esc(resource_type)}</resourceType>",
    ]
    _write_lists(out, item, _BEFORE_CONTRIBUTORS)
    out.append(contributors)
    _write_lists(out, item, _BEFORE_RIGHTS)
    out.append(rights)
    _write_lists(out, item, _AFTER_RIGHTS)
    out.append(CLOSE)
    return "".join(out)
