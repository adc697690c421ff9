"""The search engine end to end: a real `svc serve` over the real corpus, stamped, answering over HTTP.

The corpus is copied and stamped (`svc stamp` writes the search index beside
the snapshot), then served; every answer below is what a researcher's browser
or an API client receives.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest
from lxml import html

from tests.conftest import CORPUS_DIR, Server, run_svc, start_server, stop_server
from tests.http_support import fetch
from tests.ops_support import worker_pids, write_data_set


@pytest.fixture(scope="module")
def stamped_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data_dir = tmp_path_factory.mktemp("search-engine") / "data"
    shutil.copytree(CORPUS_DIR, data_dir)
    data_dir.chmod(0o755)
    stamped = run_svc("stamp", str(data_dir), "--activate-in", "0", timeout=300)
    assert stamped.returncode == 0, stamped.stderr
    return data_dir


@pytest.fixture(scope="module")
def server(stamped_corpus: Path) -> Iterator[Server]:
    served = start_server(stamped_corpus)
    yield served
    output = stop_server(served)
    assert "search index not used" not in output  # the stamped index was opened, not rebuilt


def records(server: Server, query: str, **params: str) -> dict:
    reply = fetch(server.base_url, "/api/v2/records?" + urlencode({"q": query, **params}))
    assert reply.status == 200, (query, reply.status)
    return json.loads(reply.body)


def labels(server: Server, query: str, **params: str) -> list[str]:
    """The labels of every record the search finds, in its order (all pages)."""
    found, page = [], 1
    while True:
        document = records(server, query, page=str(page), **params)
        found += [item["record"]["label"]["en"] for item in document["items"]]
        if page >= document["pageCount"]:
            return found
        page += 1


def page(server: Server, path: str) -> html.HtmlElement:
    reply = fetch(server.base_url, path)
    assert reply.status == 200, (path, reply.status)
    return html.fromstring(reply.body)


def projects(server: Server, query: str) -> list[str]:
    tree = page(server, "/projects?" + urlencode({"q": query}))
    return [text.strip() for text in tree.xpath("//ul[@class='cards']//span[@class='shortcode']/text()")]


HOLZSCHNITT = re.compile(r"\bholzschnitt(e|s|es)?\b", re.I)


def test_inflected_forms_find_the_same_records(server):
    found = labels(server, "holzschnitt")
    assert sorted(labels(server, "holzschnitte")) == sorted(found) == sorted(labels(server, "Holzschnitts"))
    exact = [label for label in found if HOLZSCHNITT.search(label)]
    assert len(exact) == 28  # every label with the word in one of its forms…
    assert set(found) - set(exact) == {"Derselbe Holzchnitt"}  # …and the one that misspells it (one edit)


def test_one_typo_finds_what_the_word_finds(server):
    typo = labels(server, "holzscnitt")
    assert sorted(typo) == sorted(label for label in labels(server, "holzschnitt") if HOLZSCHNITT.search(label))
    assert projects(server, "Gothelf") == ["0862"] == projects(server, "Gotthelf")
    assert projects(server, "Fruehdrucke") == ["0803"]
    assert projects(server, "Fruehdrucke") == projects(server, "fruhdrucke") == projects(server, "Frühdrucke")


def test_a_record_is_found_by_its_pid_as_written_never_by_a_near_one(server):
    pid = "https://ark.dasch.swiss/ark:/72163/1/0803/NNDkHRthUuKwfKVGaX7H7gY"
    found = records(server, "NNDkHRthUuKwfKVGaX7H7gY")
    assert [item["record"]["pid"] for item in found["items"]] == [pid]
    assert records(server, "nndkhrthuukwfkvgax7h7gy")["count"] == 1  # case folds
    assert records(server, "NNDkHRthUuKwfKVGaX7H7gZ")["count"] == 0  # one edit away: another identifier


def test_plural_and_singular_find_the_same_projects(server):
    assert set(projects(server, "films")) >= set(projects(server, "film")) and projects(server, "film")
    assert set(projects(server, "manuscripts")) >= set(projects(server, "manuscript")) and projects(
        server, "manuscript"
    )


def test_phrases_exclusions_or_and_fields(server):
    phrase = labels(server, '"holzschnitt verwendet"')
    assert len(phrase) == 2 and all("Holzschnitt verwendet" in label for label in phrase)
    assert records(server, "holzschnitt verwendet")["count"] == 15  # both words, anywhere
    without = labels(server, "holzschnitt -seiten")
    assert not any(re.search(r"\bSeiten\b", label) for label in without)
    # The 13 labels with the word and without "Seiten", and the misspelt "Holzchnitt" (a typo's match).
    assert len([label for label in without if HOLZSCHNITT.search(label)]) == 13 and len(without) == 14
    assert (
        records(server, "recto OR verso")["count"]
        == records(server, "recto")["count"]
        + records(server, "verso")["count"]
        - records(server, "recto verso")["count"]
    )
    assert records(server, "title:holzschnitt")["count"] == len(labels(server, "holzschnitt"))
    assert records(server, "year:2012")["count"] == records(server, "", year="2012")["count"] > 0
    assert projects(server, "creator:gotthelf") == ["0862"] == projects(server, "creator: Gotthelf")
    assert records(server, "creator:dasch")["count"] == records(server, "", creator="DaSCH")["count"] == 4198


SEARCHED = ("/records", "/projects", "/api/v2/records", "/api/v2/projects", "/projects/0803/records", "/records.csv")
# Quoted as they reach the server (a lone surrogate's UTF-8 bytes, control characters, a 500-character query).
NASTY = (
    "%22unclosed",
    "-",
    "--",
    "-%22",
    "OR",
    "OR+OR",
    "a+OR+OR+b",
    "-(-)",
    "%5C",
    "*:*",
    "title:",
    "creator:",
    "year:",
    "year:abc",
    "year:99999",
    "year:-",
    "creator:%22%22",
    "%00",
    "%01%02%1B",
    "holz%0Aschnitt",
    "%ED%A0%80",
    "x%ED%A0%80y",
    "title:%ED%A0%80",
    "%FF%FE",
    "%C0%AF",
    "%F0%9F%98%80",
    "a%E2%80%8Bb",
    "%22a+" * 166 + "ab",
)


@pytest.mark.parametrize("query", NASTY)
def test_a_query_the_syntax_cannot_read_is_never_an_error(server, query):
    for path in SEARCHED:
        assert fetch(server.base_url, f"{path}?q={query}").status == 200, path


def test_a_word_with_a_star_finds_every_word_that_starts_so_below_exact_matches(server):
    truncated = labels(server, "holzsch*")
    assert sorted(truncated) == sorted(label for label in labels(server, "holzschnitt") if HOLZSCHNITT.search(label))
    assert records(server, "holzsch")["count"] == 0  # without the star, a whole word
    assert records(server, "-holzsch*")["count"] == 4198 - len(truncated)
    assert labels(server, "ab*") == labels(server, "ab")  # under three letters: the plain word
    marks = set(page(server, "/records?q=holzsch*").xpath("//table[@class='records']//mark/text()"))
    assert marks == {"Holzschnitt", "Holzschnitte", "Holzschnittes", "Holzschnitts"}
    # An exact match ranks above a word that only starts so.
    assert projects(server, "film*") == [*projects(server, "film"), "081C"]  # 081C: "Filmwissenschaften"


def test_persons_and_organizations_are_searched_by_the_engine(server):
    def listed(path: str) -> list[str]:
        return [name.strip() for name in page(server, path).xpath("//ul[@class='entity-list']/li/a/text()")]

    zurich = listed("/organizations?q=zurich")
    assert listed("/organizations?q=Z%C3%BCrich") == zurich and len(zurich) == 17
    assert sorted(listed("/organizations?q=Zuerich")) == sorted(zurich)  # one edit away: the same, scored lower
    assert "ETH Zürich" in zurich
    assert sorted(listed("/organizations?q=univeristy+basel")) == sorted(listed("/organizations?q=university+basel"))
    assert sorted(listed("/persons?q=bernouli")) == sorted(listed("/persons?q=bernoulli"))
    assert sorted(listed("/persons?q=bernoull*")) == sorted(listed("/persons?q=bernoulli"))
    assert len(listed("/persons?q=bernoulli")) == 6
    tree = page(server, "/de/persons?q=gotthelf")
    assert tree.xpath("//select[@name='sort']/option[@selected]/text()") == ["Beste Treffer"]
    for path in ("/persons", "/organizations", "/clusters", "/collections"):
        for query in ("%22unclosed", "-", "year:abc", "%ED%A0%80", "%00", "creator:"):
            assert fetch(server.base_url, f"{path}?q={query}").status == 200, (path, query)


def test_what_the_syntax_cannot_read_is_searched_as_plain_words(server):
    assert records(server, '"holzschnitt verwendet')["count"] == records(server, "holzschnitt verwendet")["count"]
    assert labels(server, "holzschnitt -") == labels(server, "holzschnitt") == labels(server, "holzschnitt OR")
    assert labels(server, "holzschnitt\x00\x1b") == labels(server, "holzschnitt")
    assert records(server, "year:abc")["count"] == records(server, "year abc")["count"]
    assert records(server, "-")["count"] == records(server, "")["count"] == 4198  # nothing asked: every record
    too_long = fetch(server.base_url, "/records?" + urlencode({"q": "a" * 501}))
    assert too_long.status == 400 and b"longer than 500 characters" in too_long.body


def test_a_page_past_the_end_is_not_found_however_far(server):
    """A page number far past the end is a 404, never an allocation for that many hits (which aborted a worker)."""
    for path in ("/records", "/api/v2/records", "/projects/0803/records", "/projects"):
        for number in ("3", "999999999"):
            assert fetch(server.base_url, f"{path}?q=recto&page={number}").status == 404, (path, number)
    assert records(server, "recto", page="2")["count"] == 62  # the server answers on


def test_relevance_is_the_default_order_with_a_query_and_typos_rank_last(server):
    found = labels(server, "holzschnitt")
    assert found[-1] == "Derselbe Holzchnitt"  # the typo's match, below every exact one
    assert found[0] in {"Gleicher Holzschnitt", "Derselbe Holzschnitt", "identischer Holzschnitt"}  # short labels
    tree = page(server, "/records?q=holzschnitt")
    assert tree.xpath("//select[@name='sort']/option[@selected]/text()") == ["Best match"]
    for language, label in (("de", "Beste Treffer"), ("fr", "Meilleure correspondance"), ("it", "Più pertinenti")):
        for path in ("/records", "/projects", "/projects/0803/records"):
            translated = page(server, f"/{language}{path}?q=holzschnitt")
            assert translated.xpath("//select[@name='sort']/option[@selected]/text()") == [label], (language, path)
    assert page(server, "/records").xpath("//select[@name='sort']/option[@selected]/@value") == [""]
    by_label = labels(server, "holzschnitt", sort="label")
    assert by_label != found and sorted(by_label) == sorted(found)
    in_project = page(server, "/projects/0803/records?q=holzschnitt")
    shown = [row.xpath("string(td[1]/a)") for row in in_project.xpath("//table[@class='records']/tbody/tr")]
    # The same order on the project's own records page (equal scores may differ in the label's tail: the order
    # across projects compares the first 48 bytes of a label).
    assert sorted(shown) == sorted(found) and shown[-1] == found[-1] and shown[0] == found[0]


def test_hits_mark_the_matched_words(server):
    tree = page(server, "/records?q=holzscnitt+verwendet")
    marks = {text for text in tree.xpath("//table[@class='records']//mark/text()")}
    assert marks == {"Holzschnitt", "verwendet"}
    cards = page(server, "/projects?q=Narrenschiff")
    assert cards.xpath("//ul[@class='cards']//mark")
    snippet = cards.xpath("string(//ul[@class='cards']//p[@class='snippet'])")
    assert "Narrenschiff" in snippet
    german = page(server, "/de/projects?q=Fr%C3%BChdrucke")
    assert "Frühdrucke" in german.xpath("//ul[@class='cards']//mark/text()")


def json_link(tree: html.HtmlElement) -> str:
    [link] = tree.xpath("//link[@rel='alternate'][@type='application/json']/@href")
    return link


def test_this_page_as_json_keeps_the_search_filters_and_sort(server):
    tree = page(server, "/records?q=recto&type=Image&sort=newest")
    assert json_link(tree) == "/api/v2/records?q=recto&type=Image&sort=newest"
    assert tree.xpath("//footer//a[.='This page as JSON']/@href") == [json_link(tree)]
    document = json.loads(fetch(server.base_url, json_link(tree)).body)
    assert document["count"] == 44  # the 44 records the page shows, not all 4,198
    shown = [row.xpath("string(td[1]/a)") for row in tree.xpath("//table[@class='records']/tbody/tr")]
    assert [item["record"]["label"]["en"] for item in document["items"]] == shown
    in_project = page(server, "/projects/0803/records?q=recto&sort=newest")
    assert json_link(in_project) == "/api/v2/records?q=recto&project=0803&sort=newest"
    assert json.loads(fetch(server.base_url, json_link(in_project)).body)["count"] == 62
    listing = page(server, "/projects?q=basel&status=Finished")
    assert json_link(listing) == "/api/v2/projects?q=basel&status=Finished"
    found = json.loads(fetch(server.base_url, json_link(listing)).body)
    cards = [text.strip() for text in listing.xpath("//ul[@class='cards']//span[@class='shortcode']/text()")]
    assert cards and [project["shortcode"] for project in found][: len(cards)] == cards


def test_the_openapi_document_describes_the_search(server):
    document = json.loads(fetch(server.base_url, "/api/v2/openapi.json").body)
    parameters = document["components"]["parameters"]
    assert (
        "relevance" in parameters["sort"]["schema"]["enum"]
        and "relevance" in parameters["project_sort"]["schema"]["enum"]
    )
    assert '"a phrase"' in parameters["q"]["description"] and "typo" in parameters["q"]["description"]
    listed = {p["$ref"].rpartition("/")[2] for p in document["paths"]["/projects"]["get"]["parameters"]}
    assert {"project_q", "project_sort", "project_from", "project_to", "project_facet_status"} <= listed


def test_records_facets_by_creator_and_a_year_range_count_exactly(server):
    every = records(server, "")
    creators = {value["value"]: value["count"] for value in every["facets"]["creator"]}
    assert creators and sum(creators.values()) <= every["count"]
    for name, count in creators.items():
        assert records(server, "", creator=name)["count"] == count
    years = {value["value"]: value["count"] for value in every["facets"]["year"]}
    low, high = min(years), max(years)
    assert records(server, "", **{"from": low, "to": high})["count"] == sum(years.values())
    assert records(server, "", **{"from": low, "to": low})["count"] == years[low]
    narrowed = records(server, "recto", **{"from": low, "to": low})
    assert {value["value"] for value in narrowed["facets"]["year"]} <= {low}
    assert narrowed["count"] == records(server, "recto", year=low)["count"]
    tree = page(server, f"/records?q=recto&from={low}&to={low}")
    assert tree.xpath("//input[@name='from']/@value") == [low]
    assert tree.xpath("//div[@class='active-filters']//a[contains(., 'Years')]/@href") == ["/records?q=recto"]
    assert fetch(server.base_url, "/api/v2/records?from=").status == 400


def test_a_result_list_exports_as_csv_and_bibtex_from_its_page(server):
    """The records page links its result as CSV and BibTeX: its first 1,000 hits, in its order, its filters kept."""
    import csv
    import io

    tree = page(server, "/records?" + urlencode({"q": "holzschnitt", "sort": "label"}))
    links = {a.text_content().strip(): a.get("href") for a in tree.xpath("//p[@class='result-exports']/a")}
    assert set(links) == {"CSV", "BibTeX"}
    assert links["CSV"].startswith("/records.csv?") and "q=holzschnitt" in links["CSV"] and "sort=label" in links["CSV"]

    reply = fetch(server.base_url, links["CSV"])
    assert reply.status == 200 and reply.headers["content-type"].startswith("text/csv")
    assert reply.headers["content-disposition"] == 'attachment; filename="records.csv"'
    rows = list(csv.reader(io.StringIO(reply.body.decode())))
    assert rows[0] == ["project", "pid", "label", "type", "creators", "licence", "date", "url"]
    expected = labels(server, "holzschnitt", sort="label")
    assert [row[2] for row in rows[1:]] == expected and expected
    assert all(row[7].startswith(server.base_url + "/projects/") for row in rows[1:])

    bib = fetch(server.base_url, links["BibTeX"])
    assert bib.status == 200 and bib.headers["content-type"].startswith("application/x-bibtex")
    entries = re.findall(r"^@misc\{", bib.body.decode(), re.M)
    assert len(entries) == len(expected)

    # Filters, years and sort are the page's; at most the first 1,000 hits, whatever the page asked.
    everything = fetch(server.base_url, "/records.csv?page=3")
    assert everything.status == 200
    assert len(everything.body.decode().splitlines()) == 1 + 1000
    typed = fetch(server.base_url, "/records.csv?" + urlencode({"q": "recto", "type": "Image"}))
    assert len(typed.body.decode().splitlines()) - 1 == records(server, "recto", type="Image")["count"]
    assert fetch(server.base_url, "/records.csv?sort=nonsense").status == 400


def test_without_a_stamped_index_a_worker_started_later_searches_the_index_built_at_start(tmp_path: Path):
    """The index built at start belongs to the server: a worker's exit (a restart, a crash) never removes it.

    Unstamped data: the master builds the index once, before its workers fork. The only worker is stopped;
    the one gunicorn starts in its place must find what the first found, and the index is gone with the server.
    """
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    data = write_data_set(tmp_path / "data", ["0001", "0002"])
    server = start_server(data, {"SVC_WORKERS": "1", "TMPDIR": str(scratch)})
    try:
        assert json.loads(fetch(server.base_url, "/api/v2/records?q=0002-1").body)["count"] == 1
        (first,) = worker_pids(server.process.pid)
        os.kill(first, signal.SIGTERM)
        deadline = time.monotonic() + 60
        while worker_pids(server.process.pid) in ([], [first]):
            assert time.monotonic() < deadline, "no worker started in place of the stopped one"
            time.sleep(0.05)
        reply = fetch(server.base_url, "/api/v2/records?q=0002-1")
        assert reply.status == 200, reply.body[:300]
        assert [item["record"]["pid"] for item in json.loads(reply.body)["items"]] == ["0002-1"]
        assert [path.name[:11] for path in scratch.iterdir()] == ["svc-search-"]
    finally:
        output = stop_server(server)
    assert "Traceback" not in output, output
    assert list(scratch.iterdir()) == []
