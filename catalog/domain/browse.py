"""Browse listings of persons, organizations, clusters and collections.

Each listing is built once per catalogue; the search engine
(:mod:`catalog.domain.engine`, its index of each listing) says which entries
a query matches and how well, as for projects and records; the listing sorts
them (best match first by default with a query) and cuts one page. The
entries carry data only; the pages' wording lives in the templates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from catalog.domain import engine
from catalog.domain.model import Catalog, Cluster, Collection, is_placeholder, language_items
from catalog.domain.paging import PagePositions
from catalog.domain.search import PageOutOfRange, TextSortPage, normalise

KINDS = engine.BROWSE_KINDS
PAGE_SIZE = 50


@dataclass(frozen=True, slots=True)
class BrowseEntry:
    id: str
    name: str
    details: tuple[str, ...]  # affiliations, place or description: shown under the name
    project_count: int
    more: tuple[str, ...]  # what else the entry is found by (other names, job titles, descriptions)
    sort_name: str


def _entry(entity_id: str, name: str, details: Sequence[str], project_count: int, *more: str) -> BrowseEntry:
    details = tuple(d for d in dict.fromkeys(details) if d and not is_placeholder(d))
    return BrowseEntry(entity_id, name, details, project_count, more, normalise(name))


def _document(position: int, entry: BrowseEntry) -> engine.Document:
    document = engine.Document(position)
    document.add("name", entry.name)
    document.add("body", [*entry.details, *entry.more])
    return document


def listing_documents(catalog: Catalog) -> dict[str, list[engine.Document]]:
    """What the search engine indexes of each listing: its entries, by their place in it."""
    return {kind: [_document(p, entry) for p, entry in enumerate(build_entries(catalog, kind))] for kind in KINDS}


engine.browse_documents = listing_documents  # the listings' search indexes are written with the others


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
    SORTS = ("relevance", "name", "name-desc", "projects")

    @property
    def default_sort(self) -> str:
        """Best match for a search, else name: the order an empty ``sort`` means."""
        return "relevance" if self.text else "name"


@dataclass(frozen=True)
class BrowseResult(PagePositions):
    page_size: ClassVar[int] = PAGE_SIZE
    total: int
    page: int
    page_count: int
    items: tuple[BrowseEntry, ...]


def browse(entries: Sequence[BrowseEntry], query: BrowseQuery, scores: Mapping[int, float] | None) -> BrowseResult:
    """One page of a listing, ``scores`` the engine's for the query's text (None: no search).

    Raises :class:`PageOutOfRange` past the last page.
    """
    positions = range(len(entries)) if scores is None else sorted(p for p in scores if p < len(entries))
    if scores is not None and query.effective_sort == "relevance":
        positions = sorted(positions, key=lambda p: -scores[p])  # stable: name order among equal scores
    found = [entries[p] for p in positions]
    if query.effective_sort == "name-desc":
        found.reverse()
    elif query.effective_sort == "projects":
        found.sort(key=lambda entry: -entry.project_count)  # stable: name order among equals
    page_count = max(1, -(-len(found) // PAGE_SIZE))
    if query.page > page_count:
        raise PageOutOfRange(query.page, page_count)
    start = (query.page - 1) * PAGE_SIZE
    return BrowseResult(len(found), query.page, page_count, tuple(found[start : start + PAGE_SIZE]))
