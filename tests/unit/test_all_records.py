"""catalog.domain.all_records: one search over the records of every project, with the records page's rules."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import tantivy

from catalog.domain import engine
from catalog.domain.all_records import (
    AllRecordsIndex,
    AllRecordsQuery,
    AllRecordsResult,
    RecordsWithIndex,
    all_records_index,
    facet_page,
    label_sort_key,
    search_catalog,
    search_in_engine,
)
from catalog.domain.all_records import search_all_records as search_index
from catalog.domain.loader import load_catalog
from catalog.domain.record_search import RecordQuery, build_record_indexes, search_records
from catalog.domain.search import BadQuery, PageOutOfRange
from tests import datadir

CC_BY = {"license": {"licenseIdentifier": "CC BY 4.0", "licenseURI": "https://creativecommons.org/licenses/by/4.0"}}
CC_BY_DEED = {
    "license": {"licenseIdentifier": "CC BY 4.0", "licenseURI": "https://creativecommons.org/licenses/by/4.0/deed.de"}
}


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory):
    root: Path = tmp_path_factory.mktemp("all-records")
    records = {
        "0AA1": [
            datadir.record("0AA1", "a1", label="Folio 10r", typeOfData="Text", legalInfo=CC_BY),
            datadir.record("0AA1", "a2", label="Folio 2r", datePublished="2020-05-01T00:00:00Z"),
            datadir.record("0AA1", "a3", label="Zürich map", legalInfo=CC_BY_DEED),
        ],
        "0AA2": [
            datadir.record("0AA2", "b1", label="Folio 2v", typeOfData="Text", datePublished="2021-01-01T00:00:00Z"),
            datadir.record("0AA2", "b2", label="Portrait", datePublished=None, dateCreated=None),
        ],
    }
    projects = [datadir.project("0AA1"), datadir.project("0AA2", name="Alpine Portraits")]
    return load_catalog(datadir.write_data_dir(root, projects=projects, records=records))


@pytest.fixture(scope="module")
def index(catalog) -> AllRecordsIndex:
    return AllRecordsIndex.build(catalog, build_record_indexes(catalog.records))


@pytest.fixture(scope="module")
def engine_(catalog) -> engine.SearchEngine:
    return engine.build_temporary(catalog)


@pytest.fixture
def search_all_records(engine_):
    """The search of `/records`: the engine's scores for the text, then the index's facets, sorts and pages.

    With a text, tantivy's own answer (facets counted, page ordered inside it) must be the same, to the page.
    """

    def run(index: AllRecordsIndex, query: AllRecordsQuery) -> AllRecordsResult:
        try:
            result = search_index(index, query, engine_.record_scores(query.parsed) if query.text else None)
        except PageOutOfRange:
            if query.text:
                with pytest.raises(PageOutOfRange):
                    search_in_engine(index, query, engine_)
            raise
        if query.text:
            assert engine_.ordered
            assert search_in_engine(index, query, engine_) == result
        return result

    return run


def labels(catalog, result) -> list[str]:
    return [catalog.records[key].record(position)["label"]["en"] for key, position in result.hits]


def query(**params: str | list[str]) -> AllRecordsQuery:
    return AllRecordsQuery.from_params({k: v if isinstance(v, list) else [v] for k, v in params.items()})


def test_words_match_as_on_a_records_page_in_every_project(catalog, index, engine_, search_all_records):
    result = search_all_records(index, query(q="folio 2r OR 2v", sort="label"))
    assert labels(catalog, result) == ["Folio 2r", "Folio 2v"]  # natural order across projects
    assert labels(catalog, search_all_records(index, query(q="zurich"))) == ["Zürich map"]
    assert search_all_records(index, query(q="olio")).total == 0  # a word must be a word
    # The same rule as each project's own records page.
    indexes = build_record_indexes(catalog.records)
    per_project = sum(
        search_records(
            ix, RecordQuery("folio 2r OR 2v"), engine_.record_scores(engine.parse("folio 2r OR 2v"), key)
        ).total
        for key, ix in indexes.items()
    )
    assert per_project == 2


def test_relevance_is_the_default_order_of_a_search(catalog, index, search_all_records):
    assert query(q="folio").effective_sort == "relevance" and query().effective_sort == "label"
    best = labels(catalog, search_all_records(index, query(q="folio 2v OR map")))
    assert len(best) == 1 and best == ["Folio 2v"]
    assert labels(catalog, search_all_records(index, query(q="map OR portrait", sort="label"))) == [
        "Portrait",
        "Zürich map",
    ]


def test_sorts_run_across_projects(catalog, index, search_all_records):
    assert labels(catalog, search_all_records(index, query())) == [
        "Folio 2r",
        "Folio 2v",
        "Folio 10r",
        "Portrait",
        "Zürich map",
    ]
    newest = labels(catalog, search_all_records(index, query(sort="newest")))
    assert set(newest[:2]) == {"Folio 10r", "Zürich map"} and newest[2:] == ["Folio 2v", "Folio 2r", "Portrait"]
    by_identifier = search_all_records(index, query(sort="identifier")).hits
    assert [catalog.records[key].shortcode for key, _ in by_identifier] == ["0AA1"] * 3 + ["0AA2"] * 2


def test_facets_count_with_the_search_and_the_other_selections(catalog, index, search_all_records):
    result = search_all_records(index, query(q="folio", type="Text"))
    facets = {
        facet.key: {value.value: (value.count, value.selected) for value in facet.values} for facet in result.facets
    }
    assert result.total == 2
    assert facets["type"] == {"Text": (2, True), "Image": (1, False)}  # the type facet ignores its own selection
    assert facets["project"] == {"0AA1": (1, False), "0AA2": (1, False)}
    assert facets["licence"] == {"https://creativecommons.org/licenses/by/4.0/": (1, False)}
    assert facets["year"] == {"2021": (1, False), "2024": (1, False)}
    # A selection the search does not reach stays listed (count 0), after the values with records.
    nothing = search_all_records(index, query(q="portrait", project="0AA1"))
    shown = [(v.value, v.count, v.selected) for v in next(f for f in nothing.facets if f.key == "project").values]
    assert nothing.total == 0 and shown == [("0AA2", 1, False), ("0AA1", 0, True)]


def test_one_licence_is_one_value_however_its_uri_is_written(index):
    assert index.values["licence"] == ("https://creativecommons.org/licenses/by/4.0/",)
    assert int(index.totals["licence"][0]) == 2


def test_filters_combine_and_an_unknown_value_selects_nothing(catalog, index, search_all_records):
    assert labels(catalog, search_all_records(index, query(project="0AA2", type="Text"))) == ["Folio 2v"]
    assert labels(catalog, search_all_records(index, query(year=["2020", "2021"]))) == ["Folio 2r", "Folio 2v"]
    assert search_all_records(index, query(licence="nope")).total == 0


def test_pages_and_bad_parameters(index, search_all_records):
    with pytest.raises(PageOutOfRange):
        search_all_records(index, query(page="2"))
    with pytest.raises(BadQuery):
        query(sort="random")
    with pytest.raises(BadQuery):
        query(type=[str(n) for n in range(51)])


def test_the_label_key_orders_digit_runs_by_value():
    assert label_sort_key("Folio 2r") < label_sort_key("Folio 10r") < label_sort_key("folio 11")
    assert label_sort_key("Zürich") == label_sort_key("zurich")


def test_the_query_keeps_its_state_in_the_url():
    state = query(q="folio", type=["Text", "Image"], sort="newest", page="2")
    assert state.url("/records") == "/records?q=folio&type=Image&type=Text&sort=newest&page=2"
    assert state.url("/records", filters=state.without_filter("type", "Text"), page=1) == (
        "/records?q=folio&type=Image&sort=newest"
    )


def test_an_index_rebuilt_from_its_parts_answers_as_the_index(catalog, index, search_all_records):
    """What a snapshot stores (small values and arrays, here copied through bytes) is the whole index."""
    small, arrays = index.parts()
    copied = {name: np.frombuffer(array.tobytes(), dtype=array.dtype) for name, array in arrays.items()}
    rebuilt = AllRecordsIndex.from_parts(small, copied, build_record_indexes(catalog.records))
    for params in (
        {},
        {"q": "folio"},
        {"q": "folio -2r", "sort": "relevance"},
        {"sort": "newest", "type": "Text"},
        {"licence": "x", "sort": "label-desc"},
    ):
        assert search_all_records(rebuilt, query(**params)) == search_all_records(index, query(**params))


def test_records_that_bring_their_index_are_not_indexed_again(catalog, index):
    with_index = dataclasses.replace(catalog, records=RecordsWithIndex(catalog.records, index))
    assert all_records_index(with_index) is index
    assert dict(with_index.records) == dict(catalog.records)


def test_the_facets_alone_are_those_of_the_listing_without_a_search(index):
    from catalog.domain.all_records import all_records_facets

    for params in ({}, {"project": "0AA1"}, {"type": "Text", "year": "2020"}):
        assert all_records_facets(index, query(**params)) == search_index(index, query(**params), None).facets


RUNS = {"0AB1": 2, "0AB2": 0, "0AB3": 6, "0AB4": 2}  # records per project, laid out in this order


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, list[dict]], AllRecordsIndex]:
    """Four projects' records, one run each in the index (the second's record file is empty)."""
    kinds = ("Text", "Image", "Audio", "Video")
    records = {  # every project's records of their own type, in two years of their own
        shortcode: [
            datadir.record(shortcode, f"r{n}", typeOfData=kinds[i], datePublished=f"{2010 + 2 * i + n % 2}-03-01")
            for n in range(size)
        ]
        for i, (shortcode, size) in enumerate(RUNS.items())
    }
    projects = [datadir.project(shortcode) for shortcode in RUNS]
    catalog = load_catalog(datadir.write_data_dir(tmp_path_factory.mktemp("runs"), projects=projects, records=records))
    return records, AllRecordsIndex.build(catalog, build_record_indexes(catalog.records))


@pytest.mark.parametrize(
    "selected",
    [
        ["0AB1"],  # a run at the start
        ["0AB4"],  # a run at the end
        ["0AB3"],  # more than half the records: the two runs left out are counted
        ["0AB1", "0AB4"],  # two runs apart
        ["0AB1", "0AB3"],  # all but the last run
        ["0AB2"],  # no records
        ["0AB1", "0AB2", "0AB3", "0AB4"],
        ["nope"],
    ],
)
def test_a_project_selection_counts_each_selected_record_once(runs, selected):
    """Projects are selected and counted by their runs of records; the counts are those of the records themselves."""
    from catalog.domain.all_records import all_records_facets

    records, index = runs
    chosen = [record for shortcode in RUNS if shortcode in selected for record in records[shortcode]]
    expected = np.concatenate([np.full(size, shortcode in selected) for shortcode, size in RUNS.items()])
    assert index.selection("project", selected).tolist() == expected.tolist()
    facets = all_records_facets(index, query(project=selected), ("type", "year"))
    assert [facet.key for facet in facets] == ["type", "year"]
    assert {facet.key: {value.value: value.count for value in facet.values} for facet in facets} == {
        "type": Counter(record["typeOfData"] for record in chosen),
        "year": Counter(record["datePublished"][:4] for record in chosen),
    }
    assert search_index(index, query(project=selected), None).total == len(chosen)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory):
    """The 2,000-record generated corpus: many equal scores (labels of one shape), many facet values."""
    from tests.render_digests import make_synthetic

    corpus = load_catalog(make_synthetic(tmp_path_factory.mktemp("synthetic") / "data"))
    # Also in seven segments of 300 records: almost never in label order (tantivy orders segments by their random
    # identifiers), so tantivy cannot break ties by label: the matches are read out instead, to the same answer.
    directory = tmp_path_factory.mktemp("segments")
    engine.build_indexes(corpus, directory, corpus.data_version, segment_documents=300)
    return corpus, all_records_index(corpus), engine.build_temporary(corpus), engine.SearchEngine(directory)


def test_an_index_in_one_segment_is_in_label_order_one_in_several_is_checked(synthetic):
    _corpus, _index, whole, segments = synthetic
    assert whole.ordered and whole.records.searcher().num_segments == 1
    searcher = segments.records.searcher()
    assert searcher.num_segments == 7
    firsts = [searcher.fast_field_values("rank.label", [tantivy.DocAddress(s, 0)])[0] for s in range(7)]
    assert segments.ordered == (firsts == sorted(firsts))


@pytest.mark.parametrize(
    "ranks, ordered", [([0, 1, 2], True), ([1, 0, 2], False), ([0, 2, 1], False), ([0, 1, 3], False)]
)
def test_an_index_out_of_label_order_is_found_out(tmp_path, ranks, ordered):
    documents = [engine.Document(i, numbers={"rank.label": rank}) for i, rank in enumerate(ranks)]
    engine.write_index(tmp_path / "records", engine.RECORDS, documents)
    assert engine.in_label_order(tmp_path / "records") is ordered


@pytest.mark.parametrize(
    "params",
    [
        {"q": "folio"},
        {"q": "folio", "page": "3"},
        {"q": "map OR photograph", "sort": "label-desc", "page": "2"},
        {"q": "photogarph"},
        {"q": "holzscnitt", "sort": "newest"},
        {"q": "regist* OR phot*", "page": "2"},
        {"q": '"register entry"', "sort": "oldest"},
        {"q": "folio -5r", "sort": "identifier", "page": "2"},
        {"q": "-folio", "sort": "label"},
        {"q": "year:1990-2010 sheet"},
        {"q": "folio", "from": "1990", "to": "2015"},
        {"q": "letter", "type": ["Text", "Image"], "from": "2001"},
    ],
)
def test_tantivy_counts_orders_and_pages_as_the_matches_read_out(synthetic, params):
    _corpus, index, found, segments = synthetic

    def answer(engine_: engine.SearchEngine, asked: AllRecordsQuery) -> AllRecordsResult:
        return search_in_engine(index, asked, engine_) or search_index(
            index, asked, engine_.record_scores(asked.parsed)
        )

    first = query(**params)
    expected = search_index(index, first, found.record_scores(first.parsed))
    assert expected.total > 0
    assert search_in_engine(index, first, found) == expected
    assert answer(segments, first) == expected
    # Each facet's first value selected in turn: the counts of the others follow, its own do not change.
    for facet in expected.facets:
        if facet.values:
            selected = query(**{**params, "page": "1", facet.key: facet.values[0].value})
            narrowed = search_index(index, selected, found.record_scores(selected.parsed))
            assert search_in_engine(index, selected, found) == narrowed
            assert answer(segments, selected) == narrowed


def test_a_value_added_to_the_selections_keeps_them_as_the_url_gives_them():
    asked = query(q="folio", year="2020", type="Text")
    assert asked.with_filter("project", "0AA2") == (("project", ("0AA2",)), ("type", ("Text",)), ("year", ("2020",)))
    assert asked.with_filter("type", "Image") == query(type=["Text", "Image"], year="2020").filters
    assert asked.with_filter("type", "Text") == asked.filters  # already selected: nothing changes


def test_a_facet_page_lists_the_values_records_counts_for_the_same_search(catalog):
    asked = query(type="Image", sort="newest")
    counted = next(facet for facet in search_catalog(catalog, asked).facets if facet.key == "project")
    listed = facet_page(catalog, asked, "project")
    assert (listed.key, listed.total, listed.page_count) == ("project", 2, 1)
    assert listed.values == counted.values and [value.count for value in listed.values] == [2, 1]
    with pytest.raises(PageOutOfRange):
        facet_page(catalog, dataclasses.replace(asked, page=2), "project")
