"""What a project or a record says, in DataCite's terms, independent of the XML format.

Both formats (``oai_dc``, ``oai_datacite``) render one :class:`ItemMetadata`,
so a mapping decision (SPEC §5.6) is taken once. Placeholders (``MISSING``,
``CALCULATED``) never reach the output.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

from catalog.domain import dates, identifiers
from catalog.domain.model import (
    PLACEHOLDERS,
    Catalog,
    Cluster,
    Collection,
    Frozen,
    Organization,
    Person,
    Project,
    language_items,
    pick_language,
)
from catalog.domain.roles import REPOSITORY_PUBLISHER, project_credits
from catalog.domain.temporal import TemporalCoverage, resolve
from catalog.domain.values import canonical_licence_uri
from catalog.formats import links, vocabularies
from catalog.formats.xmltext import is_language_tag, to_uri

PUBLISHER = REPOSITORY_PUBLISHER
PROJECT_RESOURCE_TYPE = ("Project", "Research Project")
RECORD_RESOURCE_TYPE = ("Other", "Record")  # a record that names no type of data

ORCID_SCHEME_URI = "https://orcid.org"
GND_SCHEME_URI = "https://d-nb.info/gnd/"
ROR_SCHEME_URI = "https://ror.org"
UNESCO_SCHEMES = {
    "unesco6": ("UNESCO Nomenclature for fields of science and technology", "http://skos.um.es/unesco6/"),
    "unescothes": ("UNESCO Thesaurus", "http://skos.um.es/unescothes/"),
}

_DATE_RE = re.compile(
    r"-?[0-9]{4}(?:-[0-9]{2}(?:-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}:[0-9]{2}))?)?)?"
)
_YEAR_RE = re.compile(r"[0-9]{4}")
_DOI_IN_TEXT = re.compile(r"(?<![0-9A-Za-z.])10\.[0-9]{4,9}/[^\s\"<>]+")
_DOI_RE = re.compile(r"(?:^|doi\.org/|^doi:)(10\.[0-9]{4,9}/\S+)$", re.IGNORECASE)
_ORCID_RE = re.compile(r"([0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X])", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class NameIdentifier:
    value: str
    scheme: str
    scheme_uri: str


@dataclass(frozen=True, slots=True)
class Affiliation:
    name: str
    ror: str | None = None


@dataclass(frozen=True, slots=True)
class Agent:
    """A creator or contributor: a person, an organisation, or a bare name."""

    name: str
    name_type: str | None = None  # "Personal" | "Organizational" | None (unknown)
    given_name: str = ""
    family_name: str = ""
    identifiers: tuple[NameIdentifier, ...] = ()
    affiliations: tuple[Affiliation, ...] = ()


# The values a record makes several of (titles, subjects, dates, related identifiers) are named tuples: as
# immutable and hashable as a frozen dataclass, and built in half the time.
class Text(NamedTuple):
    value: str
    lang: str | None = None
    kind: str | None = None  # titleType / descriptionType


class Subject(NamedTuple):
    value: str
    lang: str | None = None
    scheme: str | None = None
    scheme_uri: str | None = None
    value_uri: str | None = None


class Date(NamedTuple):
    value: str
    kind: str
    information: str | None = None


class Related(NamedTuple):
    value: str
    identifier_type: str
    relation: str


@dataclass(frozen=True, slots=True)
class Rights:
    text: str
    uri: str | None = None
    spdx: str | None = None


@dataclass(frozen=True, slots=True)
class Funding:
    funder: str
    identifier: str | None  # Crossref Funder ID (DOI URL) or ROR URL
    identifier_type: str | None  # "Crossref Funder ID" | "ROR"
    award_number: str | None
    award_uri: str | None
    award_title: str | None


@dataclass(slots=True)
class ItemMetadata:
    identifier: str
    identifier_type: str
    publisher: str
    publication_year: str
    resource_type: tuple[str, str]  # (resourceTypeGeneral, text)
    titles: list[Text] = field(default_factory=list)
    creators: list[Agent] = field(default_factory=list)
    contributors: list[tuple[Agent, str]] = field(default_factory=list)
    subjects: list[Subject] = field(default_factory=list)
    descriptions: list[Text] = field(default_factory=list)
    dates: list[Date] = field(default_factory=list)
    issued: str | None = None  # YYYY or YYYY-MM-DD: DataCite Issued, dc:date
    embargo_end: str | None = None
    publisher_identifier: str | None = None  # the publisher's ROR id, when known
    related_texts: list[str] = field(default_factory=list)  # publications known only by their citation text
    languages: list[str] = field(default_factory=list)
    alternate_identifiers: list[tuple[str, str]] = field(default_factory=list)
    related: list[Related] = field(default_factory=list)
    extra_identifiers: list[str] = field(default_factory=list)  # further dc:identifier (a record's file)
    formats: list[str] = field(default_factory=list)
    sizes: list[str] = field(default_factory=list)
    rights: list[Rights] = field(default_factory=list)
    access: vocabularies.AccessRight | None = None
    coverage: list[TemporalCoverage] = field(default_factory=list)
    places: list[str] = field(default_factory=list)
    funding: list[Funding] = field(default_factory=list)
    # The writers' renderings of what this record shares with others of its project (publisher, creators,
    # contributors, rights, access: see RecordSharing), kept with those values so each is written once.
    shared_renderings: dict[str, tuple[str, ...]] | None = field(default=None, compare=False, repr=False)


# --- small readers of stored values -------------------------------------------


def text_value(value: Any) -> str | None:
    """A usable string: stripped, not empty, not a placeholder."""
    if type(value) is str:
        text = value.strip()
        if text and text not in PLACEHOLDERS:
            return text
    return None


def texts(value: Any, kind: str | None = None) -> list[Text]:
    """Each language of a language map (or a plain string) as a :class:`Text`."""
    items: Iterable[tuple[str | None, Any]]
    if type(value) is dict:  # a parsed record's language map
        items = value.items()
    elif type(value) is str:
        items = ((None, value),)
    else:
        items = language_items(value)
    return [Text(text.strip(), lang if _language_tag(lang) else None, kind) for lang, text in items if text_value(text)]


@lru_cache(maxsize=256)
def _language_tag(lang: str | None) -> bool:
    return is_language_tag(lang)


def uri_value(value: Any) -> str | None:
    text = text_value(value)
    return to_uri(text) if text else None


def date_value(value: Any) -> str | None:
    text = text_value(value)
    return text if text and _DATE_RE.fullmatch(text) else None


def _first_text(value: Frozen) -> str | None:
    """The first usable string of a value or a list of values."""
    if type(value) is str:
        return text_value(value)
    return next(filter(None, map(text_value, _as_list(value))), None)


def _reference_url(value: Frozen) -> str | None:
    return uri_value(value.get("url")) if isinstance(value, Mapping) else None


# Type tuples for isinstance: a union (``tuple | list``) written in the call is built again on every call.
_SEQUENCE_TYPES = (tuple, list)
_NUMBER_TYPES = (int, float)


def _as_list(value: Frozen) -> Sequence[Frozen]:
    """A stored list (a tuple when frozen, a list in a parsed record); a single value as a list of one."""
    if isinstance(value, _SEQUENCE_TYPES):
        return value
    return () if value is None else (value,)


# --- agents ----------------------------------------------------------------------


def _organization_ror(organization: Organization) -> str | None:
    for reference in _as_list(organization.get("sameAs")):
        url = _reference_url(reference)
        if url and (reference.get("type") == "ROR" or "ror.org/" in url):
            return url
    return None


def _person_identifiers(person: Person) -> tuple[NameIdentifier, ...]:
    found: list[NameIdentifier] = []
    for reference in _as_list(person.get("sameAs")):
        url = _reference_url(reference)
        if not url:
            continue
        kind = str(reference.get("type") or "").upper()
        orcid = _ORCID_RE.search(url) if kind == "ORCID" or "orcid.org" in url else None
        if orcid:
            found.append(NameIdentifier(f"https://orcid.org/{orcid.group(1).upper()}", "ORCID", ORCID_SCHEME_URI))
        elif kind == "GND" or "d-nb.info/gnd/" in url:
            gnd = url.rstrip("/").rpartition("/")[2]
            found.append(NameIdentifier(f"https://d-nb.info/gnd/{gnd}", "GND", GND_SCHEME_URI))
    return tuple(dict.fromkeys(found))


def person_agent(person: Person, catalog: Catalog) -> Agent:
    affiliations = []
    for organization_id in dict.fromkeys(person.affiliation_ids):
        organization = catalog.organizations.get(organization_id)
        if organization and text_value(organization.name):
            affiliations.append(Affiliation(organization.name.strip(), _organization_ror(organization)))
    given = " ".join(name.strip() for name in person.given_names if text_value(name))
    family = " ".join(name.strip() for name in person.family_names if text_value(name))
    return Agent(
        name=person.sort_name,
        name_type="Personal",
        given_name=given,
        family_name=family,
        identifiers=_person_identifiers(person),
        affiliations=tuple(affiliations),
    )


def organization_agent(organization: Organization) -> Agent:
    ror = _organization_ror(organization)
    identifiers = (NameIdentifier(ror, "ROR", ROR_SCHEME_URI),) if ror else ()
    return Agent(name=organization.display_name.strip(), name_type="Organizational", identifiers=identifiers)


def contributor_agent(contributor_id: str, catalog: Catalog) -> Agent | None:
    contributor = catalog.contributor(contributor_id)
    if isinstance(contributor, Person):
        return person_agent(contributor, catalog)
    if isinstance(contributor, Organization):
        return organization_agent(contributor)
    return None


# --- rights ------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _licence_rights(identifier: str | None, uri: str | None) -> Rights | None:
    uri = canonical_licence_uri(uri) if uri else uri
    licence = vocabularies.spdx_licence(uri or "", identifier or "")
    if licence:
        return Rights(licence.name, uri, licence.spdx)
    if identifier or uri:
        return Rights(identifier or uri or "", uri)
    return None


def _legal_info(value: Frozen) -> tuple[list[Rights], list[str]]:
    """Licences and copyright holders of a legalInfo list (projects) or object (records)."""
    rights: list[Rights] = []
    holders: list[str] = []
    for entry in _as_list(value):
        if not isinstance(entry, Mapping):
            continue
        licence = entry.get("license")
        if isinstance(licence, Mapping):
            found = _licence_rights(text_value(licence.get("licenseIdentifier")), uri_value(licence.get("licenseURI")))
            if found and found not in rights:
                rights.append(found)
        holder = text_value(entry.get("copyrightHolder"))
        if holder and holder not in holders:
            holders.append(holder)
    return rights, holders


def _authorship(value: Frozen) -> list[str]:
    names: list[str] = []
    for entry in _as_list(value):
        if isinstance(entry, Mapping):
            for name in _as_list(entry.get("authorship")):
                name = text_value(name)
                if name and name not in names:
                    names.append(name)
    return names


def _access(value: Frozen) -> tuple[vocabularies.AccessRight | None, str | None]:
    """Access right and embargo date of ``{"accessRights": …, "embargoDate": …}`` or a plain label."""
    if isinstance(value, Mapping):
        label, embargo = text_value(value.get("accessRights")), date_value(value.get("embargoDate"))
    else:
        label, embargo = text_value(value), None
    return (vocabularies.access_right(label) if label else None), embargo


# --- projects ------------------------------------------------------------------------


def _year_of(*values: Any) -> str | None:
    for value in values:
        text = text_value(value) if not isinstance(value, int) else str(value)
        if text and _YEAR_RE.fullmatch(text[:4]) and (len(text) == 4 or text[4] == "-"):
            return text[:4]
    return None


def _range(start: str | None, end: str | None) -> str | None:
    if start and end:
        return start if start == end else f"{start}/{end}"
    if start or end:
        return f"{start or '..'}/{end or '..'}"
    return None


def _subjects(project: Project) -> list[Subject]:
    subjects: list[Subject] = []
    for keyword in _as_list(project.get("keywords")):
        subjects.extend(Subject(text.value, text.lang) for text in texts(keyword))
    for discipline in _as_list(project.get("disciplines")):
        if isinstance(discipline, Mapping) and ("url" in discipline or "type" in discipline):
            url = _reference_url(discipline)
            label = text_value(discipline.get("text")) or url
            if not label:
                continue
            scheme = next((known for key, known in UNESCO_SCHEMES.items() if url and f"/{key}/" in url), None)
            scheme_name, scheme_uri = scheme or (None, None)
            subjects.append(Subject(label, None, scheme_name, scheme_uri, url))
        else:
            subjects.extend(Subject(text.value, text.lang) for text in texts(discipline))
    return list(dict.fromkeys(subjects))


def _contributor_types(roles: tuple[str, ...] | list[str]) -> list[str]:
    """DataCite contributorTypes of some role strings; "Other" only when none is recognised."""
    types = list(dict.fromkeys(t for role in roles for t in vocabularies.contributor_types(role))) or ["Other"]
    return [t for t in types if t != "Other"] or types


def _creators_and_contributors(catalog: Catalog, project: Project) -> tuple[list[Agent], list[tuple[Agent, str]]]:
    """Creators are the attributions with a leading role (catalog.domain.roles); a creator's other roles
    and everyone else's roles make contributors."""
    creators: list[Agent] = []
    contributors: list[tuple[Agent, str]] = []
    for credit in project_credits(project):
        agent = contributor_agent(credit.contributor_id, catalog)
        if agent is None:
            continue
        if credit.is_creator:
            creators.append(agent)
            if not credit.other_roles:
                continue
        contributors.extend((agent, kind) for kind in _contributor_types(credit.other_roles))
    for contact_id in project.contact_point_ids:
        agent = contributor_agent(contact_id, catalog)
        if agent and (agent, "ContactPerson") not in contributors:
            contributors.append((agent, "ContactPerson"))
    return creators, contributors


def _funder_identifier(funder: Person | Organization, name: str) -> tuple[str | None, str | None]:
    """Crossref Funder ID from the curated list, else a ROR id (the list's, or the organisation's own sameAs)."""
    known = vocabularies.known_organisation(name)
    if known and known.crossref_funder_id:
        return known.crossref_funder_id, "Crossref Funder ID"
    ror = (known.ror if known else None) or (_organization_ror(funder) if isinstance(funder, Organization) else None)
    return (ror, "ROR") if ror else (None, None)


def _funding(catalog: Catalog, project: Project) -> list[Funding]:
    found: list[Funding] = []
    for grant in _as_list(project.get("funding")):
        if not isinstance(grant, Mapping):
            continue  # e.g. "No funding"
        number = text_value(grant.get("number"))
        number = str(grant["number"]) if number is None and isinstance(grant.get("number"), int) else number
        for funder_id in _as_list(grant.get("funders")):
            funder = catalog.contributor(funder_id) if isinstance(funder_id, str) else None
            if funder is None:
                continue
            name = funder.sort_name if isinstance(funder, Person) else funder.display_name
            identifier, identifier_type = _funder_identifier(funder, name)
            found.append(
                Funding(
                    name,
                    identifier,
                    identifier_type,
                    number,
                    uri_value(grant.get("url")),
                    text_value(grant.get("name")),
                )
            )
    return found


def _doi_in_text(found: str) -> str:
    """A DOI found in running text without the punctuation that ends the sentence or closes a bracket."""
    doi = found.rstrip(".,;:")
    while doi.endswith(")") and doi.count("(") < doi.count(")"):
        doi = doi[:-1].rstrip(".,;:")
    return doi


def _publications(project: Project) -> tuple[list[Related], list[str]]:
    """Publications with a DOI or URL (``IsCitedBy``: they cite the project's data), and those known only by text.

    A DOI written into the citation text counts like a structured one (beside a pid that is no DOI).
    """
    related: list[Related] = []
    texts_only: list[str] = []
    for publication in _as_list(project.get("publications")):
        pid = publication.get("pid") if isinstance(publication, Mapping) else None
        url = _reference_url(pid) if isinstance(pid, Mapping) else uri_value(pid)
        doi = _DOI_RE.search(url) if url else None
        if doi:
            related.append(Related(doi.group(1), "DOI", "IsCitedBy"))
            continue
        if url:
            related.append(Related(url, "URL", "IsCitedBy"))
        text = text_value(publication.get("text")) if isinstance(publication, Mapping) else text_value(publication)
        dois = list(dict.fromkeys(_doi_in_text(found) for found in _DOI_IN_TEXT.findall(text or "")))
        related.extend(Related(found, "DOI", "IsCitedBy") for found in dois)
        if not url and not dois and text and text not in texts_only:
            texts_only.append(text)
    return related, texts_only


def pid_related(pid: Any, relation: str) -> Related | None:
    url = uri_value(pid)
    if not url:
        return None
    return Related(url, identifiers.pid_type(url), relation)


def free_text_agent(name: str, person_names: frozenset[str]) -> Agent:
    """A name the data gives as text only (authorship, copyright holder): Personal when it names a known person,
    else Organizational (the publisher, an institution, or a project named as holder)."""
    return Agent(name, "Personal" if name in person_names else "Organizational")


def _publisher_identifier(publisher: str) -> str | None:
    known = vocabularies.known_organisation(publisher)
    return known.ror if known else None


def landing_url(base_url: str, project: Project) -> str:
    """The project's own page: its identifier when its pid is shared."""
    return base_url + links.project_path(project.shortcode)


def _project_titles(project: Project) -> list[Text]:
    """Its name, then its official and alternative names; the shortcode when it names itself nowhere."""
    titles: list[Text] = []
    name = text_value(project.name)
    if name:
        titles.append(Text(name))
    official = text_value(project.get("officialName"))
    if official and official != name:
        titles.append(Text(official, None, "AlternativeTitle"))
    for alternative in _as_list(project.get("alternativeNames")):
        titles.extend(texts(alternative, "AlternativeTitle"))
    return titles or [Text(project.shortcode)]


def _project_dates(
    catalog: Catalog, project: Project, issued: str | None, embargo: str | None
) -> tuple[list[Date], list[TemporalCoverage]]:
    """Issued, Collected (start/end), Coverage (with the period's name) and Available (embargo end)."""
    found = [Date(issued, "Issued")] if issued else []
    collected = _range(date_value(project.get("startDate")), date_value(project.get("endDate")))
    if collected:
        found.append(Date(collected, "Collected"))
    coverages: list[TemporalCoverage] = []
    for entry in _as_list(project.get("temporalCoverage")):
        coverage = resolve(entry, catalog.chronontology_periods, catalog.temporal_coverage_enrichment)
        if coverage.name or coverage.date:
            coverages.append(coverage)
        if coverage.date:
            found.append(Date(coverage.date, "Coverage", coverage.name))
    if embargo:
        found.append(Date(embargo, "Available"))
    return found, coverages


def _project_alternate_identifiers(project: Project, identity: identifiers.ItemIdentity) -> list[tuple[str, str]]:
    found = [(project.shortcode, "Shortcode")]
    if identity.identifier_type == "URL" and identity.shared_pid is None and uri_value(project.pid):
        found.append((project.pid.strip(), identifiers.pid_type(project.pid)))
    return found


def _project_parents(catalog: Catalog, project: Project, identity: identifiers.ItemIdentity) -> list[Related]:
    groups: tuple[Cluster | Collection, ...] = (
        *catalog.clusters_by_project.get(project.key, ()),
        *catalog.collections_by_project.get(project.key, ()),
    )
    parents = [pid_related(parent.get("pid"), "IsPartOf") for parent in groups]
    if identity.shared_pid:
        # The shared pid identifies the cluster that carries it (or, without one, the group of its items).
        parents.append(pid_related(identity.shared_pid, "IsPartOf"))
    return [parent for parent in parents if parent]


def _places(project: Project) -> list[str]:
    places: list[str] = []
    for place in _as_list(project.get("spatialCoverage")):
        label = text_value(place.get("text")) if isinstance(place, Mapping) and "url" in place else pick_language(place)
        if (shown := text_value(label)) and label not in places:
            places.append(shown)
    return places


def project_metadata(catalog: Catalog, project: Project, base_url: str, fallback_year: str) -> ItemMetadata:
    """``base_url`` is the site's origin (for landing pages); ``fallback_year`` stands in for a missing date."""
    raw = project.raw
    identity = identifiers.project_identity(catalog, project, landing_url(base_url, project))
    access, embargo = _access(raw.get("accessRights"))
    rights, holders = _legal_info(raw.get("legalInfo"))
    creators, contributors = _creators_and_contributors(catalog, project)
    person_names = catalog.person_names
    contributors.extend((free_text_agent(holder, person_names), "RightsHolder") for holder in holders)
    issued = dates.project_issued(catalog, project)
    project_dates, coverage = _project_dates(catalog, project, issued, embargo)
    publications, related_texts = _publications(project)
    return ItemMetadata(
        identifier=identity.identifier,
        identifier_type=identity.identifier_type,
        publisher=PUBLISHER,
        publisher_identifier=_publisher_identifier(PUBLISHER),
        publication_year=dates.year(issued) or fallback_year,
        resource_type=PROJECT_RESOURCE_TYPE,
        titles=_project_titles(project),
        creators=creators or [Agent(PUBLISHER, "Organizational")],
        contributors=contributors,
        subjects=_subjects(project),
        descriptions=[
            *texts(raw.get("shortDescription"), "Abstract"),
            *texts(raw.get("abstract"), "Abstract"),
            *texts(raw.get("description"), "Other"),
        ],
        dates=project_dates,
        issued=issued,
        embargo_end=embargo,
        related_texts=related_texts,
        languages=project_languages(project),
        alternate_identifiers=_project_alternate_identifiers(project, identity),
        related=list(dict.fromkeys([*_project_parents(catalog, project, identity), *publications])),
        rights=rights,
        access=access,
        coverage=coverage,
        places=_places(project),
        funding=_funding(catalog, project),
    )


def meets_openaire_mandatory(catalog: Catalog, project: Project) -> bool:
    """True when a project and its records carry what the OpenAIRE Guidelines for Data Archives make mandatory.

    Identifier, creator (the publisher at worst), publisher and resource type are always there; a project
    must name itself, have an issue date of its own and a known access right. Its records inherit the
    issue date and carry their own identifier, title, creator and access right.
    """
    return (
        bool(text_value(project.name))
        and _access(project.get("accessRights"))[0] is not None
        and dates.project_issued(catalog, project) is not None
    )


def project_languages(project: Project) -> list[str]:
    """The project's data languages that are language tags; its records inherit them."""
    return [lang for lang in dict.fromkeys(_as_list(project.get("dataLanguage"))) if is_language_tag(lang)]


@dataclass(frozen=True, slots=True)
class _RecordShared:
    """The parts of a record that the records of a project usually share (legal info, access)."""

    publisher: str
    publisher_identifier: str | None
    creators: tuple[Agent, ...]
    contributors: tuple[tuple[Agent, str], ...]
    rights: tuple[Rights, ...]
    access: vocabularies.AccessRight | None
    embargo: str | None
    renderings: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False, repr=False)


def _hashable(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((key, _hashable(item)) for key, item in value.items()))
    if isinstance(value, list):
        return tuple(_hashable(item) for item in value)
    return value


class RecordSharing:
    """The shared parts of one project's records, each derived once per distinct value: a million records
    mostly repeat a few. Held by the project's :class:`ProjectContext`, so it lives and dies with it.

    Consecutive records usually repeat the previous record's values, which a
    plain comparison finds without hashing nested values.
    """

    __slots__ = ("_by_value", "_last", "_person_names")

    MAX_VALUES = 64  # distinct values kept per project (records repeat a few); more empty the table

    def __init__(self, person_names: frozenset[str]) -> None:
        self._person_names = person_names
        self._by_value: dict[tuple[Any, Any, Any], _RecordShared] = {}
        self._last: tuple[Any, Any, Any, _RecordShared] | None = None

    def of(self, publisher_value: Any, legal: Any, access_value: Any) -> _RecordShared:
        last = self._last
        if last is not None and last[0] == publisher_value and last[1] == legal and last[2] == access_value:
            return last[3]
        key = (_hashable(publisher_value), _hashable(legal), _hashable(access_value))
        shared = self._by_value.get(key)
        if shared is None:
            if len(self._by_value) >= self.MAX_VALUES:
                self._by_value.clear()
            shared = self._by_value[key] = self._derive(publisher_value, legal, access_value)
        self._last = (publisher_value, legal, access_value, shared)
        return shared

    def _derive(self, publisher_value: Any, legal: Any, access_value: Any) -> _RecordShared:
        publisher = text_value(publisher_value) or PUBLISHER
        rights, holders = _legal_info(legal)
        access, embargo = _access(access_value)
        person_names = self._person_names
        return _RecordShared(
            publisher=publisher,
            publisher_identifier=_publisher_identifier(publisher),
            creators=tuple(free_text_agent(name, person_names) for name in _authorship(legal))
            or (Agent(publisher, "Organizational"),),
            contributors=tuple((free_text_agent(holder, person_names), "RightsHolder") for holder in holders),
            rights=tuple(rights),
            access=access,
            embargo=embargo,
        )


@dataclass(frozen=True, slots=True)
class ProjectContext:
    """What every record of one project takes from its project and the catalogue, derived once."""

    project_related: Related | None  # the record IsPartOf the project
    fallback_year: str
    languages: tuple[str, ...]
    person_names: frozenset[str]
    issued: str | None  # the project's: a record that says nothing of its publication was issued with it
    sharing: RecordSharing = field(compare=False, repr=False)  # what its records' shared values derive to


def project_context(catalog: Catalog, project: Project, base_url: str, fallback_year: str) -> ProjectContext:
    identity = identifiers.project_identity(catalog, project, landing_url(base_url, project))
    person_names = catalog.person_names
    return ProjectContext(
        project_related=Related(identity.identifier, identity.identifier_type, "IsPartOf"),
        fallback_year=fallback_year,
        languages=tuple(project_languages(project)),
        person_names=person_names,
        issued=dates.project_issued(catalog, project),
        sharing=RecordSharing(person_names),
    )


# --- records ------------------------------------------------------------------------


def _record_dates(issued: str | None, created: str | None, modified: str | None, embargo: str | None) -> list[Date]:
    """Each date the record has, once per kind (the kinds differ, so no two are equal)."""
    found = [Date(issued, "Issued")] if issued else []
    if created:
        found.append(Date(created, "Created"))
    if modified:
        found.append(Date(modified, "Updated"))
    if embargo:
        found.append(Date(embargo, "Available"))
    return found


def _record_file(item: ItemMetadata, file: Any) -> None:
    """A record's file: a part of it (its URL, also a dc:identifier) and its format."""
    if not isinstance(file, dict):
        return
    file_url = uri_value(file.get("url"))
    if file_url:
        item.related.append(Related(file_url, "URL", "HasPart"))
        item.extra_identifiers.append(file_url)
    mime_type = text_value(file.get("mimeType"))
    if mime_type:
        item.formats.append(mime_type)


def _size(size: Any) -> list[str]:
    if size is None:
        return []
    if isinstance(size, _NUMBER_TYPES) and not isinstance(size, bool):
        return [str(size)]
    shown = text_value(size)
    return [shown] if shown else []


@lru_cache(maxsize=256)
def _record_resource_type(type_of_data: str | None) -> tuple[str, str]:
    return (vocabularies.resource_type_general(type_of_data), type_of_data) if type_of_data else RECORD_RESOURCE_TYPE


def record_metadata(record: dict[str, Any], context: ProjectContext) -> ItemMetadata:
    """One record (its parsed JSON), with what it takes from its project."""
    get = record.get
    shared = context.sharing.of(get("publisher"), get("legalInfo"), get("accessRights"))
    record_id = uri_value(get("id"))
    pid = uri_value(get("pid")) or record_id or ""
    created, modified = date_value(get("dateCreated")), date_value(get("dateModified"))
    issued = dates.record_issued(record) or context.issued
    keywords = get("keywords")
    item = ItemMetadata(
        identifier=pid,
        identifier_type=identifiers.pid_type(pid),
        publisher=shared.publisher,
        publisher_identifier=shared.publisher_identifier,
        publication_year=dates.year(issued) or _year_of(created, modified) or context.fallback_year,
        resource_type=_record_resource_type(_first_text(get("typeOfData"))),
        titles=texts(get("label")) or [Text(pid)],
        creators=list(shared.creators),
        contributors=list(shared.contributors),
        subjects=[Subject(text.value, text.lang) for keyword in _as_list(keywords) for text in texts(keyword)]
        if keywords
        else [],
        descriptions=texts(get("description"), "Abstract") if "description" in record else [],
        dates=_record_dates(issued, created, modified, shared.embargo),
        issued=issued,
        embargo_end=shared.embargo,
        access=shared.access,
        rights=list(shared.rights),
        languages=list(context.languages),
        alternate_identifiers=[(record_id, "IRI")] if record_id and record_id != pid else [],
        related=[context.project_related] if context.project_related else [],
        sizes=_size(get("size")),
        shared_renderings=shared.renderings,
    )
    _record_file(item, get("file"))
    return item
