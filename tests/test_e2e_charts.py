"""The charts in headless Chromium against a real `svc serve` (issue 38).

Drawn (every bar, in every language), labelled and linked: a click on a bar lists what it counts;
axe-core (WCAG 2.1 AA, with label-content-name-mismatch) finds nothing on the four kinds of page with
charts, in four languages and both colour schemes, on a 320 px phone (where nothing is wider than the
screen) and on a desktop.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.conftest import Server
from tests.test_e2e_browser import AXE, WCAG_21_AA, server  # noqa: F401 (fixture)

PAGES = ("/projects/0803?tab=records", "/overview", "/persons/person-008", "/organizations/organization-002")
PHONE = {"width": 320, "height": 720}
DESKTOP = {"width": 1280, "height": 800}


def axe_violations(page) -> list:
    page.evaluate(Path(AXE).read_text())
    results = page.evaluate(
        """tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations'],
                                      rules: {'label-content-name-mismatch': {enabled: true}}})""",
        WCAG_21_AA,
    )
    return [
        (violation["id"], [node["target"] for node in violation["nodes"]][:3]) for violation in results["violations"]
    ]


def test_a_bar_is_a_named_link_to_the_listing_it_counts(browser: Browser, server: Server):  # noqa: F811
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(server.base_url + "/projects/0803?tab=records")
    chart = page.get_by_role("group", name="Records by year")
    expect(chart).to_be_visible()
    bars = chart.get_by_role("link")
    expect(bars).to_have_count(7)
    box = bars.nth(1).bounding_box()
    assert box is not None and box["width"] > 10 and box["height"] >= 2  # drawn, and big enough to click
    bars.nth(1).click()
    expect(page).to_have_url(server.base_url + "/records?project=0803&year=2012")
    expect(page.locator("#results-heading")).to_contain_text("165 of 4198 records match")
    page.go_back()
    # The numbers behind the drawing, one click away.
    numbers = page.locator("#chart-records-per-type table")
    expect(numbers).to_be_hidden()
    page.locator("#chart-records-per-type summary").click()
    expect(numbers.get_by_role("row")).to_have_count(3)
    expect(numbers.get_by_role("link", name="Image")).to_have_attribute("href", "/records?project=0803&type=Image")
    context.close()


def test_the_overview_is_reached_from_the_navigation(browser: Browser, server: Server):  # noqa: F811
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(server.base_url + "/de/projects")
    page.get_by_role("navigation", name="Hauptnavigation").get_by_role("link", name="Überblick").click()
    expect(page).to_have_url(server.base_url + "/de/overview")
    expect(
        page.get_by_role("group", name="Projekte nach Status").get_by_role("link", name="Laufend: 47 Projekte")
    ).to_be_visible()
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("language", ["en", "de", "fr", "it"])
@pytest.mark.parametrize("path", PAGES)
def test_axe_finds_nothing_on_a_phone_and_nothing_is_wider_than_it(
    tab: Callable[..., Page],
    server: Server,  # noqa: F811
    path: str,
    language: str,
    scheme: str,
):
    page = tab(viewport=PHONE, color_scheme=scheme, is_mobile=True)
    page.goto(server.base_url + (path if language == "en" else f"/{language}{path}"))
    expect(page.locator(".chart svg").first).to_be_visible()
    page.locator(".chart summary").first.click()  # an open table must fit too
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # Every bar is drawn, whatever the language's decimal comma: at least the 2 px of the smallest column.
    heights = page.locator(".chart rect.bar").evaluate_all(
        "bars => bars.map(bar => bar.getBoundingClientRect().height)"
    )
    assert heights and min(heights) >= 2
    assert axe_violations(page) == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", PAGES)
def test_axe_finds_nothing_on_a_desktop(tab: Callable[..., Page], server: Server, path: str, scheme: str):  # noqa: F811
    page = tab(viewport=DESKTOP, color_scheme=scheme)
    page.goto(server.base_url + path)
    assert axe_violations(page) == []
