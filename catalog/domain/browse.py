"""Browse listings of persons, organizations, clusters and collections.

Each listing is built once per catalogue; a query filters it with the project
listing's matching rule (:func:`search.matches`: every word, case and accents
ignored), sorts it and cuts one page. The entries carry data only; the pages'
wording lives in the templates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from catalog.domain.model import Catalog, Cluster, Collection, is_placeholder, language_items
from catalog.domain.paging import PagePositions
from catalog.domain.search import (
    PageOutOfRange,
    TextSortPage,
    matches,
    normalise,
    searchable_text,
    words,
)

KINDS = ("persons", "organizations", "clusters", "collections")
PAGE_SIZE = 50


@dataclass(frozen=True, slots=True)
class BrowseEntry:
    id: str
    name: str
    details: tuple[str, ...]  # affiliations, place or description: shown under the name
    project_count: int
    text: str  # searchable_text of everything the entry is found by
    sort_name: str


def _entry(entity_id: str, name: str, details: Sequence[str], project_count: int, *more: str) -> BrowseEntry:
    details = tuple(d for d in dict.fromkeys(details) if d and not is_placeholder(d))
    return BrowseEntry(entity_id, name, details, project_count, searchable_text(name, *details, *more), normalise(name))


def _texts(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [text for _, text in language_items(value)]
    if isinstance(value, tuple):
        return [text for item in value for text in _texts(item)]
    return []


def _group_count(catalog: Catalog, group: Cluster | Collection, attribute: str) -> int:
    shortcodes = {code.lower() for code in group.project_shortcodes if catalog.get_project(code)}
    shortcodes.update(p.key for p in catalog.projects if group.id in getattr(p, attribute))
    return len(shortcodes)


def build_entries(catalog: Catalog, kind: str) -> tuple[BrowseEntry, ...]:
    """The entries of one listing, in name order."""
    if kind == "persons":
        entries = [
            _entry(
                person.id,
                person.display_name,
                [org.display_name for oid in person.affiliation_ids if (org := catalog.organizations.get(oid))],
                len(catalog.projects_by_person.get(person.id, ())),
                person.sort_name,
                *(t for t in _texts(person.get("jobTitles")) if not is_placeholder(t)),
            )
            for person in catalog.persons.values()
        ]
    elif kind == "organizations":
        entries = []
        for organization in catalog.organizations.values():
            address = organization.get("address")
            place = address.get("locality") if isinstance(address, Mapping) else None
            entries.append(
                _entry(
                    organization.id,
                    organization.display_name,
                    [place] if isinstance(place, str) else [],
                    len(catalog.projects_by_organization.get(organization.id, ())),
                    *_texts(organization.get("alternativeName")),
                )
            )
    elif kind in {"clusters", "collections"}:
        groups = catalog.clusters if kind == "clusters" else catalog.collections
        attribute = "cluster_ids" if kind == "clusters" else "collection_ids"
        entries = [
            _entry(
                group.id,
                group.name or group.id,
                _texts(group.get("description"))[:1],
                _group_count(catalog, group, attribute),
                *_texts(group.get("description")),
            )
            for group in groups.values()
        ]
    else:
        raise KeyError(kind)
    return tuple(sorted(entries, key=lambda entry: (entry.sort_name, entry.id)))


@dataclass(frozen=True)
class BrowseQuery(TextSortPage):
    SORTS = ("name", "name-desc", "projects")  # the first is the default


@dataclass(frozen=True)
class BrowseResult(PagePositions):
    page_size: ClassVar[int] = PAGE_SIZE
    total: int
    page: int
    page_count: int
    items: tuple[BrowseEntry, ...]


def browse(entries: Sequence[BrowseEntry], query: BrowseQuery) -> BrowseResult:
    """One page of a listing; raises :class:`PageOutOfRange` past the last page."""
    query_words = words(query.text)
    found = [entry for entry in entries if matches(entry.text, query_words)]
    if query.effective_sort == "name-desc":
        found.reverse()
    elif query.effective_sort == "projects":
        found.sort(key=lambda entry: -entry.project_count)  # stable: name order among equals
    page_count = max(1, -(-len(found) // PAGE_SIZE))
    if query.page > page_count:
        raise PageOutOfRange(query.page, page_count)
    start = (query.page - 1) * PAGE_SIZE
    return BrowseResult(len(found), query.page, page_count, tuple(found[start : start + PAGE_SIZE]))
