"""The project listing: all-words search, facets with counts, sorting, pagination, bad input."""

from __future__ import annotations

import pytest
from lxml import html

from catalog.domain.search import ListingQuery, normalise, page_numbers
from tests import datadir
from tests.conftest import CORPUS_DIR

pytestmark = pytest.mark.usefixtures("static_assets")


@pytest.fixture
def small(tmp_path, install_catalog):
    projects = [
        datadir.project(
            "0A01",
            name="Ansichten von Zürich",
            shortDescription="Photographs of a city from 1890 to 1930.",
            description={"de": "Fotografien der Stadt."},
            keywords=[{"de": "Fotografie"}],
            disciplines=[{"en": "Art history"}],
            status="Finished",
            typeOfData=["Image"],
            dataLanguage=["de"],
            startDate="2010-01-01",
            attributions=[{"contributor": "person-002", "contributorType": ["Editor"]}],
        ),
        datadir.project(
            "0A02",
            name="Basler Drucke",
            shortDescription="Early prints, many of them later sold in Zurich.",
            keywords=[{"en": "Printing"}],
            disciplines=[{"en": "History"}],
            accessRights={"accessRights": "Embargoed Access", "embargoDate": "2030-01-01"},
            typeOfData=["Text"],
            dataLanguage=["de", "la"],
            startDate="2021-05-01",
        ),
        datadir.project(
            "0A03",
            name="Geneva letters",
            shortDescription="Letters written in Geneva.",
            keywords=[{"fr": "Correspondance"}],
            disciplines=[{"en": "History"}],
            typeOfData=["Text"],
            dataLanguage=["fr"],
            startDate="2015-09-01",
        ),
    ]
    persons = [datadir.person(), datadir.person("person-002", "Ana", "Müller")]
    return install_catalog(datadir.write_data_dir(tmp_path, projects=projects, persons=persons))


def listing(client, query: str = "", status: int = 200):
    response = client.get("/projects" + (f"?{query}" if query else ""))
    assert response.status_code == status, (query, response.status_code)
    return html.fromstring(response.content)


def shortcodes(tree) -> list[str]:
    return [text.strip() for text in tree.xpath("//ul[@class='cards']//span[@class='shortcode']/text()")]


def facet_counts(tree, key: str) -> dict[str, int]:
    counts = {}
    for item in tree.xpath(f"//input[@name='{key}']"):
        label = tree.xpath(f"//label[@for='{item.get('id')}']")[0]
        counts[item.get("value")] = int(label.xpath("./span[@class='count']/text()")[0].strip("()"))
    return counts


def checked(tree, key: str) -> list[str]:
    return tree.xpath(f"//input[@name='{key}'][@checked]/@value")


def test_normalise_folds_case_and_accents():
    assert normalise("Zürich ÉCOLE Straße Søren") == "zurich ecole strasse soren"


@pytest.mark.parametrize("query", ["zurich", "ZURICH", "Zürich", "zÜrIcH"])
def test_search_ignores_case_and_accents(client, small, query):
    assert sorted(shortcodes(listing(client, f"q={query}"))) == ["0A01", "0A02"]


def test_every_word_must_match(client, small):
    assert shortcodes(listing(client, "q=zurich+prints")) == ["0A02"]
    assert shortcodes(listing(client, "q=zurich+geneva")) == []


def test_search_covers_keywords_disciplines_coverage_and_contributors(client, small):
    assert shortcodes(listing(client, "q=fotografie")) == ["0A01"]
    assert shortcodes(listing(client, "q=art+history")) == ["0A01"]
    assert sorted(shortcodes(listing(client, "q=neuchatel"))) == ["0A01", "0A02", "0A03"]  # spatial coverage
    assert shortcodes(listing(client, "q=muller")) == ["0A01"]  # a contributor's name
    assert sorted(shortcodes(listing(client, "q=sommer"))) == ["0A02", "0A03"]


def test_relevance_ranks_name_matches_first(client, small):
    assert shortcodes(listing(client, "q=zurich")) == ["0A01", "0A02"]


def test_result_count_and_no_results_message(client, small):
    assert listing(client, "q=zurich").xpath("//h2[@id='results-heading']/text()") == ["2 projects"]
    empty = listing(client, "q=atlantis")
    assert empty.xpath("//h2[@id='results-heading']/text()") == ["No projects match"]
    assert empty.xpath("//a[@class='clear-all'][@href='/projects']")


def test_facets_count_within_the_search_and_the_other_filters(client, small):
    tree = listing(client)
    assert facet_counts(tree, "status") == {"Ongoing": 2, "Finished": 1}
    assert facet_counts(tree, "language") == {"de": 2, "fr": 1, "la": 1}
    assert facet_counts(tree, "discipline") == {"History": 2, "Art history": 1}

    searched = listing(client, "q=zurich")
    assert facet_counts(searched, "status") == {"Ongoing": 1, "Finished": 1}
    assert facet_counts(searched, "type") == {"Image": 1, "Text": 1}

    filtered = listing(client, "q=zurich&status=Ongoing")
    assert shortcodes(filtered) == ["0A02"]
    assert checked(filtered, "status") == ["Ongoing"]
    # A facet's own counts ignore its own selection (so the other values stay choosable)…
    assert facet_counts(filtered, "status") == {"Ongoing": 1, "Finished": 1}
    # …while the other facets count only what the selection leaves.
    assert facet_counts(filtered, "access") == {"Embargoed Access": 1}


def test_values_of_one_facet_combine_with_or_and_facets_with_and(client, small):
    assert sorted(shortcodes(listing(client, "language=la&language=fr"))) == ["0A02", "0A03"]
    assert shortcodes(listing(client, "language=la&language=fr&access=Full+Open+Access")) == ["0A03"]


def test_active_filters_can_be_removed_one_by_one(client, small):
    tree = listing(client, "q=zurich&status=Ongoing&type=Text")
    chips = tree.xpath("//div[@class='active-filters']//li/a")
    # The accessible name is the visible text plus a hidden "(remove)" (WCAG 2.5.3: the name contains the label).
    removers = {" ".join(chip.text_content().replace("\u00d7", "").split()): chip.get("href") for chip in chips}
    assert removers["Status: Ongoing (remove)"] == "/projects?q=zurich&type=Text"
    assert removers["Search: zurich (remove)"] == "/projects?status=Ongoing&type=Text"
    assert all(chip.get("aria-label") is None for chip in chips)


@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        ("name", ["0A01", "0A02", "0A03"]),
        ("name-desc", ["0A03", "0A02", "0A01"]),
        ("newest", ["0A02", "0A03", "0A01"]),
        ("oldest", ["0A01", "0A03", "0A02"]),
    ],
)
def test_sort_orders(client, small, sort, expected):
    tree = listing(client, f"sort={sort}")
    assert shortcodes(tree) == expected
    # The default order (name, without a search) is the option whose value is empty: left out of URLs.
    assert tree.xpath("//select[@name='sort']/option[@selected]/@value") == ["" if sort == "name" else sort]


def test_unknown_filter_values_match_nothing_and_are_shown(client, small):
    tree = listing(client, "status=Abandoned")
    assert shortcodes(tree) == []
    assert checked(tree, "status") == ["Abandoned"]


@pytest.mark.parametrize(
    "query",
    [
        "sort=random",
        "sort=name&sort=newest",
        "page=abc",
        "page=0",
        "page=-3",
        "page=2.5",
        "page=1&page=2",
        "q=" + "a" * 501,
        "&".join(f"type=t{i}" for i in range(51)),
    ],
)
def test_malformed_parameters_are_a_400_page(client, small, query):
    tree = listing(client, query, status=400)
    assert tree.xpath("//h1/text()") == ["Bad request"]


def test_corpus_pagination(client, install_catalog):
    catalog = install_catalog(CORPUS_DIR)
    first = listing(client)
    assert first.xpath("//h2[@id='results-heading']/text()") == [f"{len(catalog.projects)} projects, showing 1\u201320"]
    assert len(shortcodes(first)) == 20
    numbers = first.xpath("//nav[@aria-label='Pagination']//a/@href")
    assert "/projects?page=5" in numbers and "/projects?page=2" in numbers
    last = listing(client, "page=5")
    assert len(shortcodes(last)) == len(catalog.projects) - 80
    assert last.xpath("//a[@rel='prev']/@href") == ["/projects?page=4"] and not last.xpath("//a[@rel='next']")
    seen = [code for number in range(1, 6) for code in shortcodes(listing(client, f"page={number}"))]
    assert sorted(seen) == sorted(p.shortcode for p in catalog.projects)
    tree = listing(client, "page=6", status=404)
    assert tree.xpath("//h1/text()") == ["Page not found"]
    # A filtered listing keeps its state in the page links.
    filtered = listing(client, "status=Ongoing&sort=name-desc")
    assert "/projects?status=Ongoing&sort=name-desc&page=2" in filtered.xpath(
        "//nav[@aria-label='Pagination']//a/@href"
    )


def test_corpus_search_finds_accented_names(client, install_catalog):
    install_catalog(CORPUS_DIR)
    assert "0803" in shortcodes(listing(client, "q=fruhdrucke"))
    assert "0803" in shortcodes(listing(client, "q=FRÜHDRUCKE+basel"))


def test_one_relevance_sort_and_the_default_left_out_of_the_url(client, small):
    tree = listing(client, "q=zurich")
    options = tree.xpath("//select[@name='sort']/option/text()")
    assert options.count("Best match") == 1 and "Relevance" not in options
    assert tree.xpath("//select[@name='sort']/option[@selected]/@value") == [""]
    assert ListingQuery.from_params({"q": ["x"], "sort": ["relevance"]}).sort == ""
    assert ListingQuery.from_params({"sort": ["name"]}).sort == ""
    assert ListingQuery.from_params({"q": ["x"], "sort": ["name"]}).sort == "name"


@pytest.mark.parametrize(
    ("page", "count", "expected"),
    [
        (1, 5, [1, 2, 3, 4, 5]),  # not 1 2 3 … 5: a gap never hides a single page
        (1, 6, [1, 2, 3, None, 6]),
        (4, 7, [1, 2, 3, 4, 5, 6, 7]),
        (5, 10, [1, 2, 3, 4, 5, 6, 7, None, 10]),
        (1, 1, [1]),
    ],
)
def test_pagination_never_hides_a_single_page(page, count, expected):
    assert page_numbers(page, count) == expected
