"""Discipline facet grouped by SNSF code with one label; language facet named, code kept in the URL."""

from __future__ import annotations

import pytest
from lxml import html

from catalog.domain import engine
from catalog.domain.loader import load_catalog
from catalog.domain.search import ListingQuery, SearchIndex, search
from tests.conftest import CORPUS_DIR


@pytest.fixture(scope="module")
def corpus():
    catalog = load_catalog(CORPUS_DIR)
    return SearchIndex.build(catalog), engine.build_temporary(catalog)


@pytest.fixture(scope="module")
def result(corpus):
    index, found_by = corpus
    return search(index, ListingQuery(), found_by)


def _facet(result, key):
    return next(facet for facet in result.facets if facet.key == key)


def test_each_snsf_code_is_one_value_with_the_canonical_label(result):
    values = {value.value: value for value in _facet(result, "discipline").values}
    assert values["10404"].label == "10404 Visual arts and Art history"
    assert values["10301"].label == "10301 General history (without pre- and early history)"
    # 5 spellings of 10404 in the corpus, of which "10404 Kunstgeschichte" and "10404 Art history" were lost before
    assert values["10404"].count == 16
    labels = [value.label for value in values.values()]
    assert len(labels) == len(set(labels))
    assert not any(label.startswith("10404 ") for key, label in zip(values, labels, strict=True) if key != "10404")


def test_selecting_a_code_finds_every_spelling(corpus):
    index, found_by = corpus
    found = search(index, ListingQuery.from_params({"discipline": ["10404"]}), found_by)
    assert found.total == 16


def test_language_facet_shows_names_and_keeps_codes(result):
    values = {value.value: value.label for value in _facet(result, "language").values}
    assert values["hy"] == "Armenian" and values["cop"] == "Coptic" and values["syr"] == "Syriac"
    assert values["x-cpa"] == "x-cpa"  # a private-use tag names no language: the code stays


@pytest.mark.usefixtures("static_assets")
def test_listing_folds_the_filters_with_a_no_js_show_more(client, install_catalog):
    install_catalog(CORPUS_DIR)
    tree = html.fromstring(client.get("/projects").content)
    # A checkbox and its label: CSS folds the filters on a phone unless it is checked, and always shows them on
    # a wide screen (tests/test_e2e_browser.py looks at both, with and without JavaScript).
    fold = tree.xpath("//aside[@class='facets']/input[@id='filters-unfold']")
    assert len(fold) == 1 and fold[0].get("checked") is None
    assert tree.xpath("string(//aside[@class='facets']/label[@for='filters-unfold'])") == "Filters"
    more = tree.xpath("//aside[@class='facets']//details[@class='more-values']/summary/text()")
    assert more and all(text.startswith("Show ") and text.endswith(" more") for text in more)
    checked = html.fromstring(client.get("/projects?language=cop").content)
    assert checked.xpath("//input[@id='filters-unfold']")[0].get("checked") is not None
    assert checked.xpath("//input[@name='language'][@value='cop']/following-sibling::label/text()")[0].startswith(
        "Coptic"
    )
