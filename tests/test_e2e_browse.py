"""Browse pages, record search and the layout polish in headless Chromium against a real `svc serve`.

With and without JavaScript, on a desktop and a phone viewport; axe-core (WCAG 2.1 AA)
in the light and the dark colour scheme.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests.test_e2e_browser import AXE, WCAG_21_AA, expect_hidden, server  # noqa: F401 (fixtures)

PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}

# Places where a line of the element's text breaks although neither side is a space
# (or, with slash_only, the character before the break is not a slash).
BREAKS_INSIDE_WORDS = """
([selector, slashOnly]) => {
  const found = [];
  for (const element of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    let previous = null;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange();
        range.setStart(node, i); range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        const char = node.data[i];
        if (!rect) continue;
        if (previous && rect.top > previous.top + 2) {
          const allowed = slashOnly ? previous.char === "/" : /\\s/.test(previous.char) || /\\s/.test(char);
          if (!allowed) found.push(element.textContent.trim().slice(0, 60) + " @" + previous.char + char);
        }
        previous = {top: rect.top, char: char};
      }
    }
  }
  return found;
}
"""


@pytest.fixture(params=[pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE, id="phone")])
def viewport(request) -> dict:
    return request.param


@pytest.fixture(params=[pytest.param(True, id="js"), pytest.param(False, id="nojs")])
def page(request, browser: Browser, viewport: dict) -> Iterator[Page]:
    context = browser.new_context(java_script_enabled=request.param, **viewport)
    opened = context.new_page()
    problems: list[str] = []
    opened.on("console", lambda message: message.type == "error" and problems.append(message.text))
    opened.on("pageerror", lambda error: problems.append(str(error)))
    opened.scripting = request.param  # type: ignore[attr-defined]
    yield opened
    context.close()
    assert problems == [], problems


def test_record_search_keeps_its_state_in_the_address(page: Page, server):  # noqa: F811
    page.goto(server.base_url + "/projects/0803/records")
    page.get_by_role("searchbox", name="Search records").fill("Seitenbezeichnung")
    page.get_by_role("button", name="Search", exact=True).click()
    if page.scripting:  # empty fields are left out of the address
        page.wait_for_url("**/projects/0803/records?q=Seitenbezeichnung")
    else:
        page.wait_for_url("**/projects/0803/records?q=Seitenbezeichnung&sort=")
    heading = page.locator("#results-heading").inner_text()
    matched = int(heading.split()[0])
    assert re.fullmatch("\\d+ of \\d+ records match(, showing 1\u201350)?", heading)
    rows = page.locator("table.records tbody tr")
    assert rows.count() == min(50, matched)
    assert page.locator("table.records tbody tr mark").first.inner_text() == "Seitenbezeichnung"

    sort = page.get_by_label("Sort by")
    if page.scripting:
        with page.expect_navigation():  # applies at once
            sort.select_option("newest")
    else:
        sort.select_option("newest")
        page.get_by_role("button", name="Apply").click()
    page.wait_for_url(re.compile(r"\?q=Seitenbezeichnung&sort=newest$"))
    assert page.locator("#results-heading").inner_text() == heading
    dates = [d for d in page.locator("table.records tbody tr td:nth-child(4)").all_inner_texts() if d]
    assert dates == sorted(dates, reverse=True)
    if matched > 50:
        page.locator("a[rel=next]").click()
        page.wait_for_url(re.compile(r"\?q=Seitenbezeichnung&sort=newest&page=2$"))


def test_browse_pages_search_sort_and_link_to_entities(page: Page, server):  # noqa: F811
    page.goto(server.base_url + "/projects")
    page.locator("header").get_by_role("link", name="People").click()
    page.wait_for_url("**/persons")
    first = page.locator("ul.entity-list li a").first
    name = first.inner_text()
    page.get_by_role("searchbox", name="Search people").fill(name.split()[-1].upper())
    page.get_by_role("button", name="Search", exact=True).click()
    page.wait_for_url(re.compile(r"/persons\?q="))
    assert name in page.locator("ul.entity-list li a").all_inner_texts()
    page.get_by_role("link", name=name, exact=True).first.click()
    page.wait_for_url(re.compile(r"/persons/"))
    page.get_by_role("navigation", name="Breadcrumb").get_by_role("link", name="People").click()
    page.wait_for_url("**/persons")


def test_phone_tables_wrap_between_words_and_permalinks_at_slashes(browser: Browser, server):  # noqa: F811
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(server.base_url + "/projects/0803/records?q=image")
    assert page.evaluate(BREAKS_INSIDE_WORDS, ["table.records td:not(.identifier)", False]) == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.goto(server.base_url + "/projects/0803")
    permalink = page.locator("#permalink")
    assert permalink.evaluate("a => a.getClientRects().length") > 1  # it does wrap on a phone …
    assert page.evaluate(BREAKS_INSIDE_WORDS, ["#permalink", True]) == []  # … but only after a slash
    context.close()


def test_the_fold_is_there_from_the_first_paint_and_works_without_javascript(browser: Browser, server):  # noqa: F811
    for scripting in (True, False):
        context = browser.new_context(java_script_enabled=scripting, **DESKTOP)
        page = context.new_page()
        page.goto(server.base_url + "/projects/0803")
        description = page.locator("#description")
        assert "foldable" in description.get_attribute("class")
        folded = description.evaluate("d => d.getBoundingClientRect().height")
        if scripting:
            shift = page.evaluate(
                """() => new Promise(resolve => {
                  new PerformanceObserver(list => resolve(list.getEntries().reduce((s, e) => s + e.value, 0)))
                    .observe({type: "layout-shift", buffered: true});
                  setTimeout(() => resolve(0), 1000);
                })"""
            )
            assert shift == 0
        page.get_by_text("Show more").click()
        assert description.evaluate("d => d.getBoundingClientRect().height") > folded
        assert page.get_by_text("Show less").is_visible()
        context.close()


def test_print_leaves_out_the_navigation(browser: Browser, server):  # noqa: F811
    context = browser.new_context(**DESKTOP)
    page = context.new_page()
    page.goto(server.base_url + "/projects/0803")
    page.emulate_media(media="print")
    expect_hidden(page.locator("header.site-header"))
    assert page.locator("#description").evaluate("d => getComputedStyle(d).maxHeight") == "none"
    page.goto(server.base_url + "/projects")  # the listing has the search form (a project page has none)
    expect_hidden(page.locator("form.search"))
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(
    "path",
    [
        "/persons",
        "/organizations",
        "/clusters",
        "/collections",
        "/persons/person-071",
        "/projects/0803/records?q=seitenbezeichnung&sort=newest",
        "/projects",
        "/projects/0803",
    ],
)
def test_axe_finds_no_wcag_21_aa_violation_in_either_scheme(tab, server, path: str, scheme: str):  # noqa: F811
    page = tab(color_scheme=scheme, **DESKTOP)
    page.goto(server.base_url + path)
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") is (scheme == "dark")
    page.evaluate(Path(AXE).read_text())
    results = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})",
        WCAG_21_AA,
    )
    violations = [
        (violation["id"], [node["target"] for node in violation["nodes"]][:3]) for violation in results["violations"]
    ]
    assert violations == []
