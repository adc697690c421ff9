"""View models: what each page shows, computed from the catalogue once.

Everything here is plain data (strings, :class:`~catalog.domain.values.Link`,
lists), built for one catalogue, one placeholder setting and one interface
language and then reused for every request, so that templates only lay values
out. Links to pages come from :mod:`catalog.pages.page_links`, so they are in
the language the view model is built in.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from catalog.domain.all_records import AllRecordsQuery
from catalog.domain.engine import Marker
from catalog.domain.model import (
    Catalog,
    Cluster,
    Collection,
    Frozen,
    Organization,
    Person,
    Project,
    RecordTable,
)
from catalog.domain.record_search import record_date
from catalog.domain.search import FacetValue
from catalog.domain.temporal import resolve
from catalog.domain.values import (
    Link,
    Placeholder,
    Shown,
    Values,
    access_right,
    canonical_licence_uri,
    language_name,
    licence_name,
    project_urls,
    shorten,
    stored_list,
    stored_strings,
)
from catalog.formats import links
from catalog.pages import page_links
from catalog.pages.vocabulary import access_rights_label, role_label, type_of_data_label

RECORDS_ON_PROJECT_PAGE = 20
META_DESCRIPTION_LENGTH = 160
FOLD_CHARACTERS = 700  # descriptions longer than this start folded
CARD_KEYWORDS = 4

TAB_LABELS = {
    "overview": gettext_lazy("Overview"),
    "publications": gettext_lazy("Publications"),
    "contributors": gettext_lazy("Contributors"),
    "records": gettext_lazy("Records"),
}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def plain(value: object) -> str:
    """A shown value as plain text (placeholders never reach metadata)."""
    if value is None or isinstance(value, Placeholder):
        return ""
    if isinstance(value, Link):
        return value.text
    return str(value)


@dataclass(frozen=True, slots=True)
class EntityRef:
    """A link to another entity page, with its display name."""

    name: str
    url: str


@dataclass(frozen=True, slots=True)
class Badge:
    label: str
    css: str


@dataclass(frozen=True, slots=True)
class ProjectCard:
    shortcode: str
    name: str
    url: str
    short_description: str | None
    keywords: tuple[str, ...]
    badges: tuple[Badge, ...]
    start_date: str | None = None  # the date "Newest first" and "Oldest first" sort by
    end_date: str | None = None


@dataclass(frozen=True, slots=True)
class ContributorRow:
    ref: EntityRef
    is_person: bool
    roles: tuple[str, ...]
    affiliations: tuple[EntityRef, ...]


@dataclass(frozen=True, slots=True)
class LicenseView:
    label: Shown
    url: str | None
    is_creative_commons: bool
    date: str | None


@dataclass(frozen=True, slots=True)
class GrantView:
    name: str | None
    number: str | None
    link: Link | None
    funders: tuple[EntityRef | str, ...]


@dataclass(frozen=True, slots=True)
class RecordRow:
    label: str
    url: str
    type_of_data: str | None
    date: str | None
    identifier: str = ""
    label_parts: tuple[tuple[str, bool], ...] = ()  # (text, matches the search)
    snippet_parts: tuple[tuple[str, bool], ...] = ()  # where else the search matched: a description, keywords
    project: EntityRef | None = None  # shown when the rows come from several projects


@dataclass(frozen=True, slots=True)
class FacetValueLink:
    """A value on a facet's own page: the search with it selected, or, when it is, without it."""

    label: str
    count: int
    selected: bool
    url: str


def facet_value_links(
    key: str,
    values: Sequence[FacetValue],
    query: AllRecordsQuery,
    records_path: str,
    label: Callable[[str, FacetValue], str],
) -> list[FacetValueLink]:
    """The values of facet ``key`` as links to `/records` (``records_path``) with ``query``'s search, from its
    first page; ``label`` says a value as the facet on `/records` does."""

    def toggled(value: FacetValue) -> str:
        changed = query.without_filter if value.selected else query.with_filter
        return query.url(records_path, filters=changed(key, value.value), page=1)

    return [FacetValueLink(label(key, value), value.count, value.selected, toggled(value)) for value in values]


@dataclass(frozen=True, slots=True)
class Publication:
    text: Shown
    link: Shown


@dataclass(frozen=True, slots=True)
class Fact:
    """One labelled entry of a definition list; ``values`` are shown values."""

    label: str
    values: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class PageMeta:
    """What the page shell needs: title, description, canonical path, the JSON document."""

    title: str
    description: str
    path: str
    json_path: str | None
    og_type: str = "website"
    feed_path: str | None = None  # an Atom feed of its changes


@dataclass(frozen=True)
class ProjectPage:
    meta: PageMeta
    shortcode: str
    name: str
    alternative_names: tuple[str, ...]
    short_description: str | None
    descriptions: tuple[tuple[str | None, str], ...]
    header_links: tuple[Fact, ...]
    tabs: tuple[tuple[str, str, str], ...]  # (id, label, url)
    overview: tuple[Fact, ...]
    abstracts: tuple[tuple[str | None, str], ...]
    publications: tuple[Publication, ...]
    contributors: tuple[ContributorRow, ...]
    record_count: int
    records: tuple[RecordRow, ...]
    records_url: str
    permalink: str | None
    citation: str | None
    citation_downloads: tuple[tuple[str, str], ...]  # (label, url)
    access_rights: Shown
    access_css: str
    embargo_date: str | None
    licenses: tuple[LicenseView, ...]
    copyright_holders: tuple[str, ...]
    authorship: tuple[str, ...]
    contact_points: tuple[tuple[EntityRef, str | None], ...]
    start_date: str | None
    end_date: str | None
    status: str | None
    funding_text: str | None
    grants: tuple[GrantView, ...]
    data_management_plan: Shown
    clusters: tuple[EntityRef, ...] = field(default=())

    @property
    def folds_description(self) -> bool:
        """Whether the description starts folded: decided here, so the fold is in the first paint."""
        return sum(len(text) for _language, text in self.descriptions) > FOLD_CHARACTERS


def _ref_for(catalog: Catalog, contributor_id: str) -> tuple[EntityRef, bool] | None:
    person = catalog.persons.get(contributor_id)
    if person is not None:
        return EntityRef(person.display_name, page_links.person(person.id)), True
    organization = catalog.organizations.get(contributor_id)
    if organization is not None:
        return EntityRef(organization.display_name, page_links.organization(organization.id)), False
    return None


def _ref_or_id(catalog: Catalog, contributor_id: str) -> EntityRef | str:
    found = _ref_for(catalog, contributor_id)
    return found[0] if found else contributor_id


def project_badges(project: Project, values: Values) -> tuple[Badge, ...]:
    badges = []
    status = values.text(project.get("status"))
    if status and not isinstance(status, Placeholder):
        badges.append(Badge(status, f"status-{slug(status)}"))
    right = access_right(project)[0]
    shown = values.text(right)
    if shown and not isinstance(shown, Placeholder):
        badges.append(Badge(shown, f"access-{slug(shown)}"))
    return tuple(badges)


def project_card(project: Project, values: Values) -> ProjectCard:
    keywords = [plain(values.text(keyword)) for keyword in stored_list(project.get("keywords"))]
    return ProjectCard(
        shortcode=project.shortcode,
        name=project.name or project.shortcode,
        url=page_links.project(project.shortcode),
        short_description=values.text(project.get("shortDescription")),
        keywords=tuple(keyword for keyword in keywords if keyword)[:CARD_KEYWORDS],
        badges=project_badges(project, values),
        start_date=plain(values.date(project.get("startDate"))) or None,
        end_date=plain(values.date(project.get("endDate"))) or None,
    )


def license_views(legal_infos: Frozen, values: Values) -> tuple[LicenseView, ...]:
    views = []
    for legal in stored_list(legal_infos):
        if not isinstance(legal, Mapping) or not isinstance(legal.get("license"), Mapping):
            continue
        license_ = legal["license"]
        identifier = values.text(license_.get("licenseIdentifier"))
        stored = values.url(license_.get("licenseURI"))
        url = canonical_licence_uri(stored) if stored else None
        if not identifier and not url:
            continue
        label: Shown = licence_name(identifier, url)
        plain_label = plain(identifier).upper()
        is_cc = plain_label.startswith("CC") or (url is not None and "creativecommons.org" in url)
        views.append(LicenseView(label, url, is_cc, values.date(license_.get("licenseDate"))))
    return tuple(views)


def _legal_strings(legal_infos: Frozen, name: str, values: Values) -> tuple[str, ...]:
    shown = []
    for legal in stored_list(legal_infos):
        if isinstance(legal, Mapping):
            for value in stored_strings(legal.get(name)):
                text = values.text(value)
                if text and text not in shown:
                    shown.append(text)
    return tuple(shown)


def _record_row(table: RecordTable, index: int, values: Values, marker: Marker | None = None) -> RecordRow:
    record = table.record(index)
    pid = table.pids[index]
    label = plain(values.text(record.get("label"))) or links.record_suffix(pid)
    label_parts = marker.parts(label) if marker else ()
    snippet_parts: tuple[tuple[str, bool], ...] = ()
    if marker and not any(hit for _, hit in label_parts):
        # Why it matched when the label does not say: its description (the reader's language first), its keywords.
        texts = [text for _language, text in values.language_texts(record.get("description"))]
        texts += [text for keyword in stored_list(record.get("keywords")) if (text := values.text(keyword))]
        snippet_parts = marker.snippet(texts, length=160)
    return RecordRow(
        label=label,
        url=page_links.record(table.shortcode, pid),
        type_of_data=type_of_data_label(values.text(record.get("typeOfData"))),
        date=values.date(record_date(record)),
        identifier=links.record_suffix(pid),
        label_parts=label_parts,
        snippet_parts=snippet_parts,
    )


def record_rows(table: RecordTable, start: int, stop: int, values: Values) -> tuple[RecordRow, ...]:
    return tuple(_record_row(table, index, values) for index in range(start, min(stop, len(table))))


def record_rows_at(
    table: RecordTable, positions: Sequence[int], values: Values, marker: Marker | None
) -> tuple[RecordRow, ...]:
    """The rows of a search result page, with the words the search matched marked (label, else a snippet)."""
    return tuple(_record_row(table, index, values, marker) for index in positions)


def record_rows_of_projects(
    catalog: Catalog, hits: Sequence[tuple[str, int]], values: Values, marker: Marker | None
) -> tuple[RecordRow, ...]:
    """The rows of a search across all records: each names its project."""
    rows = []
    named: dict[str, EntityRef] = {}  # a page's hits come from few projects: each one's link made once
    for key, index in hits:
        table = catalog.records[key]
        if (reference := named.get(table.shortcode)) is None:
            project = catalog.get_project(table.shortcode)
            name = (project.name if project else None) or table.shortcode
            reference = named[table.shortcode] = EntityRef(name, page_links.project(table.shortcode))
        rows.append(replace(_record_row(table, index, values, marker), project=reference))
    return tuple(rows)


def shown_year(text: str) -> str:
    """A year as written in a period's date ("-0945", "1500") as a reader says it ("945 BCE", "1500")."""
    if not re.fullmatch(r"-?[0-9]+", text):
        return text
    year = int(text)
    return _("{year} BCE").format(year=-year) if year < 0 else str(year)


def period_years(date: str) -> str:
    """A resolved period date (``1250/1500``, ``1914/..``, ``../1500``, ``1848``) as years for the page."""
    start, _slash, end = date.partition("/")
    if not end:
        return shown_year(start)
    first = shown_year(start) if start != ".." else ""
    last = shown_year(end) if end != ".." else ""
    return f"{first}\u2013{last}"  # an en dash, open at an unknown end


def temporal_coverage(catalog: Catalog, project: Project, values: Values) -> list[Shown]:
    """Each temporal coverage entry as stored, with the years its period name resolves to beside it."""
    shown: list[Shown] = []
    for entry in stored_list(project.get("temporalCoverage")):
        value = values.reference(entry)
        if not value:
            continue
        date = resolve(entry, catalog.chronontology_periods, catalog.temporal_coverage_enrichment).date
        name = value.text if isinstance(value, Link) else str(value)
        years = period_years(date) if date else ""
        if (
            years
            and not isinstance(value, Placeholder)
            and not set(re.findall(r"\d+", years)) <= set(re.findall(r"\d+", name))
        ):  # "1987-2018" already says its years
            value = Link(value.href, f"{value.text} ({years})") if isinstance(value, Link) else f"{value} ({years})"
        shown.append(value)
    return shown


def _fact(label: str, *items: Any) -> Fact | None:
    shown = tuple(item for item in items if item)
    return Fact(label, shown) if shown else None


def _facts(*facts: Fact | None) -> tuple[Fact, ...]:
    return tuple(fact for fact in facts if fact)


def meta_description(*candidates: object) -> str:
    for candidate in candidates:
        text = plain(candidate)
        if text:
            return shorten(text, META_DESCRIPTION_LENGTH)
    return ""


def description_in_language(values: Values, short: Frozen, descriptions: Sequence[tuple[str | None, str]]) -> str:
    """The meta/OpenGraph description: a text in the page's language first, the short description next.

    A short description with no stated language loses to a description written in the reader's language.
    """
    short_texts = values.language_texts(short)
    for language, text in (*short_texts, *descriptions):
        if language == values.language and plain(text):
            return meta_description(text)
    return meta_description(*(text for _language, text in short_texts), descriptions[0][1] if descriptions else "")


def build_project_page(catalog: Catalog, project: Project, values: Values) -> ProjectPage:
    shortcode = project.shortcode
    data_link, website_link = project_urls(project, values)
    secondary = values.reference(project.get("secondaryUrl"))
    header_links = _facts(
        _fact(_("Data"), data_link),
        _fact(_("Website"), website_link, secondary),
    )
    descriptions = tuple(values.language_texts(project.get("description")))
    publications = _publications(project, values)
    table = catalog.records_of(project)
    record_count = len(table) if table else 0
    clusters = tuple(
        EntityRef(cluster.name or cluster.id, page_links.cluster(cluster.id))
        for cluster in catalog.clusters_by_project.get(project.key, ())
    )
    right, embargo = access_right(project)
    access_text = values.text(right)
    funding = project.get("funding")
    pid_url = values.url(project.pid)
    name = project.name or shortcode
    return ProjectPage(
        meta=PageMeta(
            title=name,
            description=description_in_language(values, project.get("shortDescription"), descriptions),
            path=page_links.project(shortcode),
            json_path=links.project_json_path(shortcode),
            og_type="website",
            feed_path=links.project_feed_path(shortcode),
        ),
        shortcode=shortcode,
        name=name,
        alternative_names=tuple(values.texts(project.get("alternativeNames"))),
        short_description=values.text(project.get("shortDescription")),
        descriptions=descriptions,
        header_links=header_links,
        tabs=project_tabs(shortcode, bool(publications), record_count),
        overview=_project_overview(catalog, project, values, clusters),
        abstracts=tuple(values.language_texts(project.get("abstract"))),
        publications=publications,
        contributors=_contributor_rows(catalog, project, values),
        record_count=record_count,
        records=record_rows(table, 0, RECORDS_ON_PROJECT_PAGE, values) if table else (),
        records_url=page_links.project_records(shortcode),
        permalink=pid_url,
        citation=values.text(project.get("howToCite")),
        citation_downloads=tuple(
            (label, links.citation_path(shortcode, extension))
            for label, extension in (("BibTeX", "bib"), ("RIS", "ris"), ("CSL-JSON", "csl.json"))
        ),
        access_rights=access_text,
        access_css=f"access-{slug(plain(access_text))}" if plain(access_text) else "",
        embargo_date=values.date(embargo),
        licenses=license_views(project.get("legalInfo"), values),
        copyright_holders=_legal_strings(project.get("legalInfo"), "copyrightHolder", values),
        authorship=_legal_strings(project.get("legalInfo"), "authorship", values),
        contact_points=contact_points(catalog, project),
        start_date=values.date(project.get("startDate")),
        end_date=values.date(project.get("endDate")),
        status=values.text(project.get("status")),
        funding_text=values.text(funding) if isinstance(funding, str) else None,
        grants=_grants(catalog, funding, values),
        data_management_plan=values.reference(project.get("dataManagementPlan")),
        clusters=clusters,
    )


def _publications(project: Project, values: Values) -> tuple[Publication, ...]:
    return tuple(
        Publication(
            values.text(entry.get("text")),
            values.link(entry["pid"].get("url"), entry["pid"].get("text"))
            if isinstance(entry.get("pid"), Mapping) and values.url(entry["pid"].get("url"))
            else None,
        )
        for entry in stored_list(project.get("publications"))
        if isinstance(entry, Mapping) and values.text(entry.get("text"))
    )


def _contributor_rows(catalog: Catalog, project: Project, values: Values) -> tuple[ContributorRow, ...]:
    """The attributions whose contributor exists, a person with its affiliations."""
    contributors = []
    for attribution in project.attributions:
        found = _ref_for(catalog, attribution.contributor_id)
        if found is None:
            continue
        ref, is_person = found
        affiliations: tuple[EntityRef, ...] = ()
        if is_person:
            person = catalog.persons[attribution.contributor_id]
            affiliations = tuple(
                EntityRef(org.display_name, page_links.organization(org.id))
                for org_id in dict.fromkeys(person.affiliation_ids)
                if (org := catalog.organizations.get(org_id))
            )
        roles = tuple(role for role in (values.text(r) for r in attribution.roles) if role)
        contributors.append(ContributorRow(ref, is_person, roles, affiliations))
    return tuple(contributors)


def project_tabs(shortcode: str, has_publications: bool, record_count: int) -> tuple[tuple[str, str, str], ...]:
    """(id, label, path) of each tab of a project page: publications and records only when there are some."""
    tabs = [("overview", TAB_LABELS["overview"])]
    if has_publications:
        tabs.append(("publications", TAB_LABELS["publications"]))
    tabs.append(("contributors", TAB_LABELS["contributors"]))
    if record_count:
        tabs.append(("records", TAB_LABELS["records"]))
    return tuple((tab_id, str(label), page_links.project(shortcode, tab_id)) for tab_id, label in tabs)


def _project_overview(
    catalog: Catalog, project: Project, values: Values, clusters: tuple[EntityRef, ...]
) -> tuple[Fact, ...]:
    collections = tuple(
        Link(page_links.collection(collection.id), collection.name or collection.id)
        for collection in catalog.collections_by_project.get(project.key, ())
    )
    return _facts(
        _fact(_("Official name"), values.text(project.get("officialName"))),
        _fact(_("Shortcode"), project.shortcode),
        _fact(_("Keywords"), *values.texts(project.get("keywords"))),
        _fact(_("Disciplines"), *values.references(project.get("disciplines"))),
        _fact(_("Temporal coverage"), *temporal_coverage(catalog, project, values)),
        _fact(_("Spatial coverage"), *values.references(project.get("spatialCoverage"))),
        _fact(_("Type of data"), *(type_of_data_label(text) for text in values.texts(project.get("typeOfData")))),
        _fact(
            _("Data languages"),
            *(language_name(code, values.language) for code in values.texts(project.get("dataLanguage"))),
        ),
        _fact(_("Data publication year"), values.text(project.get("dataPublicationYear"))),
        _fact(_("Clusters"), *(Link(ref.url, ref.name) for ref in clusters)),
        _fact(_("Collections"), *collections),
        _fact(_("Documentation"), *values.references(project.get("documentationMaterial"))),
        _fact(_("Additional material"), *values.references(project.get("additionalMaterial"))),
        _fact(_("Provenance"), values.text(project.get("provenance"))),
        _fact(_("Image credit"), values.text(project.get("imageCredit"))),
    )


def _grants(catalog: Catalog, funding: Frozen, values: Values) -> tuple[GrantView, ...]:
    return tuple(
        GrantView(
            name=values.text(grant.get("name")),
            number=values.text(grant.get("number")),
            link=Link(url, url) if (url := values.url(grant.get("url"))) else None,
            funders=tuple(_ref_or_id(catalog, funder) for funder in stored_strings(grant.get("funders"))),
        )
        for grant in stored_list(funding)
        if isinstance(grant, Mapping)
    )


def contact_points(catalog: Catalog, project: Project) -> tuple[tuple[EntityRef, str | None], ...]:
    """Each contact point that exists, with its email address when it has a plausible one."""
    found_points = []
    for contact_id in project.contact_point_ids:
        found = _ref_for(catalog, contact_id)
        if found:
            contact = catalog.contributor(contact_id)
            email = contact.get("email") if contact is not None else None
            found_points.append((found[0], email if isinstance(email, str) and "@" in email else None))
    return tuple(found_points)


@dataclass(frozen=True)
class RecordPage:
    meta: PageMeta
    project: EntityRef
    records_url: str
    label: str
    permalink: str | None
    facts: tuple[Fact, ...]
    descriptions: tuple[tuple[str | None, str], ...]
    citation: str | None
    licenses: tuple[LicenseView, ...]
    file: Shown


def build_record_page(project: Project, table: RecordTable, index: int, values: Values) -> RecordPage:
    record = table.record(index)
    pid = table.pids[index]
    label = plain(values.text(record.get("label"))) or links.record_suffix(pid)
    legal = record.get("legalInfo")
    file = record.get("file")
    file_link: Shown = None
    if isinstance(file, Mapping):
        file_link = values.link(file.get("url"), file.get("url"))
    facts = _facts(
        _fact(_("Identifier"), values.text(record.get("id"))),
        _fact(_("Access rights"), access_rights_label(values.text(record.get("accessRights")))),
        _fact(_("Type of data"), *(type_of_data_label(text) for text in values.texts(record.get("typeOfData")))),
        _fact(_("Keywords"), *values.texts(record.get("keywords"))),
        _fact(_("Publisher"), values.text(record.get("publisher"))),
        _fact(_("Created"), values.date(record.get("dateCreated"))),
        _fact(_("Modified"), values.date(record.get("dateModified"))),
        _fact(_("Published"), values.date(record.get("datePublished"))),
        _fact(_("Size"), values.text(record.get("size"))),
        _fact(_("File type"), values.text(file.get("mimeType")) if isinstance(file, Mapping) else None),
        _fact(_("Copyright"), *_legal_strings(legal, "copyrightHolder", values)),
        _fact(_("Authorship"), *_legal_strings(legal, "authorship", values)),
    )
    descriptions = tuple(values.language_texts(record.get("description")))
    project_name = project.name or project.shortcode
    return RecordPage(
        meta=PageMeta(
            title=f"{label} — {project_name}",
            description=meta_description(
                descriptions[0][1] if descriptions else "",
                _("A record of the project {project}: {label}").format(project=project_name, label=label),
            ),
            path=page_links.record(project.shortcode, pid),
            json_path=links.record_json_path(project.shortcode, pid),
        ),
        project=EntityRef(project_name, page_links.project(project.shortcode)),
        records_url=page_links.project_records(project.shortcode),
        label=label,
        permalink=values.url(pid),
        facts=facts,
        descriptions=descriptions,
        citation=own_citation if (own_citation := values.text(record.get("howToCite"))) != label else None,
        licenses=license_views(legal, values),
        file=file_link,
    )


@dataclass(frozen=True)
class ProjectRoles:
    project: EntityRef
    roles: tuple[str, ...]


def _project_roles(entries: tuple[tuple[Project, tuple[str, ...]], ...], values: Values) -> tuple[ProjectRoles, ...]:
    return tuple(
        ProjectRoles(
            EntityRef(project.name or project.shortcode, page_links.project(project.shortcode)),
            tuple(role_label(role) for role in (values.text(r) for r in roles) if role),
        )
        for project, roles in entries
    )


def identifier_links(same_as: Frozen, values: Values) -> tuple[Fact, ...]:
    """``sameAs`` references grouped as "ORCID: <link>", "GND: <link>"."""
    facts = []
    for reference in stored_list(same_as):
        if not isinstance(reference, Mapping):
            shown = values.reference(reference)
            if shown:
                facts.append(Fact(_("Identifier"), (shown,)))
            continue
        stated_kind = reference.get("type")
        kind = stated_kind if isinstance(stated_kind, str) else _("Identifier")
        href = values.url(reference.get("url"))
        if href:
            facts.append(Fact(kind, (Link(href, href),)))
        elif shown := values.text(reference.get("text")):
            facts.append(Fact(kind, (shown,)))
    return tuple(facts)


@dataclass(frozen=True)
class PersonPage:
    meta: PageMeta
    name: str
    job_titles: tuple[str, ...]
    identifiers: tuple[Fact, ...]
    affiliations: tuple[EntityRef, ...]
    projects: tuple[ProjectRoles, ...]


def build_person_page(catalog: Catalog, person: Person, values: Values) -> PersonPage:
    affiliations = tuple(
        EntityRef(org.display_name, page_links.organization(org.id))
        for org_id in dict.fromkeys(person.affiliation_ids)
        if (org := catalog.organizations.get(org_id))
    )
    job_titles = tuple(values.texts(person.get("jobTitles")))
    projects = _project_roles(catalog.projects_by_person.get(person.id, ()), values)
    summary = ", ".join(plain(t) for t in job_titles if plain(t))
    where = ", ".join(a.name for a in affiliations)
    description = " — ".join(part for part in (person.display_name, summary, where) if part)
    if projects:
        count = len(projects)
        contributed = ngettext("Contributor to {count} project.", "Contributor to {count} projects.", count)
        description += ". " + contributed.format(count=count)
    return PersonPage(
        meta=PageMeta(
            title=person.display_name,
            description=shorten(description, META_DESCRIPTION_LENGTH),
            path=page_links.person(person.id),
            json_path=links.person_json_path(person.id),
            og_type="profile",
        ),
        name=person.display_name,
        job_titles=job_titles,
        identifiers=identifier_links(person.get("sameAs"), values),
        affiliations=affiliations,
        projects=projects,
    )


def address_lines(address: Frozen, values: Values) -> tuple[str, ...]:
    if not isinstance(address, Mapping):
        return ()
    street = values.text(address.get("street"))
    town = " ".join(plain(values.text(address.get(key))) for key in ("postalCode", "locality")).strip()
    lines = [
        street,
        values.text(address.get("additional")),
        town,
        values.text(address.get("canton")),
        values.text(address.get("country")),
    ]
    return tuple(line for line in lines if line)


@dataclass(frozen=True)
class OrganizationPage:
    meta: PageMeta
    name: str
    alternative_names: tuple[str, ...]
    website: Shown
    address: tuple[str, ...]
    identifiers: tuple[Fact, ...]
    people: tuple[EntityRef, ...]
    projects: tuple[ProjectRoles, ...]


def build_organization_page(catalog: Catalog, organization: Organization, values: Values) -> OrganizationPage:
    stored_address = organization.get("address")
    projects = _project_roles(catalog.projects_by_organization.get(organization.id, ()), values)
    place = plain(values.text(stored_address.get("locality"))) if isinstance(stored_address, Mapping) else ""
    description = organization.display_name + (f", {place}" if place else "")
    if projects:
        count = len(projects)
        description += ". " + ngettext("Involved in {count} project.", "Involved in {count} projects.", count).format(
            count=count
        )
    return OrganizationPage(
        meta=PageMeta(
            title=organization.display_name,
            description=shorten(description, META_DESCRIPTION_LENGTH),
            path=page_links.organization(organization.id),
            json_path=links.organization_json_path(organization.id),
        ),
        name=organization.display_name,
        alternative_names=tuple(values.texts(organization.get("alternativeName"))),
        website=values.link(organization.get("url")),
        address=address_lines(stored_address, values),
        identifiers=identifier_links(organization.get("sameAs"), values),
        people=tuple(
            EntityRef(person.display_name, page_links.person(person.id))
            for person in catalog.persons_by_organization.get(organization.id, ())
        ),
        projects=projects,
    )


@dataclass(frozen=True)
class GroupPage:
    """A cluster or a collection: a named group of projects (and records, collections)."""

    meta: PageMeta
    kind: str
    name: str
    descriptions: tuple[tuple[str | None, str], ...]
    permalink: str | None
    projects: tuple[ProjectCard, ...]
    section: str  # the browse listing it belongs to: "clusters" or "collections"
    records: tuple[Shown, ...] = ()
    collections: tuple[EntityRef, ...] = ()
    parents: tuple[EntityRef, ...] = ()


def group_projects(catalog: Catalog, group: Cluster | Collection) -> list[Project]:
    """The projects a cluster or collection names, plus those that name it."""
    named = [p for shortcode in dict.fromkeys(group.project_shortcodes) if (p := catalog.get_project(shortcode))]
    naming = [
        p
        for p in catalog.projects
        if group.id in (p.cluster_ids if isinstance(group, Cluster) else p.collection_ids) and p not in named
    ]
    return named + naming


def _group_description(name: str, descriptions: tuple[tuple[str | None, str], ...], kind: str, count: int) -> str:
    return meta_description(
        descriptions[0][1] if descriptions else "",
        ngettext("{kind} {name}: {count} project.", "{kind} {name}: {count} projects.", count).format(
            kind=kind, name=name, count=count
        ),
    )


def _group_page(
    catalog: Catalog, group: Cluster | Collection, kind: str, path: str, json_path: str, values: Values, **extra: Any
) -> GroupPage:
    """The page of a cluster or a collection; ``extra`` holds what only collections have."""
    projects = tuple(project_card(p, values) for p in group_projects(catalog, group))
    descriptions = tuple(values.language_texts(group.get("description")))
    name = group.name or group.id
    return GroupPage(
        meta=PageMeta(
            title=name,
            description=_group_description(name, descriptions, kind, len(projects)),
            path=path,
            json_path=json_path,
        ),
        kind=kind,
        section="clusters" if isinstance(group, Cluster) else "collections",
        name=name,
        descriptions=descriptions,
        permalink=values.url(group.get("pid")),
        projects=projects,
        **extra,
    )


def build_cluster_page(catalog: Catalog, cluster: Cluster, values: Values) -> GroupPage:
    path, json_path = page_links.cluster(cluster.id), links.cluster_json_path(cluster.id)
    return _group_page(catalog, cluster, _("Project cluster"), path, json_path, values)


def _record_link(catalog: Catalog, record_ref: str, values: Values) -> Shown:
    """A collection's record reference (pid or id) as a link to the record page when it resolves."""
    for table in catalog.records.values():
        index = table.index_of_pid(record_ref)
        if index is not None:
            return Link(page_links.record(table.shortcode, record_ref), links.record_suffix(record_ref))
    return values.text(record_ref)


def build_collection_page(catalog: Catalog, collection: Collection, values: Values) -> GroupPage:
    path, json_path = page_links.collection(collection.id), links.collection_json_path(collection.id)
    return _group_page(
        catalog,
        collection,
        _("Collection"),
        path,
        json_path,
        values,
        records=tuple(shown for ref in collection.record_ids if (shown := _record_link(catalog, ref, values))),
        collections=tuple(
            EntityRef(child.name or child.id, page_links.collection(child.id))
            for child_id in collection.collection_ids
            if (child := catalog.collections.get(child_id))
        ),
        parents=tuple(
            EntityRef(parent.name or parent.id, page_links.collection(parent.id))
            for parent in catalog.parent_collections.get(collection.id, ())
        ),
    )
