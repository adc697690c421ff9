"""catalog.domain.search: normalising, query parsing, ranking, facets and pages, without Django."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from catalog.domain import engine
from catalog.domain.loader import load_catalog
from catalog.domain.model import Project
from catalog.domain.search import (
    MAX_FILTER_VALUES,
    BadQuery,
    IndexedProject,
    ListingQuery,
    PageOutOfRange,
    SearchIndex,
    normalise,
    page_numbers,
    pagination,
    parse_page,
    rank,
    search,
)
from tests import datadir
from tests.api_data_sets import write_small_data_set


def test_normalise_folds_case_and_accents():
    assert normalise("Zürich ÉCOLE") == normalise("zurich ecole") == "zurich ecole"


@pytest.mark.parametrize(
    ("values", "page"),
    [([], 1), ([""], 1), (["3"], 3), ([" 7 "], 7), (["", "2"], 2), (["007"], 7), (["1234567890"], 1234567890)],
)
def test_parse_page(values, page):
    assert parse_page(values) == page


@pytest.mark.parametrize("values", [["0"], ["-1"], ["x"], ["1.5"], ["٣"], ["²"], ["+1"], ["1e3"], ["1", "2"]])
def test_parse_page_refuses(values):
    with pytest.raises(BadQuery):
        parse_page(values)


def test_query_from_params_is_canonical():
    query = ListingQuery.from_params({"q": [" alps ", "maps"], "sort": ["newest"], "page": ["2"]})
    assert (query.text, query.sort, query.page, query.filters) == ("alps maps", "newest", 2, ())
    assert query.url("/projects") == "/projects?q=alps+maps&sort=newest&page=2"
    assert query.url("/projects", page=1) == "/projects?q=alps+maps&sort=newest"
    assert ListingQuery().url("/projects") == "/projects"
    assert ListingQuery().effective_sort == "name" and ListingQuery(text="x").effective_sort == "relevance"


@pytest.mark.parametrize(
    "params",
    [
        {"sort": ["random"]},
        {"sort": ["name", "newest"]},
        {"q": ["x" * 501]},
        {"status": [str(n) for n in range(MAX_FILTER_VALUES + 1)]},
    ],
)
def test_query_from_params_refuses(params):
    with pytest.raises(BadQuery):
        ListingQuery.from_params(params)


@pytest.mark.parametrize(
    ("page", "count", "numbers"),
    [
        (1, 1, [1]),
        (1, 3, [1, 2, 3]),
        (1, 10, [1, 2, 3, None, 10]),
        (5, 10, [1, 2, 3, 4, 5, 6, 7, None, 10]),  # page 2 alone is shown, never hidden behind an ellipsis
        (6, 10, [1, None, 4, 5, 6, 7, 8, 9, 10]),
        (3, 5, [1, 2, 3, 4, 5]),
        (10, 10, [1, None, 8, 9, 10]),
        (4, 10, [1, 2, 3, 4, 5, 6, None, 10]),
    ],
)
def test_page_numbers_show_first_last_and_a_window(page, count, numbers):
    assert page_numbers(page, count) == numbers


def test_pagination_links():
    context = pagination(2, 3, lambda number: f"/p?page={number}")
    assert context["previous_url"] == "/p?page=1" and context["next_url"] == "/p?page=3"
    assert context["page_links"] == [(1, "/p?page=1"), (2, "/p?page=2"), (3, "/p?page=3")]
    assert pagination(1, 1, str)["previous_url"] is None and pagination(1, 1, str)["next_url"] is None


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    return load_catalog(write_small_data_set(tmp_path_factory.mktemp("data")))


@pytest.fixture(scope="module")
def index(catalog):
    return SearchIndex.build(catalog)


@pytest.fixture(scope="module")
def engine_(catalog):
    return engine.build_temporary(catalog)


def test_search_matches_every_word_accent_insensitively(index, engine_):
    result = search(index, ListingQuery(text="LIGHTHOUSE logbook"), engine_)
    assert [entry.project.shortcode for entry in result.items] == ["0A0F"]
    assert search(index, ListingQuery(text="lighthouse recipes"), engine_).total == 0


def test_search_without_text_lists_every_project_by_name(index, engine_):
    result = search(index, ListingQuery(), engine_)
    assert [entry.project.shortcode for entry in result.items] == ["0A0F", "0b1c"]  # Lighthouse…, Recipes…
    assert (result.total, result.page, result.page_count) == (2, 1, 1)
    assert search(index, ListingQuery(sort="name-desc"), engine_).items[0].project.shortcode == "0b1c"


def test_search_past_the_last_page(index, engine_):
    with pytest.raises(PageOutOfRange):
        search(index, ListingQuery(page=2), engine_)


def test_the_year_range_keeps_projects_that_ran_in_it():
    from catalog.domain.search import BadQuery, ListingQuery

    query = ListingQuery.from_params({"from": ["1990"], "to": ["2000"]})
    assert query.years == (1990, 2000) and query.url("/projects") == "/projects?from=1990&to=2000"
    for bad in ({"from": ["19x0"]}, {"to": ["0"]}, {"from": ["1990", "1991"]}):
        with pytest.raises(BadQuery):
            ListingQuery.from_params(bad)


def _entry(name: str, start: str) -> IndexedProject:
    project = Project.from_raw({"id": name, "shortcode": name[:4].upper(), "name": name})
    return IndexedProject(project, (), name, start)


def test_rank_orders_by_relevance_name_or_start_with_undated_projects_last():
    entries = (
        _entry("alpha", "2001-05-01"),
        _entry("beta", ""),
        _entry("gamma", "1999-01-01"),
    )
    index = SearchIndex(entries, by_name=(0, 1, 2), by_start=(2, 0, 1))
    every = {0, 1, 2}
    assert rank(index, every, "name", None) == [0, 1, 2]
    assert rank(index, every, "name-desc", None) == [2, 1, 0]
    assert rank(index, every, "oldest", None) == [2, 0, 1]
    assert rank(index, every, "newest", None) == [0, 2, 1]
    assert rank(index, {1, 2}, "newest", None) == [2, 1]
    # Relevance is the engine's score, best first; equal scores in name order; without a search, name order.
    assert rank(index, every, "relevance", {0: 1.5, 1: 3.0, 2: 1.5}) == [1, 0, 2]
    assert rank(index, every, "relevance", None) == [0, 1, 2]


def test_years_active_counts_what_the_year_range_lists(tmp_path):
    from catalog.domain.search import years_active

    projects = [
        datadir.project("0AA1", startDate="2018-01-01", endDate="2020-06-30"),
        datadir.project("0AA2", startDate="2019-05-01", endDate=None, status="Finished"),  # open: runs to 2021
        datadir.project("0AA3", startDate="2021-01-01", endDate="2021-12-31"),
        datadir.project("0AA4", startDate=None, endDate=None),  # undated: in no year
    ]
    catalog = load_catalog(datadir.write_data_dir(tmp_path, projects=projects))
    index, found_by = SearchIndex.build(catalog), engine.build_temporary(catalog)
    counts = years_active(index, ListingQuery(), span=100)
    assert counts == {2018: 1, 2019: 2, 2020: 2, 2021: 2}
    for year, count in counts.items():
        assert search(index, ListingQuery(years=(year, year)), found_by).total == count
    # The query's other parts narrow it (an open end runs to the latest year *they* name); its own years do not;
    # the span keeps the latest years.
    assert years_active(index, ListingQuery(filters=(("status", ("Finished",)),)), span=100) == {2019: 1}
    assert years_active(index, ListingQuery(years=(2018, 2018)), span=100) == counts
    assert years_active(index, ListingQuery(), span=2) == {2020: 2, 2021: 2}
    assert years_active(index, ListingQuery(text="nothing-matches"), span=100, scores={}) == {}


# Values a facet shows that differ only by case, with equal counts: their order must not follow the process's
# string hashing (PYTHONHASHSEED), or two workers or replicas would serve different bytes for one listing.
_TIED_FACET = """
import json
from collections import Counter
from catalog.domain.search import Facet, _facet_values
counts = Counter({"History of science": 2, "History of Science": 2, "art": 2, "Art": 2, "Zoology": 3})
print(json.dumps([value.value for value in _facet_values(Facet("d", "D", lambda project: ()), counts, ())]))
"""


def test_tied_facet_values_are_in_the_same_order_in_every_process():
    orders = {
        subprocess.run(
            [sys.executable, "-c", _TIED_FACET],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(6)
    }
    assert [json.loads(order) for order in orders] == [
        ["Zoology", "Art", "art", "History of Science", "History of science"]
    ]
