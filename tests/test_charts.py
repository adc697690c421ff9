"""The charts of the pages (issue 38): each bar counts what its link lists, the facets' own counts.

In-process on the real corpus; the drawing in Chromium (axe, 320 px, both colour schemes) is
tests/test_e2e_charts.py.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

import pytest

from catalog.pages import views
from tests.conftest import CORPUS_DIR, tree_of

pytestmark = pytest.mark.usefixtures("static_assets")


@pytest.fixture
def corpus(install_catalog):
    return install_catalog(CORPUS_DIR)


def bars(tree, key: str) -> list[tuple[str, str]]:
    """(href, accessible name) of each bar of the chart ``key``."""
    links = tree.xpath(f"//div[@id='chart-{key}']//*[local-name()='svg']//*[local-name()='a']")
    return [(link.get("href"), link.get("aria-label")) for link in links]


def table(tree, key: str) -> list[tuple[str, str, str]]:
    """(label, href, count) of each row of the chart's table of numbers."""
    rows = tree.xpath(f"//div[@id='chart-{key}']//table[@class='numbers']/tbody/tr")
    return [(row.xpath("string(th)"), row.xpath("string(th/a/@href)"), row.xpath("string(td)")) for row in rows]


def listed(client, url: str) -> int:
    """How many items the listing at ``url`` says it has (the number its heading starts with)."""
    heading = tree_of(client.get(url)).xpath("string(//h2[@id='results-heading'])")
    return int(re.match(r"[\d.,'\s]+", heading).group().replace(",", "").replace(".", "").strip())


def facet_counts(client, url: str, key: str) -> dict[str, int]:
    """The counts a listing's facet shows beside each of its values."""
    tree = tree_of(client.get(url))
    return {
        box.get("value"): int(box.getparent().xpath("string(label/span[@class='count'])").strip("()"))
        for box in tree.xpath(f"//input[@name='{key}']")
    }


def test_the_project_charts_its_records_by_year_and_type_linking_to_the_records_listing(client, corpus):
    tree = tree_of(client.get("/projects/0803?tab=records"))
    per_year = bars(tree, "records-per-year")
    assert per_year[1] == ("/records?project=0803&year=2012", "2012: 165 records")
    assert [name.split(":")[0] for _, name in per_year] == [str(year) for year in range(2011, 2018)]
    years = facet_counts(client, "/records?project=0803", "year")
    assert {href.rpartition("=")[2]: int(name.split(": ")[1].split()[0]) for href, name in per_year} == years
    per_type = bars(tree, "records-per-type")
    assert per_type == [
        ("/records?project=0803&type=Text", "Text: 3155 records"),
        ("/records?project=0803&type=Image", "Image: 1043 records"),
    ]
    assert facet_counts(client, "/records?project=0803", "type") == {"Text": 3155, "Image": 1043}
    for href, name in per_year + per_type:
        assert listed(client, href) == int(name.split(": ")[1].split()[0]), href
    # The table says the same numbers with the same links.
    assert table(tree, "records-per-type") == [
        ("Text", "/records?project=0803&type=Text", "3155"),
        ("Image", "/records?project=0803&type=Image", "1043"),
    ]
    assert tree.xpath("string(//div[@id='chart-records-per-year']/h3)") == "Records by year"
    group = tree.xpath("//div[@id='chart-records-per-year']/div[*[local-name()='svg']]")[0]
    assert group.get("role") == "group" and group.get("aria-labelledby") == "records-per-year-title"


SVG_LENGTH = re.compile(r"-?\d+(?:\.\d+)?%?")  # a number (in px) or a percentage, with a decimal point
COORDINATES = ("x", "y", "width", "height", "x1", "x2", "y1", "y2", "dy")


@pytest.mark.parametrize("language", ["", "/de", "/fr", "/it"])
def test_only_the_words_of_a_drawing_are_in_the_page_language(client, corpus, language):
    """A coordinate written the German way ("158,1") is no SVG length: the browser would not draw the bar."""
    for path in ("/projects/0803?tab=records", "/overview", "/persons/person-008"):
        drawings = tree_of(client.get(language + path)).xpath("//div[@class='chart']//*[local-name()='svg']")
        assert drawings, path
        for shape in (shape for drawing in drawings for shape in drawing.iter()):
            for name in COORDINATES:
                value = shape.get(name)
                assert value is None or SVG_LENGTH.fullmatch(value), (language + path, shape.tag, name, value)


def test_a_project_without_records_has_no_chart(client, corpus):
    tree = tree_of(client.get("/projects/0108"))
    assert tree.xpath("//div[@class='chart']") == []


def test_the_charts_speak_the_page_language(client, corpus):
    tree = tree_of(client.get("/de/projects/0803?tab=records"))
    assert bars(tree, "records-per-type")[1] == ("/de/records?project=0803&type=Image", "Bild: 1.043 Datensätze")
    assert tree.xpath("string(//div[@id='chart-records-per-type']/h3)") == "Datensätze nach Datentyp"
    assert table(tree, "records-per-year")[0] == ("2011", "/de/records?project=0803&year=2011", "3.952")
    assert (
        tree.xpath("string(//div[@id='chart-records-per-year']//summary)") == "Zahlen anzeigen (Datensätze nach Jahr)"
    )


@pytest.mark.slow
def test_the_overview_counts_what_each_bar_lists(client, corpus):
    tree = tree_of(client.get("/overview"))
    assert tree.xpath("string(//h1)") == "The catalogue at a glance"
    keys = [key.removeprefix("chart-") for key in tree.xpath("//div[@class='chart']/@id")]
    assert keys == [
        "projects-per-status",
        "projects-per-access",
        "projects-per-discipline",
        "projects-per-year",
        "records-per-year",
    ]
    assert bars(tree, "projects-per-status") == [
        ("/projects?status=Ongoing", "Ongoing: 47 projects"),
        ("/projects?status=Finished", "Finished: 38 projects"),
    ]
    for key, facet in (("projects-per-access", "access"), ("projects-per-discipline", "discipline")):
        counts = {dict(parse_qsl(urlsplit(href).query))[facet]: int(count) for _, href, count in table(tree, key)}
        assert counts == facet_counts(client, "/projects", facet), key
    # Every bar drawn and every row of every table lists as many as it says.
    for key in keys:
        for label, href, count in table(tree, key):
            assert listed(client, href) == int(count), (key, label, href)
    per_year = dict((label, int(count)) for label, _, count in table(tree, "projects-per-year"))
    assert per_year["2020"] == listed(client, "/projects?from=2020&to=2020")
    assert ("/records?year=2012", "2012: 165 records") in bars(tree, "records-per-year")


def test_the_overview_is_linked_from_the_navigation_and_about(client, corpus):
    for path in ("/about", "/projects"):
        assert "/overview" in tree_of(client.get(path)).xpath("//header//nav//a/@href")
    assert "/overview" in tree_of(client.get("/about")).xpath("//main//a/@href")
    assert "/it/overview" in tree_of(client.get("/it/about")).xpath("//main//a/@href")


def test_chart_pages_are_served_from_the_response_cache(client, corpus, monkeypatch):
    rendered: list[str] = []
    render = views._render

    def counting(request, template, context):
        rendered.append(template)
        return render(request, template, context)

    monkeypatch.setattr(views, "_render", counting)
    for path in ("/overview", "/projects/0803?tab=records", "/overview", "/projects/0803?tab=records"):
        assert client.get(path).status_code == 200
    assert rendered == ["overview.html", "project.html"]


@pytest.mark.slow
@pytest.mark.parametrize("path", ["/persons/person-008", "/organizations/organization-002"])
def test_a_contributor_with_several_projects_has_them_per_year_each_year_listing_them(client, corpus, path):
    tree = tree_of(client.get(path))
    contributor = path.rpartition("/")[2]
    listed_projects = len(tree.xpath("//ul[@class='project-roles']/li"))
    assert listed(client, f"/projects?contributor={contributor}") == listed_projects
    rows = table(tree, "projects-per-year")
    assert rows and [href for _, href, _ in rows] == [href for href, _ in bars(tree, "projects-per-year")]
    for year, href, count in rows:
        assert href == f"/projects?contributor={contributor}&from={year}&to={year}"
        assert listed(client, href) == int(count), href


def test_the_contributor_filter_is_a_chip_not_a_listed_facet(client, corpus):
    tree = tree_of(client.get("/projects?contributor=person-008&from=2020&to=2020"))
    assert tree.xpath("//input[@name='contributor']") == []
    name = tree_of(client.get("/persons/person-008")).xpath("string(//h1)")
    chips = [" ".join(chip.text_content().split()) for chip in tree.xpath("//div[@class='active-filters']//li/a")]
    assert chips[0] == f"Contributor: {name} (remove)\u00d7"


def test_a_person_with_one_project_has_no_chart(client, corpus):
    tree = tree_of(client.get("/persons/person-071"))
    assert len(tree.xpath("//ul[@class='project-roles']/li")) == 1
    assert tree.xpath("//div[@class='chart']") == []
