"""The language switch and the other-language texts in headless Chromium against a real `svc serve`.

With and without JavaScript; axe-core (WCAG 2.1 AA) on the main pages in German, French and Italian.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.test_e2e_browser import AXE, WCAG_21_AA, server  # noqa: F401 (fixtures)


@pytest.fixture(params=[pytest.param(True, id="js"), pytest.param(False, id="nojs")])
def page(request, browser: Browser) -> Iterator[Page]:
    context = browser.new_context(java_script_enabled=request.param, locale="en-GB")
    opened = context.new_page()
    problems: list[str] = []
    opened.on("console", lambda message: message.type == "error" and problems.append(message.text))
    opened.on("pageerror", lambda error: problems.append(str(error)))
    yield opened
    context.close()
    assert problems == [], problems


def switch_to(page: Page, name: str) -> None:
    page.get_by_role("navigation", name=re.compile("Language|Sprache|Langue|Lingua")).get_by_role(
        "link", name=name
    ).click()


def test_the_switch_keeps_the_page_and_its_search(page: Page, server):  # noqa: F811
    path = "/projects/0803/records?q=recto&sort=newest"
    page.goto(server.base_url + path)
    switch_to(page, "Deutsch")
    expect(page).to_have_url(server.base_url + "/de" + path)
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Datensätze von")
    expect(page.get_by_role("searchbox")).to_have_value("recto")

    switch_to(page, "Italiano")
    expect(page).to_have_url(server.base_url + "/it" + path)
    expect(page.get_by_role("heading", level=1)).to_contain_text("Record di")

    switch_to(page, "English")
    expect(page).to_have_url(server.base_url + path)
    expect(page.locator("html")).to_have_attribute("lang", "en")


def test_a_german_browser_lands_in_german_and_can_choose_english(browser: Browser, server):  # noqa: F811
    context = browser.new_context(locale="de-CH")
    page = context.new_page()
    page.goto(server.base_url + "/about")
    expect(page).to_have_url(server.base_url + "/de/about")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Über")
    switch_to(page, "English")
    expect(page).to_have_url(server.base_url + "/about")
    page.goto(server.base_url + "/projects")  # the choice is remembered
    expect(page).to_have_url(server.base_url + "/projects")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    context.close()


def test_other_languages_open_on_a_click(page: Page, server):  # noqa: F811
    page.goto(server.base_url + "/it/projects/0108")
    other = page.locator("#description details.other-languages")
    english = other.locator("p[lang=en]")
    expect(english).to_be_hidden()
    if page.locator("#description-unfold").count():  # the long description starts folded
        page.locator("label[for=description-unfold]").click()
    other.locator("summary").click()
    expect(english).to_be_visible()
    expect(english.locator(".language-name")).to_have_text("Inglese:")


@pytest.mark.parametrize("language", ["de", "fr", "it"])
@pytest.mark.parametrize(
    "path",
    [
        "/projects",
        "/projects/0108",
        "/projects/0803/records?q=recto",
        "/projects/0803/records/00bnHlmDVIq_Blb4DvKGiQU",
        "/persons",
        "/persons/person-071",
        "/organizations/organization-002",
        "/about",
    ],
)
def test_axe_finds_no_wcag_21_aa_violation_in_each_language(tab, server, path: str, language: str):  # noqa: F811
    page = tab()
    page.goto(f"{server.base_url}/{language}{path}")
    assert page.evaluate("document.documentElement.lang") == language
    page.evaluate(Path(AXE).read_text())
    results = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})",
        WCAG_21_AA,
    )
    violations = [
        (violation["id"], [node["target"] for node in violation["nodes"]][:3]) for violation in results["violations"]
    ]
    assert violations == []


SCHEMES = ("light", "dark")
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 320, "height": 720}}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("language", ["en", "de", "fr", "it"])
@pytest.mark.parametrize(
    "path",
    [
        "/projects?q=basel&status=Finished",
        "/projects/0803?tab=records",
        "/projects/0803/records?q=recto",
        "/projects/0803/records/lklK7rVuVOmpBZYWrF8o=gh",
        "/records?q=recto&type=Image",
        "/about",
    ],
)
def test_axe_finds_no_violation_in_either_colour_scheme_on_a_desktop_or_a_phone(
    tab,
    server,  # noqa: F811
    path: str,
    language: str,
    scheme: str,
    size: str,
):
    page = tab(viewport=SIZES[size], color_scheme=scheme, is_mobile=size == "phone")
    page.goto(server.base_url + (path if language == "en" else f"/{language}{path}"))
    page.evaluate(Path(AXE).read_text())
    # label-content-name-mismatch (WCAG 2.5.3) is experimental in axe, so off unless asked for.
    results = page.evaluate(
        """tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations'],
                                      rules: {'label-content-name-mismatch': {enabled: true}}})""",
        WCAG_21_AA,
    )
    violations = [
        (violation["id"], [node["target"] for node in violation["nodes"]][:3]) for violation in results["violations"]
    ]
    assert violations == []


def test_the_copy_button_speaks_the_page_language(browser: Browser, server):  # noqa: F811
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(server.base_url + "/de/projects/0803")
    page.get_by_role("button", name="Permalink kopieren").click()
    expect(page.locator("[data-copy='permalink'] + .copy-status")).to_have_text("In die Zwischenablage kopiert.")
    expect(page.locator("[data-copy='permalink']")).to_have_text("Kopiert")
    assert page.get_by_role("tablist").get_attribute("aria-label") == "Bereiche des Projekts"
    context.close()
