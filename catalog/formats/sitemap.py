"""/sitemap.xml and /robots.txt, framework-free.

The sitemap lists every page of an entity: the listing, about, each project
and (when it has records) its record list, every cluster, collection, person
and organization, and every record page. The sitemaps.org protocol allows
50,000 URLs per file: up to that, /sitemap.xml is the one ``urlset``; beyond,
it is a ``sitemapindex`` of /sitemap-1.xml … /sitemap-<n>.xml, each holding
50,000 URLs in the same order (so a million records stay crawlable and no
single answer grows with the corpus).

Each page is listed once, at its English (unprefixed) URL, with an
``xhtml:link`` alternate per interface language and ``x-default`` — the
hreflang annotation search engines read from sitemaps. The languages and
their path prefixes are passed in, so this module stays framework-free.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from xml.sax.saxutils import escape

from catalog.domain.memo import per_catalog
from catalog.domain.model import Catalog, Project, RecordTable
from catalog.domain.paging import page_bounds, page_count
from catalog.formats import links
from catalog.formats.links import record_suffix, segment

MAX_URLS_PER_SITEMAP = 50_000
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
# (hreflang, path prefix) of each interface language, e.g. (("en", ""), ("de", "/de")).
Languages = Sequence[tuple[str, str]]
_XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'


@dataclass(frozen=True, slots=True)
class Entry:
    path: str
    lastmod: int | None = None


def _entity_entries(catalog: Catalog) -> tuple[Entry, ...]:
    entries = [Entry("/projects"), Entry("/about")]
    for project in catalog.projects:
        # Projects carry no date of their own; the change ledger, when there is one, knows.
        lastmod = catalog.ledger.project_time(project.key) if catalog.ledger else None
        entries.append(Entry(links.project_path(project.shortcode), lastmod))
        table = catalog.records_of(project)
        if table is not None and len(table):
            entries.append(Entry(links.records_path(project.shortcode)))
    for kind in ("clusters", "collections", "persons", "organizations"):
        entries.extend(Entry(f"/{kind}/{segment(key)}") for key in getattr(catalog, kind))
    return tuple(entries)


class SiteMap:
    """The ordered URLs of a catalogue's pages, paged by the protocol's limit."""

    def __init__(self, catalog: Catalog, max_urls: int = MAX_URLS_PER_SITEMAP) -> None:
        self.max_urls = max_urls
        self.entities = _entity_entries(catalog)
        self.record_tables: tuple[tuple[Project, RecordTable], ...] = tuple(
            (project, table) for project in catalog.projects if (table := catalog.records_of(project)) is not None
        )
        self.total = len(self.entities) + sum(len(table) for _, table in self.record_tables)

    @property
    def page_count(self) -> int:
        return page_count(self.total, self.max_urls)

    @property
    def is_index(self) -> bool:
        return self.total > self.max_urls

    def entries(self, start: int = 0, stop: int | None = None) -> Iterator[Entry]:
        """The entries ``start`` to ``stop``, skipping whole record tables before ``start``."""
        stop = self.total if stop is None else min(stop, self.total)
        yield from self.entities[start:stop]
        position = len(self.entities)
        for project, table in self.record_tables:
            if position >= stop:
                return
            end = position + len(table)
            if end > start:
                base = links.records_path(project.shortcode) + "/"
                for index in range(max(start, position) - position, min(stop, end) - position):
                    yield Entry(base + segment(record_suffix(table.pids[index])), table.datestamp(index))
            position = end

    def page(self, number: int) -> Iterator[Entry]:
        """The entries of /sitemap-<number>.xml (numbered from 1)."""
        return self.entries(*page_bounds(number, self.max_urls))


site_map = per_catalog(SiteMap)


def _lastmod(timestamp: int) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat()


def _alternates(base: str, path: str, languages: Languages) -> str:
    if not languages:
        return ""
    links = [
        *(f'<xhtml:link rel="alternate" hreflang="{code}" href="{base}{prefix}{path}"/>' for code, prefix in languages),
        f'<xhtml:link rel="alternate" hreflang="x-default" href="{base}{path}"/>',
    ]
    return "".join(links)


def urlset_xml(base_url: str, entries: Iterator[Entry], languages: Languages = ()) -> bytes:
    """A ``urlset`` document; ``base_url`` is scheme and host, without a trailing slash."""
    base = escape(base_url)
    namespaces = f'xmlns="{SITEMAP_NS}"' + (f' xmlns:xhtml="{XHTML_NS}"' if languages else "")
    parts = [_XML_DECLARATION, f"<urlset {namespaces}>\n"]
    for entry in entries:
        lastmod = f"<lastmod>{_lastmod(entry.lastmod)}</lastmod>" if entry.lastmod is not None else ""
        path = escape(entry.path)
        parts.append(f"<url><loc>{base}{path}</loc>{lastmod}{_alternates(base, path, languages)}</url>\n")
    parts.append("</urlset>\n")
    return "".join(parts).encode()


def index_xml(base_url: str, page_count: int) -> bytes:
    """A ``sitemapindex`` naming /sitemap-1.xml … /sitemap-<page_count>.xml."""
    base = escape(base_url)
    parts = [_XML_DECLARATION, f'<sitemapindex xmlns="{SITEMAP_NS}">\n']
    parts.extend(f"<sitemap><loc>{base}/sitemap-{n}.xml</loc></sitemap>\n" for n in range(1, page_count + 1))
    parts.append("</sitemapindex>\n")
    return "".join(parts).encode()


def sitemap_xml(catalog: Catalog, base_url: str, languages: Languages = ()) -> bytes:
    """/sitemap.xml: every URL, or the index of the paged sitemaps."""
    pages = site_map(catalog)
    if pages.is_index:
        return index_xml(base_url, pages.page_count)
    return urlset_xml(base_url, pages.entries(), languages)


def sitemap_page_xml(catalog: Catalog, base_url: str, number: int, languages: Languages = ()) -> bytes | None:
    """/sitemap-<number>.xml, or None when there is no such page (or no index)."""
    pages = site_map(catalog)
    if not pages.is_index or not 1 <= number <= pages.page_count:
        return None
    return urlset_xml(base_url, pages.page(number), languages)


def robots_txt(sitemap_url: str) -> str:
    """Allow every crawler everywhere and name the sitemap."""
    return f"User-agent: *\nAllow: /\n\nSitemap: {sitemap_url}\n"
