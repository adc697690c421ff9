"""catalog.pages.templatetags.catalog_tags: a facet's checkboxes, capped where the facet has a page of its own."""

from __future__ import annotations

from django.utils import translation
from lxml import html

from catalog.domain.search import FacetResult, FacetValue
from catalog.pages.templatetags.catalog_tags import INLINE_VALUES, SHOWN_VALUES, facet_values

PAGES = {"creator": "/records/facets/creator?q=plan&creator=Author+070"}


def creators(count: int, selected: tuple[int, ...] = ()) -> FacetResult:
    """A creator facet of ``count`` values, most records first, those numbered in ``selected`` selected."""
    values = tuple(
        FacetValue(f"Author {number:03}", f"Author {number:03}", 2000 - number, number in selected)
        for number in range(1, count + 1)
    )
    return FacetResult("creator", "Creator", values)


def boxes(written: str) -> list[tuple[str, bool]]:
    """The (value, checked) of each checkbox written."""
    tree = html.fragment_fromstring(written, create_parent="div")
    return [(box.get("value"), box.get("checked") is not None) for box in tree.xpath(".//input[@type='checkbox']")]


def test_a_short_facet_is_written_as_before():
    written = facet_values(creators(9, selected=(9,)), "all-records", PAGES)
    assert written == (
        "<ul>\n"
        + "".join(
            f'<li><input type="checkbox" form="all-records" data-autosubmit id="f-creator-{n}" name="creator" '
            f'value="Author 00{n}"> <label for="f-creator-{n}">Author 00{n} <span class="count">({2000 - n})</span>'
            "</label></li>\n"
            for n in range(1, 9)
        )
        + '</ul>\n<details class="more-values" open><summary>Show 1 more</summary>\n<ul>\n'
        '<li><input type="checkbox" form="all-records" data-autosubmit id="f-creator-9" name="creator" '
        'value="Author 009" checked> <label for="f-creator-9">Author 009 <span class="count">(1991)</span>'
        "</label></li>\n</ul>\n</details>"
    )


def test_up_to_the_cap_a_facet_page_changes_nothing():
    facet = creators(INLINE_VALUES, selected=(3,))
    assert facet_values(facet, "all-records", PAGES) == facet_values(facet, "all-records")


def test_above_the_cap_the_first_values_are_written_then_a_link_to_every_value():
    written = facet_values(creators(1400), "all-records", PAGES)
    assert boxes(written) == [(f"Author {n:03}", False) for n in range(1, INLINE_VALUES + 1)]
    tree = html.fragment_fromstring(written, create_parent="div")
    assert tree.xpath("string(.//details/summary)") == f"Show {INLINE_VALUES - SHOWN_VALUES} more"
    assert tree.xpath(".//details/p[@class='all-values']/a/@href") == [PAGES["creator"]]
    assert tree.xpath("string(.//details/p[@class='all-values']/a)") == "All 1400 values"
    assert "&amp;creator=Author+070" in written  # the URL is escaped in the attribute


def test_a_selected_value_beyond_the_cap_is_still_written_and_checked():
    written = facet_values(creators(1400, selected=(2, 70, 1399)), "all-records", PAGES)
    shown = boxes(written)
    assert len(shown) == INLINE_VALUES + 2
    assert shown[-2:] == [("Author 070", True), ("Author 1399", True)]
    assert ("Author 002", True) in shown
    tree = html.fragment_fromstring(written, create_parent="div")
    assert tree.xpath(".//input[@value='Author 1399']/@id") == ["f-creator-1399"]  # its place in the facet
    assert len(tree.xpath(".//details[@open]")) == 1
    assert tree.xpath("string(.//details/summary)") == f"Show {INLINE_VALUES + 2 - SHOWN_VALUES} more"


def test_a_facet_without_a_page_of_its_own_writes_every_value():
    """The project listing's facets (a few hundred values at most) have no page of their own: nothing is cut."""
    written = facet_values(creators(120), "listing", {"project": "/records/facets/project"})
    assert len(boxes(written)) == 120 and "all-values" not in written


def test_the_link_counts_the_values_the_interface_language_s_way():
    with translation.override("de"):
        written = facet_values(creators(1400), "all-records", PAGES)
    assert "Alle 1.400 Werte" in written
