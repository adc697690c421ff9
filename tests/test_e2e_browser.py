"""End to end in headless Chromium (Debian's, driven by Playwright) against a real `svc serve`.

Tabs switch in place and update the address; without JavaScript they are
plain links; search and facets; copy buttons; axe-core finds no WCAG 2.1 AA
violation on the listing, a project, a person and the about page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.conftest import CORPUS_DIR, PROJECT_ROOT, Server, start_server, stop_server

AXE = PROJECT_ROOT / "node_modules" / "axe-core" / "axe.min.js"
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def expect_hidden(locator: Locator, count: int = 1) -> None:
    """Exactly ``count`` elements match and each is hidden (``is_hidden()`` alone is true when none matches)."""
    expect(locator).to_have_count(count)
    for index in range(count):
        expect(locator.nth(index)).to_be_hidden()


@pytest.fixture
def server(e2e_server: Server) -> Server:
    """The corpus served for the browser tests (tests/conftest.py: one per worker, shared by their modules)."""
    return e2e_server


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    opened = context.new_page()
    problems: list[str] = []
    opened.on("console", lambda message: message.type == "error" and problems.append(message.text))
    opened.on("pageerror", lambda error: problems.append(str(error)))
    yield opened
    context.close()
    assert problems == [], problems  # no script error, no CSP violation


def test_tabs_switch_in_place_and_update_the_address(page: Page, server: Server):
    page.goto(server.base_url + "/projects/0803")
    page.evaluate("window.notReloaded = true")
    history_length = page.evaluate("history.length")

    page.get_by_role("tab", name="Contributors").click()
    expect(page).to_have_url(server.base_url + "/projects/0803?tab=contributors")
    expect(page.locator("#panel-contributors")).to_be_visible()
    expect_hidden(page.locator("#panel-overview"))
    assert page.get_by_role("tab", name="Contributors").get_attribute("aria-selected") == "true"
    assert page.evaluate("window.notReloaded") is True
    assert page.evaluate("history.length") == history_length  # replaced, not pushed

    # Keyboard: arrows move between tabs and select them (WAI-ARIA tabs pattern).
    page.get_by_role("tab", name="Contributors").focus()
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r"\?tab=records$"))
    expect(page.locator("#tab-records")).to_be_focused()
    expect(page.locator("#panel-records")).to_be_visible()
    page.keyboard.press("Home")
    expect(page).to_have_url(re.compile(r"/projects/0803(\?tab=overview)?$"))
    expect(page.locator("#panel-overview")).to_be_visible()
    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(re.compile(r"\?tab=records$"))
    assert page.evaluate("window.notReloaded") is True


def test_without_javascript_tabs_are_links_and_filters_apply(browser: Browser, server: Server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(server.base_url + "/projects/0803")
    assert page.get_by_role("tab").count() == 0  # plain links until the script upgrades them
    page.get_by_role("link", name="Publications", exact=True).click()
    page.wait_for_url("**/projects/0803?tab=publications")
    assert page.locator("#panel-publications").is_visible()
    expect_hidden(page.locator("#panel-overview"))
    expect_hidden(page.locator("button.copy"), count=2)  # permalink and citation: copy buttons need JavaScript

    page.goto(server.base_url + "/projects")
    expect(page.get_by_role("checkbox", name=re.compile(r"^Finished"))).to_be_visible()  # open on a wide screen
    page.get_by_label("Finished").check()
    page.get_by_role("button", name="Apply filters").click()
    page.wait_for_url("**/projects?q=&sort=&status=Finished&from=&to=")  # empty fields are sent without JavaScript
    assert page.locator("#results-heading").inner_text().startswith("38 projects")
    context.close()


def test_search_and_facets(page: Page, server: Server):
    page.goto(server.base_url + "/projects")
    page.get_by_role("searchbox", name="Search projects").fill("BASEL")
    page.keyboard.press("Enter")
    page.wait_for_url("**/projects?q=BASEL")
    heading = page.locator("#results-heading")
    total = int(heading.inner_text().split()[0])
    assert total > 1

    finished_label = page.locator("label", has=page.locator("text=Finished")).first
    expected = int(finished_label.locator(".count").inner_text().strip("()"))
    with page.expect_navigation():  # applies at once with JavaScript
        page.get_by_role("checkbox", name=re.compile(r"^Finished")).click()
    page.wait_for_url("**/projects?q=BASEL&status=Finished")  # empty sort left out
    assert heading.inner_text().startswith(f"{expected} project")
    assert page.locator("ul.cards > li").count() == expected

    with page.expect_navigation():
        page.get_by_label("Sort by").select_option("name-desc")
    page.wait_for_url("**/projects?q=BASEL&sort=name-desc&status=Finished")
    names = page.locator("ul.cards h3").all_inner_texts()
    assert names == sorted(names, key=str.casefold, reverse=True) or len(names) <= 1

    page.get_by_role("link", name="Clear all").click()
    page.wait_for_url(server.base_url + "/projects")
    assert page.locator("ul.cards > li").count() == 20


def test_export_box_offers_each_metadata_format(page: Page, server: Server):
    page.goto(server.base_url + "/projects/0803")
    box = page.locator("#export")
    expect(box).to_be_visible()
    labels = box.get_by_role("link").all_inner_texts()
    assert labels == [
        "JSON",
        "JSON-LD (schema.org)",
        "Turtle (DCAT-AP)",
        "RDF/XML (DCAT-AP)",
        "DataCite XML",
        "DataCite JSON",
        "Dublin Core XML",
        "BibTeX",
        "RIS",
        "CSL-JSON",
        "Formatted citation",
    ]
    href = box.get_by_role("link", name="JSON-LD (schema.org)").get_attribute("href")
    response = page.request.get(server.base_url + href)
    assert response.headers["content-type"].startswith("application/ld+json")
    assert response.json()["@type"] == "Dataset"
    with page.expect_download() as download:
        box.get_by_role("link", name="BibTeX").click()
    assert download.value.suggested_filename == "0803.bib"


def test_style_chooser_switches_the_citation(page: Page, server: Server):
    page.goto(server.base_url + "/projects/0803")
    citation = page.locator("#citation")
    expect(citation).to_contain_text("Schellewald, B., Hug, H., & Rosenthaler, L. (2011)")
    expect_hidden(page.locator(".style-chooser button"))  # the choice applies at once with JavaScript
    with page.expect_navigation():
        page.get_by_label("Style").select_option("harvard")
    page.wait_for_url("**/projects/0803?style=harvard")
    expect(citation).to_contain_text("Available at: https://ark.dasch.swiss/ark:/72163/1/0803")
    with page.expect_navigation():
        page.get_by_label("Style").select_option("chicago-author-date")
    expect(citation).to_contain_text("Rosenthaler. 2011.")


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_filters_fold_on_a_phone(browser: Browser, server: Server, javascript: bool):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, java_script_enabled=javascript
    )
    page = context.new_page()
    page.goto(server.base_url + "/projects")
    # get_by_role leaves hidden elements out unless asked: the folded checkbox must be there, hidden.
    expect_hidden(page.get_by_role("checkbox", name=re.compile(r"^Finished"), include_hidden=True))  # folded
    first_card = page.locator("ul.cards > li").first.bounding_box()
    assert first_card is not None and first_card["y"] < 844  # the results start on the first screen
    page.locator("label[data-filters-fold]").click()
    expect(page.get_by_role("checkbox", name=re.compile(r"^Finished"))).to_be_visible()
    more = page.locator("details.more-values > summary").first
    hidden_before = page.locator("details.more-values").first.get_by_role("checkbox", include_hidden=True).first
    expect_hidden(hidden_before)
    more.click()
    expect(hidden_before).to_be_visible()
    context.close()


def test_copy_buttons_copy_and_say_so(browser: Browser, server: Server):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(server.base_url + "/projects/0803")
    page.get_by_role("button", name="Copy permalink").click()
    # The status is written when the clipboard promise resolves: wait for it, then read the clipboard.
    expect(page.locator("[data-copy='permalink'] + .copy-status")).to_have_text("Copied to the clipboard.")
    expect(page.locator("[data-copy='permalink']")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == "https://ark.dasch.swiss/ark:/72163/1/0803"

    page.get_by_role("button", name="Copy citation").click()
    expect(page.locator("[data-copy='citation'] + .copy-status")).to_have_text("Copied to the clipboard.")
    citation = page.locator("#citation").inner_text().strip()
    assert page.evaluate("navigator.clipboard.readText()") == citation
    context.close()


@pytest.mark.parametrize(
    "path", ["/projects", "/projects/0803", "/persons/person-071", "/records/facets/type?q=recto&type=Image", "/about"]
)
def test_axe_finds_no_wcag_21_aa_violation(page: Page, server: Server, path: str):
    page.goto(server.base_url + path)
    page.evaluate(Path(AXE).read_text())
    results = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})",
        WCAG_21_AA,
    )
    violations = [
        (violation["id"], [node["target"] for node in violation["nodes"]][:3]) for violation in results["violations"]
    ]
    assert violations == []
    assert results["passes"], "axe ran no check"


# Stands in for Umami's script (no network here): it records the page views
# the real one would send — the first load and every history.replaceState.
ANALYTICS_STUB = """
(function () {
  var script = document.currentScript;
  window.analyticsSeen = {site: script.getAttribute("data-website-id"), views: [location.href]};
  var replace = history.replaceState;
  history.replaceState = function (state, title, url) {
    window.analyticsSeen.views.push(new URL(url, location.href).href);
    return replace.apply(history, arguments);
  };
})();
"""


def test_analytics_script_loads_under_the_csp_and_sees_tab_switches(
    browser: Browser, tmp_path_factory: pytest.TempPathFactory
):
    env = {
        "FRAMEWORK_SITE_ROOT": str(tmp_path_factory.mktemp("site")),
        "SVC_WORKERS": "1",
        "SVC_ANALYTICS_SITE_ID": "site-42",
        "SVC_ANALYTICS_URL": "https://stats.example.org",
    }
    running = start_server(CORPUS_DIR, env)
    context = browser.new_context()
    try:
        context.route(
            "https://stats.example.org/script.js",
            lambda route: route.fulfill(body=ANALYTICS_STUB, content_type="text/javascript"),
        )
        page = context.new_page()
        blocked: list[str] = []
        page.on("console", lambda message: message.type == "error" and blocked.append(message.text))
        page.goto(running.base_url + "/projects/0803")
        page.wait_for_function("window.analyticsSeen !== undefined")
        page.get_by_role("tab", name="Publications").click()
        page.get_by_role("tab", name="Records").click()
        seen = page.evaluate("window.analyticsSeen")
        assert seen["site"] == "site-42"
        assert seen["views"] == [
            running.base_url + "/projects/0803",
            running.base_url + "/projects/0803?tab=publications",
            running.base_url + "/projects/0803?tab=records",
        ]
        assert blocked == []
    finally:
        context.close()
        stop_server(running)
