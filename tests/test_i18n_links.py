"""Every internal link of every kind of page stays in the page's language, over a real `svc serve` (docs/languages.md).

The pages of each entity kind (and the listings, the about page, a 404 and a 400) are fetched in
English, German, French and Italian; every link, form action, head link and script source they
hold that points at this server is then followed. A link to a page must land on a page in the
same language (its ``Content-Language``); a link to a machine file (the API, OAI-PMH, an export,
a feed, a static file) answers without a language and is never prefixed. Only the language
switch and the hreflang alternates point elsewhere on purpose (tests/test_languages.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urljoin, urlsplit

import pytest
from lxml import html

from tests.conftest import SAMPLE_DIR, Server, start_server, stop_server
from tests.http_support import Reply, fetch

LANGUAGES = ("en", "de", "fr", "it")
PREFIXED = re.compile(r"^/(en|de|fr|it)(/|$)")
# What points at other URLs, minus the language switch and the hreflang alternates.
LINKS = (
    "//a[not(ancestor::nav[contains(@class,'language-switch')])]/@href"
    " | //form/@action | //link[not(@hreflang)]/@href | //script/@src"
    " | //meta[@property='og:url' or @property='og:image']/@content"
)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """The bundled sample data: it has every kind of entity, collections included."""
    running = start_server(SAMPLE_DIR)
    yield running
    stop_server(running)


def prefix(language: str) -> str:
    return "" if language == "en" else f"/{language}"


def internal_links(server: Server, page: str, body: bytes) -> set[str]:
    """The path and query of every link on the page that points at this server (not `#main`: the page itself)."""
    found = set()
    for value in html.fromstring(body).xpath(LINKS):
        if value.startswith("#"):
            continue
        url = urlsplit(urljoin(server.base_url + page, value))
        if url.scheme in ("http", "https") and url.netloc == urlsplit(server.base_url).netloc and url.path:
            found.add(url.path + (f"?{url.query}" if url.query else ""))
    return found


def first_link(links: set[str], pattern: str) -> str:
    matching = sorted(link for link in links if re.fullmatch(pattern, link))
    assert matching, pattern
    return matching[0]


def crawl(server: Server, language: str) -> dict[str, tuple[Reply, set[str]]]:
    """The pages of every kind in one language, each with the links it holds."""
    at = prefix(language)
    pages: dict[str, tuple[Reply, set[str]]] = {}

    def visit(path: str) -> set[str]:
        reply = fetch(server.base_url, path)
        pages[path] = (reply, internal_links(server, path, reply.body))
        return pages[path][1]

    listings = {kind: visit(f"{at}/{kind}") for kind in ("projects", "persons", "organizations", "clusters")}
    listings["collections"] = visit(f"{at}/collections")
    visit(f"{at}/records")
    visit(f"{at}/about")
    for kind in ("persons", "organizations", "clusters", "collections"):
        visit(first_link(listings[kind], rf"{at}/{kind}/[^/?]+"))
    # A project with records: the first whose page links to its records' listing.
    for project in sorted(link for link in listings["projects"] if re.fullmatch(rf"{at}/projects/[^/?]+", link)):
        records = [link for link in visit(project) if link == f"{project}/records"]
        if records:
            record = first_link(visit(records[0]), rf"{at}/projects/[^/?]+/records/[^/?]+")
            visit(record)
            break
    visit(f"{at}/persons/nobody-at-all")  # the 404 page
    visit(f"{at}/projects?page=first")  # the 400 page
    return pages


@pytest.mark.slow  # every page of the sample data crawled, its links followed: 10 s per language
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_internal_link_stays_in_the_page_language(server: Server, language: str) -> None:
    pages = crawl(server, language)
    at = prefix(language)
    assert any(re.fullmatch(rf"{at}/projects/[^/?]+/records/[^/?]+", page) for page in pages)  # a record too
    errors = {f"{at}/persons/nobody-at-all": 404, f"{at}/projects?page=first": 400}
    assert {page: reply.status for page, (reply, _) in pages.items()} == {page: errors.get(page, 200) for page in pages}
    assert {page: reply.headers.get("content-language") for page, (reply, _) in pages.items()} == dict.fromkeys(
        pages, language
    )

    linked = {link for _, links in pages.values() for link in links}
    answers = {path: fetch(server.base_url, path) for path in sorted({urlsplit(link).path for link in linked})}
    wrong, machine = [], set()
    for link in sorted(linked):
        path = urlsplit(link).path
        answer = answers[path]
        said = answer.headers.get("content-language")
        if answer.status >= 400:
            wrong.append((link, answer.status))
        elif said is None:  # a machine file: one URL for every language
            machine.add(path)
            if PREFIXED.match(path):
                wrong.append((link, "prefixed machine file"))
        elif said != language:
            wrong.append((link, said))
    assert wrong == []
    # The machine files the pages link to were among the links followed.
    assert any(path.startswith("/api/v2/") for path in machine)
    assert any(path.startswith("/static/") for path in machine)
    assert any(path.endswith((".bib", ".ris", "/linkset")) for path in machine)
    assert any(path.endswith(".atom") for path in machine)
    assert len(linked) - len(machine) > 50  # page links, the most of them


def test_the_oai_link_of_the_about_page_is_never_prefixed(server: Server) -> None:
    for language in LANGUAGES:
        body = fetch(server.base_url, f"{prefix(language)}/about").body
        oai = [href for href in html.fromstring(body).xpath("//a/@href") if "verb=Identify" in href]
        assert len(oai) == 1 and not PREFIXED.match(urlsplit(oai[0]).path)
