"""Reflow (WCAG 1.4.10) in headless Chromium against a real `svc serve`: no page scrolls sideways.

Every page type in every interface language at 320 px (the reflow width) and
390 px (a common phone): the document's scroll width must not exceed the
viewport's width. ``document.documentElement.scrollWidth`` is compared with the
viewport we asked for, not with ``innerWidth``, which grows with the content
under mobile emulation. Run with ``-s`` to see each page's widest scroll width.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page

from tests.conftest import WITHDRAWN, Server  # WITHDRAWN: a sample project without records
from tests.test_e2e_browser import server  # noqa: F401 (fixtures)

WIDTHS = (320, 390)
LANGUAGES = ("en", "de", "fr", "it")
PAGES = (
    "/projects",
    "/projects?q=basel&status=Finished",
    "/projects?q=zzzzqqq",
    "/projects/0803",
    "/projects/0803?tab=contributors",
    "/projects/0803?tab=records",
    "/projects/0105",
    "/projects/0105?tab=publications",
    "/projects/082B",
    "/projects/082B?tab=records",
    "/projects/0803/records",
    "/projects/0803/records?q=recto",
    "/projects/0803/records?q=zzzzqqq",
    "/projects/0803/records/lklK7rVuVOmpBZYWrF8o=gh",
    "/records?q=recto",
    "/records/facets/year?q=recto",
    "/persons",
    "/persons/person-071",
    "/organizations",
    "/organizations/organization-002",
    "/clusters",
    "/clusters/cluster-003-beol",
    "/collections",
    "/about",
    "/overview",
    "/persons/person-008",
    "/projects/NOPE",
    "/projects?page=abc",
)

# The elements sticking out, to say what to fix when the check fails.
OVERFLOW = """width => Array.from(document.querySelectorAll('body *'))
  .filter(e => e.getBoundingClientRect().right > width + 0.5 && e.getClientRects().length)
  .slice(0, 8).map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '')
    + ' ' + Math.round(e.getBoundingClientRect().right))"""


def in_language(path: str, language: str) -> str:
    return path if language == "en" else f"/{language}{path}"


@pytest.fixture(params=WIDTHS, ids=[f"{width}px" for width in WIDTHS])
def phone(request: pytest.FixtureRequest, tab: Callable[..., Page]) -> tuple[int, Page]:
    """This worker's phone tab of that width (conftest's ``tab``: one renderer for all the module's pages)."""
    return request.param, tab(viewport={"width": request.param, "height": 800}, is_mobile=True, has_touch=True)


def scroll_width(page: Page, url: str, width: int) -> tuple[int, list[str]]:
    page.goto(url)
    return page.evaluate("document.documentElement.scrollWidth"), page.evaluate(OVERFLOW, width)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", PAGES)
def test_no_page_scrolls_sideways_on_a_phone(
    phone: tuple[int, Page],
    server: Server,  # noqa: F811
    path: str,
    language: str,
) -> None:
    width, page = phone
    widest, sticking_out = scroll_width(page, server.base_url + in_language(path, language), width)
    print(f"REFLOW\t{path}\t{language}\t{width}\t{widest}")
    assert widest <= width, sticking_out


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_withdrawn_page_does_not_scroll_sideways(
    phone: tuple[int, Page], withdrawn_server: Server, language: str
) -> None:
    width, page = phone
    url = withdrawn_server.base_url + in_language(f"/projects/{WITHDRAWN}", language)
    widest, sticking_out = scroll_width(page, url, width)
    print(f"REFLOW\t/projects/{WITHDRAWN} (410)\t{language}\t{width}\t{widest}")
    assert widest <= width, sticking_out
