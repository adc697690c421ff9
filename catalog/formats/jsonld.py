"""schema.org JSON-LD for the entity pages (search engines, FAIR assessors).

Projects are ``Dataset`` with the properties dataset search engines require
(a 50-5000 character description among them); persons ``Person``,
organizations ``Organization``, records ``CreativeWork``, clusters and
collections ``Collection``. Placeholders never appear: metadata is for machines.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from catalog.domain import dates
from catalog.domain.identifiers import project_identity
from catalog.domain.memo import memo_for
from catalog.domain.model import (
    PREFERRED_LANGUAGES,
    Catalog,
    Cluster,
    Collection,
    Frozen,
    Organization,
    Person,
    Project,
    RecordTable,
    is_placeholder,
    language_items,
)
from catalog.domain.roles import REPOSITORY_PUBLISHER, creator_attributions
from catalog.domain.temporal import TemporalCoverage, resolve
from catalog.domain.values import (
    Link,
    Values,
    access_right,
    canonical_licence_uri,
    is_http_url,
    project_urls,
    shorten,
    stored_list,
    stored_strings,
)
from catalog.formats import exports, links

DESCRIPTION_MIN = 50
DESCRIPTION_MAX = 5000
FREE_ACCESS_RIGHTS = frozenset({"Full Open Access", "Open Access with Restrictions"})

# Metadata never shows placeholders, whatever the page setting.
_values = Values(show_placeholders=False)


def to_script(document: Mapping[str, Any]) -> str:
    """JSON for a ``<script type="application/ld+json">`` block: ``<``, ``>``, ``&`` escaped."""
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _text(value: Frozen) -> str:
    shown = _values.text(value)
    return str(shown) if shown else ""


def _compact(document: dict[str, Any]) -> dict[str, Any]:
    """Leave out empty properties."""
    return {key: value for key, value in document.items() if value not in (None, "", [], {})}


def _one_or_many(items: list[Any]) -> Any:
    return items[0] if len(items) == 1 else items


def cut_at_sentence(text: str, length: int) -> str:
    """At most ``length`` characters: whole sentences when a sentence ends in the last half, else whole words."""
    text = " ".join(text.split())
    if len(text) <= length:
        return text
    head = text[: length - 1]
    end = max(head.rfind(mark) for mark in (". ", "! ", "? "))
    if end >= length // 2:
        return head[: end + 1]
    return shorten(text, length)


def dataset_description(project: Project) -> str:
    """One text in one language, 50 to 5000 characters, cut at a sentence or a word.

    English first, then the other preferred languages, then untagged text; within
    a language the description, else the abstract, else the short description:
    the first long enough on its own. Texts are never joined (that mixed
    languages and repeated summaries).
    """
    candidates: list[tuple[int, int, str]] = []
    for field_rank, name in enumerate(("description", "abstract", "shortDescription")):
        for value in stored_list(project.get(name)):
            for lang, text in language_items(value):
                text = " ".join(text.split())
                if text and not is_placeholder(text):
                    language_rank = PREFERRED_LANGUAGES.index(lang) if lang in PREFERRED_LANGUAGES else 99
                    candidates.append((language_rank, field_rank, text))
    candidates.sort(key=lambda candidate: candidate[:2])
    texts = [text for _, _, text in candidates]
    description = next((t for t in texts if len(t) >= DESCRIPTION_MIN), max(texts, key=len, default=""))
    if len(description) < DESCRIPTION_MIN:
        name = project.name or project.shortcode
        description = f"{description} Research data of the project {name} (shortcode {project.shortcode}).".strip()
    return cut_at_sentence(description, DESCRIPTION_MAX)


def _coverage(catalog: Catalog, project: Project) -> list[TemporalCoverage]:
    return [
        resolve(entry, catalog.chronontology_periods, catalog.temporal_coverage_enrichment)
        for entry in stored_list(project.get("temporalCoverage"))
    ]


def temporal_coverage(catalog: Catalog, project: Project) -> list[str]:
    """ISO 8601 intervals from the resolver OAI uses: Google reads nothing else in ``temporalCoverage``."""
    return list(dict.fromkeys(coverage.date for coverage in _coverage(catalog, project) if coverage.date))


def undated_periods(catalog: Catalog, project: Project) -> list[str]:
    """Names of coverage periods without dates (082D "Swiss"): kept as keywords, where a name is correct."""
    return list(dict.fromkeys(c.name for c in _coverage(catalog, project) if c.name and not c.date))


def data_catalog(base_url: str, name: str) -> dict[str, Any]:
    """The repository's catalogue, described on the About page."""
    return {
        "@type": "DataCatalog",
        "@id": base_url + ABOUT_CATALOG,
        "name": name,
        "url": base_url + links.projects_path(),
        "publisher": {"@type": "Organization", "name": REPOSITORY_PUBLISHER},
    }


ABOUT_CATALOG = "/about#catalog"


def distribution(page_url: str, json_url: str, offered: tuple[exports.Export, ...]) -> list[dict[str, Any]]:
    return [
        {
            "@type": "DataDownload",
            "name": export.label,
            "encodingFormat": export.media_type,
            "contentUrl": exports.export_path(page_url, export, json_url),
        }
        for export in offered
    ]


def _person(person: Person, base_url: str) -> dict[str, Any]:
    return _compact(
        {
            "@type": "Person",
            "@id": base_url + links.person_path(person.id),
            "name": person.display_name,
            "givenName": " ".join(_text(n) for n in person.given_names if _text(n)),
            "familyName": " ".join(_text(n) for n in person.family_names if _text(n)),
            "sameAs": _same_as(person.get("sameAs")),
        }
    )


def _organization(organization: Organization, base_url: str) -> dict[str, Any]:
    return _compact(
        {
            "@type": "Organization",
            "@id": base_url + links.organization_path(organization.id),
            "name": organization.display_name,
            "sameAs": _same_as(organization.get("sameAs")),
        }
    )


def _agent(catalog: Catalog, contributor_id: str, base_url: str) -> dict[str, Any] | None:
    if person := catalog.persons.get(contributor_id):
        return _person(person, base_url)
    if organization := catalog.organizations.get(contributor_id):
        return _organization(organization, base_url)
    return None


def _same_as(references: Frozen) -> list[str]:
    urls = []
    for reference in stored_list(references):
        url = reference.get("url") if isinstance(reference, Mapping) else reference
        if is_http_url(url):
            urls.append(url.strip())
    return urls


def _license_urls(legal_infos: Frozen) -> list[str]:
    urls = []
    for legal in stored_list(legal_infos):
        license_ = legal.get("license") if isinstance(legal, Mapping) else None
        if isinstance(license_, Mapping):
            url = license_.get("licenseURI")
            if is_http_url(url):
                urls.append(canonical_licence_uri(url))
            elif text := _text(license_.get("licenseIdentifier")):
                urls.append(text)
    return list(dict.fromkeys(urls))


def _authorship(legal_infos: Frozen) -> list[str]:
    names: list[str] = []
    for legal in stored_list(legal_infos):
        if isinstance(legal, Mapping):
            names.extend(t for t in (_text(v) for v in stored_list(legal.get("authorship"))) if t)
    return list(dict.fromkeys(names))


def _named_agent(catalog: Catalog, name: str) -> dict[str, Any]:
    """An author named only by a string: the repository and known organizations are organizations."""
    organizations = memo_for(catalog).get(
        "organization-names", lambda: {o.display_name for o in catalog.organizations.values()}
    )
    kind = "Organization" if name == REPOSITORY_PUBLISHER or name in organizations else "Person"
    return {"@type": kind, "name": name}


def _places(references: Frozen) -> list[dict[str, Any]]:
    places = []
    for reference in stored_list(references):
        if isinstance(reference, Mapping) and ("url" in reference or "text" in reference):
            name = _text(reference.get("text"))
            url = reference.get("url") if is_http_url(reference.get("url")) else None
            if name or url:
                places.append(_compact({"@type": "Place", "name": name, "sameAs": url}))
        elif text := _text(reference):
            places.append({"@type": "Place", "name": text})
    return places


def project_creators(catalog: Catalog, project: Project, base_url: str) -> list[dict[str, Any]]:
    """The creator rule shared with the citations and OAI; the publisher when nobody is named."""
    creators = [
        agent
        for attribution in creator_attributions(project)
        if (agent := _agent(catalog, attribution.contributor_id, base_url))
    ]
    return creators or [{"@type": "Organization", "name": REPOSITORY_PUBLISHER}]


def _project_contributors(catalog: Catalog, project: Project, base_url: str) -> list[dict[str, Any]]:
    """Everyone credited who is not a creator, once each."""
    creator_ids = {attribution.contributor_id for attribution in creator_attributions(project)}
    return [
        agent
        for contributor_id in dict.fromkeys(a.contributor_id for a in project.attributions)
        if contributor_id not in creator_ids and (agent := _agent(catalog, contributor_id, base_url))
    ]


def _conditions_of_access(project: Project) -> tuple[str, bool | None]:
    """``conditionsOfAccess`` (the access right, with its embargo's end) and ``isAccessibleForFree``."""
    right, embargo = access_right(project)
    right_text = _text(right)
    embargo_text = _text(embargo)
    conditions = right_text + (f" (embargo until {embargo_text})" if right_text and embargo_text else "")
    return conditions, (right_text in FREE_ACCESS_RIGHTS) if right_text else None


def _same_as_links(project: Project) -> list[str]:
    data_link, website_link = project_urls(project, _values)
    return [link.href for link in (data_link, website_link) if isinstance(link, Link)]


def _texts(values: Frozen) -> list[str]:
    return [t for t in (_text(v) for v in stored_list(values)) if t]


def project_dataset(catalog: Catalog, project: Project, base_url: str, catalog_name: str) -> dict[str, Any]:
    page_url = base_url + links.project_path(project.shortcode)
    conditions, free = _conditions_of_access(project)
    identity = project_identity(catalog, project, page_url)
    shortcode = {"@type": "PropertyValue", "propertyID": "shortcode", "value": project.shortcode}
    return _compact(
        {
            "@context": "https://schema.org",
            "@type": "Dataset",
            "@id": page_url,
            "url": page_url,
            "name": project.name or project.shortcode,
            "alternateName": _texts(project.get("alternativeNames")),
            "description": dataset_description(project),
            "identifier": _one_or_many([identity.identifier, shortcode]),
            "sameAs": _same_as_links(project),
            "creator": project_creators(catalog, project, base_url),
            "contributor": _project_contributors(catalog, project, base_url),
            "funder": [agent for funder_id in project.funder_ids if (agent := _agent(catalog, funder_id, base_url))],
            "license": _one_or_many(_license_urls(project.get("legalInfo"))) or None,
            "keywords": _texts(project.get("keywords")) + undated_periods(catalog, project),
            "temporalCoverage": _one_or_many(temporal_coverage(catalog, project)) or None,
            "spatialCoverage": _places(project.get("spatialCoverage")),
            "inLanguage": [code for code in stored_strings(project.get("dataLanguage")) if _text(code)],
            "isAccessibleForFree": free,
            "conditionsOfAccess": conditions,
            "datePublished": dates.project_issued(catalog, project),
            "dateModified": dates.modified(catalog, project),
            "creativeWorkStatus": _text(project.get("status")),
            # How the project asks to be credited; schema.org `citation` names works this one cites.
            "creditText": _text(project.get("howToCite")) or None,
            "isPartOf": [
                {"@type": "Collection", "@id": base_url + links.cluster_path(c.id), "name": c.name or c.id}
                for c in catalog.clusters_by_project.get(project.key, ())
            ]
            + [
                {"@type": "Collection", "@id": base_url + links.collection_path(c.id), "name": c.name or c.id}
                for c in catalog.collections_by_project.get(project.key, ())
            ],
            "publisher": {"@type": "Organization", "name": REPOSITORY_PUBLISHER},
            "includedInDataCatalog": data_catalog(base_url, catalog_name),
            "distribution": distribution(
                page_url, base_url + links.project_json_path(project.shortcode), exports.WORK_EXPORTS
            ),
            "mainEntityOfPage": page_url,
        }
    )


def record_work(catalog: Catalog, project: Project, table: RecordTable, index: int, base_url: str) -> dict[str, Any]:
    record = table.record(index)
    pid = table.pids[index]
    page_url = base_url + links.record_path(project.shortcode, pid)
    file = record.get("file")
    media = None
    if isinstance(file, Mapping) and is_http_url(file.get("url")):
        media = _compact(
            {"@type": "MediaObject", "contentUrl": file["url"], "encodingFormat": _text(file.get("mimeType"))}
        )
    return _compact(
        {
            "@context": "https://schema.org",
            "@type": "CreativeWork",
            "@id": page_url,
            "url": page_url,
            "name": _text(record.get("label")) or links.record_suffix(pid),
            "identifier": pid if is_http_url(pid) else None,
            "description": _text(record.get("description")),
            "isPartOf": {
                "@type": "Dataset",
                "@id": base_url + links.project_path(project.shortcode),
                "name": project.name or project.shortcode,
            },
            "license": _one_or_many(_license_urls(record.get("legalInfo"))) or None,
            "creator": [_named_agent(catalog, name) for name in _authorship(record.get("legalInfo"))]
            or project_creators(catalog, project, base_url),
            "publisher": {"@type": "Organization", "name": _text(record.get("publisher")) or REPOSITORY_PUBLISHER},
            "distribution": distribution(
                page_url, base_url + links.record_json_path(project.shortcode, pid), exports.WORK_EXPORTS
            ),
            "dateCreated": _text(record.get("dateCreated")),
            "dateModified": dates.modified(catalog, project, index),
            "datePublished": dates.record_issued(record),
            "keywords": [t for t in (_text(v) for v in stored_list(record.get("keywords"))) if t],
            "conditionsOfAccess": _text(record.get("accessRights")),
            "associatedMedia": media,
        }
    )


def person(catalog: Catalog, person_: Person, base_url: str) -> dict[str, Any]:
    document = _person(person_, base_url)
    document.update(
        _compact(
            {
                "url": document["@id"],
                "jobTitle": [t for t in (_text(v) for v in stored_list(person_.get("jobTitles"))) if t],
                "affiliation": [
                    _organization(org, base_url)
                    for org_id in dict.fromkeys(person_.affiliation_ids)
                    if (org := catalog.organizations.get(org_id))
                ],
            }
        )
    )
    return {"@context": "https://schema.org", **document}


def organization(catalog: Catalog, organization_: Organization, base_url: str) -> dict[str, Any]:
    document = _organization(organization_, base_url)
    address = organization_.get("address")
    postal = None
    if isinstance(address, Mapping):
        postal = _compact(
            {
                "@type": "PostalAddress",
                "streetAddress": _text(address.get("street")),
                "postalCode": _text(address.get("postalCode")),
                "addressLocality": _text(address.get("locality")),
                "addressRegion": _text(address.get("canton")),
                "addressCountry": _text(address.get("country")),
            }
        )
    website = organization_.get("url")
    document.update(
        _compact(
            {
                "url": website.strip() if is_http_url(website) else document["@id"],
                "alternateName": _text(organization_.get("alternativeName")),
                "address": postal if postal and len(postal) > 1 else None,
                "member": [
                    {"@type": "Person", "@id": base_url + links.person_path(p.id), "name": p.display_name}
                    for p in catalog.persons_by_organization.get(organization_.id, ())
                ],
            }
        )
    )
    return {"@context": "https://schema.org", **document}


def group(entity: Cluster | Collection, projects: list[Project], path: str, base_url: str) -> dict[str, Any]:
    """A cluster or collection as a schema.org ``Collection`` of datasets."""
    return _compact(
        {
            "@context": "https://schema.org",
            "@type": "Collection",
            "@id": base_url + path,
            "url": base_url + path,
            "name": entity.name or entity.id,
            "description": _text(entity.get("description")),
            "identifier": entity.get("pid") if is_http_url(entity.get("pid")) else None,
            "hasPart": [
                {
                    "@type": "Dataset",
                    "@id": base_url + links.project_path(p.shortcode),
                    "name": p.name or p.shortcode,
                }
                for p in projects
            ],
        }
    )
