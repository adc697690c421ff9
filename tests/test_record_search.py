"""Search and sort inside a project's records: the index and the /records page."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from lxml import html

from catalog.domain import engine
from catalog.domain.model import RecordTable, parse_timestamp
from catalog.domain.record_search import (
    PAGE_SIZE,
    ProjectRecordIndex,
    RecordQuery,
    natural_key,
    record_date,
    record_label,
    search_records,
)
from catalog.domain.search import BadQuery, PageOutOfRange
from tests.conftest import CORPUS_DIR

pytestmark = pytest.mark.usefixtures("static_assets")

ARK = "https://ark.dasch.swiss/ark:/72163/1/0001"


def _record(suffix: str, label: str, published: str | None = None, **extra: object) -> dict:
    record = {"id": f"http://rdfh.ch/0001/{suffix}", "pid": f"{ARK}/{suffix}", "label": {"en": label}, **extra}
    if published:
        record["datePublished"] = published
    return record


TABLE = RecordTable.build(
    "0001",
    [
        _record("aaa", "Folio 10r", "2020-01-01T00:00:00Z", typeOfData="Image"),
        _record("bbb", "Folio 2r", "2021-01-01T00:00:00Z", typeOfData="Text"),
        _record("ccc", "Zürich map", "2019-06-01T00:00:00Z", description={"de": "Karte der Stadt"}),
        _record("ddd", "Letter to Basel", None, keywords=[{"en": "Correspondence"}]),
        _record("eee", "folio 2v", "2022-01-01T00:00:00Z", typeOfData="Image"),
    ],
)
INDEX = ProjectRecordIndex.build(TABLE)
# Each table's engine index, with the table itself (so that its id is never another table's) and the
# temporary directory the index lives in (removed when the process ends).
_ENGINES: dict[int, tuple[RecordTable, tempfile.TemporaryDirectory[str], engine.EngineIndex]] = {}


def engine_of(table: RecordTable) -> engine.EngineIndex:
    """The search engine's index of one table's records (built once per table, kept for the session)."""
    if id(table) not in _ENGINES:
        directory = tempfile.TemporaryDirectory(prefix="svc-test-engine-")
        documents = (engine.record_document(table.record(i), i) for i in range(len(table)))
        engine.write_index(Path(directory.name) / "records", engine.RECORDS, documents)
        identifiers = engine.IdentifierTable(Path(directory.name) / engine.IDENTIFIERS)
        identifiers.write(table.pids)
        index = engine.EngineIndex(Path(directory.name) / "records", engine.RECORDS, identifiers)
        _ENGINES[id(table)] = (table, directory, index)
    return _ENGINES[id(table)][2]


def scores_of(table: RecordTable, text: str) -> np.ndarray | None:
    """The engine's score of each record for ``text`` (None without a search), as the pages hand them on."""
    found = engine_of(table).hits(engine.parse(text)) if text else None
    if found is None:
        return None
    scores = np.zeros(len(table), dtype=np.float32)
    scores[found[0]] = found[1]
    return scores


def labels(query: RecordQuery) -> list[str]:
    result = search_records(INDEX, query, scores_of(TABLE, query.text))
    return [json.loads(TABLE.document(p))["label"]["en"] for p in result.positions]


def test_natural_order_puts_2r_before_10r():
    assert sorted(["10r", "2r", "2v", "1"], key=natural_key) == ["1", "2r", "2v", "10r"]
    assert labels(RecordQuery()) == ["Folio 2r", "folio 2v", "Folio 10r", "Letter to Basel", "Zürich map"]
    assert labels(RecordQuery(sort="label-desc")) == [
        "Zürich map",
        "Letter to Basel",
        "Folio 10r",
        "folio 2v",
        "Folio 2r",
    ]


def test_dates_sort_both_ways_with_undated_last():
    assert labels(RecordQuery(sort="newest")) == ["folio 2v", "Folio 2r", "Folio 10r", "Zürich map", "Letter to Basel"]
    assert labels(RecordQuery(sort="oldest")) == ["Zürich map", "Folio 10r", "Folio 2r", "folio 2v", "Letter to Basel"]


def test_identifier_order_is_pid_order():
    assert labels(RecordQuery(sort="identifier")) == [
        "Folio 10r",
        "Folio 2r",
        "Zürich map",
        "Letter to Basel",
        "folio 2v",
    ]


def test_words_match_whole_words_by_stem_accents_and_case_ignored():
    assert labels(RecordQuery("zurich")) == ["Zürich map"]
    assert labels(RecordQuery("KARTE")) == ["Zürich map"]  # description
    assert labels(RecordQuery("karten")) == ["Zürich map"]  # the German plural: one stem
    assert labels(RecordQuery("correspondences")) == ["Letter to Basel"]  # keywords, another form of the word
    assert labels(RecordQuery("folio image", "label")) == ["folio 2v", "Folio 10r"]  # typeOfData
    assert labels(RecordQuery("ccc")) == ["Zürich map"]  # the pid's last part
    assert labels(RecordQuery("olio")) == []  # inside a word is no match
    assert labels(RecordQuery("fol")) == []  # nor the start of one: a word is a word (or its stem)
    assert labels(RecordQuery("folio basel")) == []
    assert search_records(INDEX, RecordQuery("folio"), scores_of(TABLE, "folio")).total == 3


def test_a_typo_of_a_long_word_still_matches_and_short_words_must_be_exact():
    assert labels(RecordQuery("Lettter")) == ["Letter to Basel"]  # one letter too many
    assert labels(RecordQuery("Baesl")) == ["Letter to Basel"]  # two neighbours swapped
    assert labels(RecordQuery("mop")) == []  # three letters: no typo allowed


def test_relevance_is_the_default_order_with_a_search():
    assert RecordQuery("map").effective_sort == "relevance" and RecordQuery().effective_sort == "label"
    # A word in the label outranks the same word in the description.
    table = RecordTable.build(
        "0001", [_record("aaa", "Plan", description={"de": "Karte"}), _record("bbb", "Karte"), _record("ccc", "Nichts")]
    )
    result = search_records(ProjectRecordIndex.build(table), RecordQuery("karte"), scores_of(table, "karte"))
    assert [table.pids[p][-3:] for p in result.positions] == ["bbb", "aaa"]
    # An exact match ranks above a typo's.
    table = RecordTable.build(
        "0001", [_record("aaa", "Holzchnitt"), _record("bbb", "Holzschnitt"), _record("ccc", "Nothing")]
    )
    index = ProjectRecordIndex.build(table)
    result = search_records(index, RecordQuery("holzschnitt"), scores_of(table, "holzschnitt"))
    assert [table.pids[p][-3:] for p in result.positions] == ["bbb", "aaa"]


def test_pages_and_their_end():
    assert search_records(INDEX, RecordQuery(page=1), None).page_count == 1
    with pytest.raises(PageOutOfRange):
        search_records(INDEX, RecordQuery(page=2), None)


def _generated_table(count: int) -> RecordTable:
    """Records with repeated labels and dates (ties), a fifth undated, and words from a small vocabulary."""
    words = ["folio", "fol", "map", "karte", "brief", "letter", "zürich", "basel", "2r", "10v"]
    records = []
    for number in range(count):
        year = 1990 + (number * 7) % 23
        records.append(
            _record(
                f"r{(number * 7919) % count:05d}",
                f"{words[number % 10]} {number % 37}r",
                None if number % 5 == 0 else f"{year}-0{1 + number % 9}-01T00:00:00Z",
                description={"en": " ".join(words[(number * k) % 10] for k in (3, 5))},
            )
        )
    return RecordTable.build("0001", records)


def _reference_page(table: RecordTable, query: RecordQuery) -> tuple[int, list[int]]:
    """The page worked out record by record from the engine's matches, by the sorts' rules (no sort index)."""
    records = [(json.loads(table.document(p)), p) for p in range(len(table))]
    scores = scores_of(table, query.text)
    found = [p for _, p in records if scores is None or scores[p] > 0]
    label = {p: natural_key(record_label(record)) for record, p in records}
    date = {p: parse_timestamp(record_date(record)) for record, p in records}
    dated = sorted((p for p in found if date[p] is not None), key=lambda p: (date[p], p))
    undated = [p for p in found if date[p] is None]
    ordered = {
        "relevance": sorted(found, key=lambda p: (-scores[p], label[p], p))
        if scores is not None
        else sorted(found, key=lambda p: (label[p], p)),
        "label": sorted(found, key=lambda p: (label[p], p)),
        "label-desc": sorted(found, key=lambda p: (label[p], p))[::-1],
        "oldest": dated + undated,
        "newest": dated[::-1] + undated,
        "identifier": found,
    }[query.effective_sort]
    start = (query.page - 1) * PAGE_SIZE
    return len(found), ordered[start : start + PAGE_SIZE]


@pytest.mark.slow
@pytest.mark.parametrize("text", ["", "folio", "karte letter", "zürich", "2r", "folio -map", "nothing"])
@pytest.mark.parametrize("sort", RecordQuery.SORTS)
def test_every_page_of_every_sort_is_what_the_rules_give(text, sort):
    table = _generated_table(437)
    index = ProjectRecordIndex.build(table)
    total, _ = _reference_page(table, RecordQuery(text, sort, 1))
    assert total > 0 or text == "nothing"
    for page in range(1, max(1, -(-total // PAGE_SIZE)) + 1):
        query = RecordQuery(text, sort, page)
        result = search_records(index, query, scores_of(table, text))
        assert (result.total, list(result.positions)) == _reference_page(table, query), (text, sort, page)


def test_marks_show_the_matching_words_in_the_original_text():
    parts = engine.marker("zurich 2r").parts("Zürich, Folio 2r")
    assert parts == (("Zürich", True), (", Folio ", False), ("2r", True))
    assert engine.marker("").parts("Folio") == (("Folio", False),)


@pytest.mark.parametrize(
    "params", [{"sort": ["nope"]}, {"sort": ["label", "newest"]}, {"q": ["x" * 501]}, {"page": ["0"]}]
)
def test_bad_parameters_are_refused(params):
    with pytest.raises(BadQuery):
        RecordQuery.from_params(params)


def test_the_default_sort_is_left_out_of_the_url():
    query = RecordQuery.from_params({"q": [" folio "], "sort": ["relevance"], "page": ["2"]})
    assert query == RecordQuery("folio", "", 2)
    assert query.params(page=1) == [("q", "folio")]
    # Without a search the default is the label order; with one, the label order must be asked for.
    assert RecordQuery.from_params({"sort": ["label"]}) == RecordQuery()
    assert RecordQuery.from_params({"q": ["folio"], "sort": ["label"]}).params() == [("q", "folio"), ("sort", "label")]


# The page, on the real corpus ------------------------------------------------------------


@pytest.fixture
def corpus(install_catalog):
    return install_catalog(CORPUS_DIR)


def get(client, url: str, status: int = 200):
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    return html.fromstring(response.content)


def test_search_counts_highlights_and_keeps_its_state_in_links(client, corpus):
    table = corpus.records["0803"]
    tree = get(client, "/projects/0803/records?q=seitenbezeichnung&sort=newest")
    expected = sum(1 for i in range(len(table)) if "Seitenbezeichnung" in json.dumps(table.record(i)["label"]))
    heading = tree.xpath("string(//h2[@id='results-heading'])")
    assert heading.startswith(f"{expected} of {len(table)} records match")
    rows = tree.xpath("//table[@class='records']/tbody/tr")
    assert len(rows) == min(50, expected)
    assert all(row.xpath(".//mark/text()") == ["Seitenbezeichnung"] for row in rows)
    assert tree.xpath("//select[@name='sort']/option[@selected]/@value") == ["newest"]
    assert tree.xpath("//input[@name='q']/@value") == ["seitenbezeichnung"]
    assert tree.xpath("//link[@rel='canonical']/@href") == [
        "http://testserver/projects/0803/records?q=seitenbezeichnung&sort=newest"
    ]
    if expected > 50:
        assert tree.xpath("//a[@rel='next']/@href") == ["/projects/0803/records?q=seitenbezeichnung&sort=newest&page=2"]


def test_label_order_is_natural_on_the_page(client, corpus):
    tree = get(client, "/projects/0803/records?q=seitenbezeichnung")
    shown = [row.xpath("string(td[1])") for row in tree.xpath("//table[@class='records']/tbody/tr")]
    assert shown == sorted(shown, key=natural_key)


def test_no_match_and_bad_input(client, corpus):
    tree = get(client, "/projects/0803/records?q=zzzzqqq")
    assert tree.xpath("string(//h2[@id='results-heading'])") == "No records match"
    assert not tree.xpath("//table[@class='records']")
    get(client, "/projects/0803/records?sort=bogus", status=400)
    get(client, "/projects/0803/records?q=zzzzqqq&page=2", status=404)
    get(client, "/projects/0803/records?q=%00%ff", status=200)
