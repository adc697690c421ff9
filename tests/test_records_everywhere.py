"""`/records` and `/api/v2/records`: the search across every project's records, as a page and as JSON."""

from __future__ import annotations

import re

import pytest

from tests.conftest import CORPUS_DIR, tree_of

pytestmark = pytest.mark.usefixtures("static_assets")


@pytest.fixture
def corpus(install_catalog):
    return install_catalog(CORPUS_DIR)


def matches(tree) -> int:
    return int(re.match(r"[\d.,\s]+", tree.xpath("string(//h2[@id='results-heading'])")).group().strip())


def test_the_search_follows_the_records_page_rules(client, corpus):
    everywhere = tree_of(client.get("/records?q=recto"))
    in_project = tree_of(client.get("/projects/0803/records?q=recto"))
    assert matches(everywhere) == matches(in_project) == 62
    assert everywhere.xpath("//table[@class='records']//td/a/mark/text()")[0].lower().startswith("recto")
    projects = everywhere.xpath("//table[@class='records']/tbody/tr/td[2]/a/@href")
    assert projects and set(projects) == {"/projects/0803"}


def test_facets_narrow_count_and_live_in_the_url(client, corpus):
    tree = tree_of(client.get("/records?q=recto&type=Image"))
    assert matches(tree) == 44
    counts = {
        box.get("value"): box.getparent().xpath("string(label/span[@class='count'])")
        for box in tree.xpath("//input[@name='type']")
    }
    assert counts == {"Image": "(44)", "Text": "(18)"}  # counts ignore the facet's own selection
    assert tree.xpath("//input[@name='type'][@value='Image']/@checked") == ["checked"]
    assert {box.get("name") for box in tree.xpath("//aside//input[@form='all-records']")} == {
        "project",
        "type",
        "creator",
        "licence",
        "year",
        "from",
        "to",
    }
    chip = tree.xpath("//div[@class='active-filters']//a[contains(., 'Image')]/@href")
    assert chip == ["/records?q=recto"]
    assert tree.xpath("//meta[@name='robots']/@content") == ["noindex, follow"]


def test_the_german_page_translates_facets_and_types(client, corpus):
    tree = tree_of(client.get("/de/records?type=Image"))
    assert "Bild" in tree.xpath("string(//input[@name='type'][@value='Image']/following-sibling::label)")
    assert {"Projekt", "Datentyp", "Lizenz", "Jahr"} <= set(tree.xpath("//legend/text()"))


@pytest.mark.parametrize(("query", "status"), [("sort=random", 400), ("page=0", 400), ("page=99", 404)])
def test_bad_parameters_are_answered_clearly(client, corpus, query, status):
    assert client.get(f"/records?{query}").status_code == status


def test_the_api_answers_the_same_search_with_facets(client, corpus):
    document = client.get("/api/v2/records", {"q": "recto", "type": ["Image", "Text"], "page": "2"}).json()
    assert document["count"] == 62 and document["page"] == 2 and document["pageCount"] == 2
    assert len(document["items"]) == 12 and {item["project"] for item in document["items"]} == {"0803"}
    assert document["previous"].endswith("/api/v2/records?q=recto&type=Image&type=Text")
    assert {value["value"]: value["count"] for value in document["facets"]["type"]} == {"Image": 44, "Text": 18}
    assert client.get("/api/v2/records", {"q": ["a", "b"]}).status_code == 400
    assert client.get("/api/v2/records", {"colour": "red"}).status_code == 400
