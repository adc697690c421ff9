"""Atom feeds (RFC 4287) of the change ledger, by Django's syndication framework.

``/feeds/changes.atom``: the latest projects added, changed and withdrawn.
``/projects/<shortcode>/changes.atom``: the latest changes of one project's records.
Without a ledger both are valid, empty feeds.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from django.contrib.syndication.views import Feed
from django.http import HttpRequest
from django.utils.feedgenerator import Atom1Feed, SyndicationFeed

from catalog.domain.ledger import Change, project_changes, record_changes
from catalog.domain.model import Catalog, Project
from catalog.formats import links
from catalog.pages.views import get_project_or_404
from catalog.runtime import catalog_of, get_catalog
from catalog.web.inputs import Input, varies_on

FEED_SIZE = 50

if TYPE_CHECKING:  # Django's Feed is generic (its items, its object) in django-stubs only
    _CatalogFeed = Feed[Change, None]
    _ProjectFeed = Feed[Change, tuple[Catalog, Project]]
else:
    _CatalogFeed = _ProjectFeed = Feed


def _when(change: Change) -> datetime:
    return datetime.fromtimestamp(change.time, UTC)


class _ChangeEntries:
    """What both feeds have in common: Atom, one entry per change of the ledger."""

    feed_type: type[SyndicationFeed] = Atom1Feed

    def item_title(self, change: Change) -> str:
        label = (
            f"record {links.record_suffix(change.pid)} of {change.name or change.shortcode}"
            if change.pid
            else (change.name or change.shortcode)
        )
        return f"{change.event.capitalize()}: {label}"

    def item_description(self, change: Change) -> str:
        what = f"The record {change.pid}" if change.pid else f"The project {change.shortcode}"
        return f"{what} was {change.event} at {_when(change):%Y-%m-%d %H:%M} UTC."

    def item_link(self, change: Change) -> str:
        if change.pid:
            return links.record_path(change.shortcode, change.pid)
        return links.project_path(change.shortcode)

    def item_guid(self, change: Change) -> str:
        # One entry per event: the same item changed twice is two entries.
        return f"{self.item_link(change)}#{change.event}-{change.time}"

    item_guid_is_permalink = False

    def item_updateddate(self, change: Change) -> datetime:
        return _when(change)

    def item_pubdate(self, change: Change) -> datetime:
        return _when(change)


@varies_on(Input.ORIGIN)
class CatalogChanges(_ChangeEntries, _CatalogFeed):
    title = "Catalogue changes"
    subtitle = "Research projects added to, changed in and withdrawn from the catalogue."
    link = "/projects"
    feed_url = links.changes_feed_path()

    def items(self) -> list[Change]:
        return project_changes(get_catalog(), FEED_SIZE)


@varies_on(Input.ORIGIN)
class ProjectRecordChanges(_ChangeEntries, _ProjectFeed):
    def get_object(self, request: HttpRequest, shortcode: str, *args: Any, **kwargs: Any) -> tuple[Catalog, Project]:
        catalog = catalog_of(request)
        return catalog, get_project_or_404(catalog, shortcode)

    def title(self, obj: tuple[Catalog, Project]) -> str:
        return f"Changes to the records of {obj[1].name or obj[1].shortcode}"

    def subtitle(self, obj: tuple[Catalog, Project]) -> str:
        return f"Records of the research project {obj[1].shortcode} added, changed and withdrawn."

    def link(self, obj: tuple[Catalog, Project]) -> str:
        return links.project_path(obj[1].shortcode)

    def feed_url(self, obj: tuple[Catalog, Project]) -> str:
        return links.project_feed_path(obj[1].shortcode)

    def items(self, obj: tuple[Catalog, Project]) -> list[Change]:
        return record_changes(obj[0], obj[1].shortcode, FEED_SIZE)
