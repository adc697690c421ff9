"""catalog.domain.engine: the query syntax, the analysis, marks and the index's lifecycle, without Django."""

from __future__ import annotations

import json
import logging
import os
import shutil
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest
import tantivy

from catalog.domain import engine
from catalog.domain.engine import Query, Term, parse
from catalog.domain.loader import load_catalog
from catalog.domain.stamp_processes import ProcessLost
from tests import datadir


def test_terms_phrases_exclusions_or_and_fields():
    assert parse("holzschnitt verwendet") == Query(((Term("holzschnitt"),), (Term("verwendet"),)))
    assert parse('"holzschnitt verwendet"') == Query(((Term("holzschnitt verwendet", phrase=True),),))
    assert parse('holzschnitt -seiten -"rote tinte"') == Query(
        ((Term("holzschnitt"),),), (Term("seiten"), Term("rote tinte", phrase=True))
    )
    assert parse("recto OR verso karte") == Query(((Term("recto"), Term("verso")), (Term("karte"),)))
    assert parse("title:Narrenschiff creator:Brant") == Query(
        ((Term("Narrenschiff", field="title"),), (Term("Brant", field="creator"),))
    )
    assert parse("year:1497") == Query(((Term("1497", field="year", years=(1497, 1497)),),))
    assert parse("year:2000-1990").groups[0][0].years == (1990, 2000)
    assert parse("creator: Brant  title:  Narrenschiff") == parse("creator:Brant title:Narrenschiff")
    assert parse("holzsch* -foli*") == Query(
        ((Term("holzsch*", truncated="holzsch"),),), (Term("foli*", truncated="foli"),)
    )
    assert parse("ab* holz-sch*").groups == ((Term("ab*"),), (Term("holz-sch*"),))  # too short, or two words


def test_marks_show_words_that_start_as_a_truncated_word_asks():
    assert engine.marker("Fruhdr*").parts("Die Frühdrucke") == (("Die ", False), ("Frühdrucke", True))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"unclosed quote', Query(((Term("unclosed"),), (Term("quote"),)))),  # the stray quote is dropped
        ("year:soon", Query(((Term("year:soon"),),))),  # not a year: plain words
        ("http://example.org", Query(((Term("http://example.org"),),))),
        ("OR", Query()),
        ("-", Query()),
        ("¿?!", Query()),
        ("a OR", Query(((Term("a"),),))),
        ("title:", Query(((Term("title:"),),))),  # a prefix with nothing after it
        ("year:abc", Query(((Term("year:abc"),),))),
        ("-\x00\x1b", Query()),
        ("\ufffd\ufffd", Query()),  # a lone surrogate in the URL, as Django decodes it
        ("OR b", Query(((Term("b"),),))),
    ],
)
def test_what_the_syntax_does_not_read_is_plain_words(text, expected):
    assert parse(text) == expected


def test_at_most_twenty_terms_count():
    assert len(parse(" ".join(f"w{n}" for n in range(50))).groups) == engine.MAX_TERMS


def test_analysis_stems_each_language_and_folds_accents_after():
    assert engine.analysed("de", "Holzschnitte") == engine.analysed("de", "Holzschnitt") == ("holzschnitt",)
    assert engine.analysed("de", "Frühdrucke") == engine.analysed("de", "Fruehdrucke") == ("fruhdruck",)
    assert engine.analysed("en", "films") == engine.analysed("en", "film") == ("film",)
    assert engine.analysed("fr", "Églises") == engine.analysed("fr", "eglise")
    assert engine.analysed("it", "manoscritti") == engine.analysed("it", "manoscritto")
    assert engine.analysed(engine.NAMES, "Gotthelfs") == ("gotthelfs",)  # names are never stemmed
    assert [engine.language_of(tag) for tag in ("de-CH", "fr", "la", None, "")] == ["de", "fr", "en", "en", "en"]


def test_one_edit_with_swapped_neighbours():
    within = engine._within_one_edit
    assert within("gotthelf", "gothelf") and within("holzschnitt", "holzscnitt") and within("basel", "baesl")
    assert within("karte", "karten") and within("karte", "karte")
    assert not within("karte", "kartell") and not within("basel", "lesab")


def test_marks_follow_the_engine_stems_and_typos_not_substrings():
    marker = engine.marker('holzscnitt "rote tinte" -seiten year:1497')
    parts = marker.parts("Die Holzschnitte, rote Tinte; Seiten 1497 Holzschnittkunst")
    assert [text for text, hit in parts if hit] == ["Holzschnitte", "rote", "Tinte"]
    assert engine.marker("").parts("text") == (("text", False),)


def test_a_snippet_is_cut_around_the_first_match():
    long_text = "Lorem ipsum " * 40 + "the Holzschnitte of Basel " + "dolor sit " * 40
    cut = engine.marker("holzschnitt").snippet(["no match here", long_text], length=80)
    assert cut[0] == ("…", False) and cut[-1] == ("…", False)
    assert ("Holzschnitte", True) in cut and sum(len(text) for text, _ in cut) < 120
    assert engine.marker("zzz").snippet(["nothing"]) == ()


@pytest.fixture
def catalog(tmp_path):
    records = {
        "0AA1": [
            datadir.record("0AA1", "a1", label="Derselbe Holzschnitt verwendet", datePublished="1999-01-01T00:00:00Z"),
            datadir.record("0AA1", "a2", label="Holzschnitte auf den Seiten", legalInfo={"authorship": ["Ana Müller"]}),
            datadir.record("0AA1", "a3", label="Karte", description={"fr": "Les églises de Genève"}),
        ]
    }
    projects = [datadir.project("0AA1", name="Frühdrucke")]
    return load_catalog(datadir.write_data_dir(tmp_path / "data", projects=projects, records=records))


def matched(search: engine.SearchEngine, text: str) -> list[int]:
    scores = search.record_scores(parse(text))
    assert scores is not None
    return [int(position) for position in scores.nonzero()[0]]


def test_the_records_index_answers_the_syntax(catalog):
    search = engine.build_temporary(catalog)
    assert matched(search, "holzschnitt") == matched(search, "HOLZSCHNITTE") == [0, 1]
    assert matched(search, '"holzschnitt verwendet"') == [0]
    assert matched(search, '"verwendet holzschnitt"') == []
    assert matched(search, "holzschnitt -seiten") == [0]
    assert matched(search, "verwendet OR seiten") == [0, 1]
    assert matched(search, "eglise geneve") == [2]  # French description, accents folded
    assert matched(search, "creator:muller") == [1] and matched(search, "creator:holzschnitt") == []
    assert matched(search, "title:holzschnitt") == [0, 1] and matched(search, "title:eglise") == []
    assert matched(search, "year:1999") == [0] and matched(search, "year:1990-1998") == []
    assert matched(search, "-seiten") == [0, 2]
    assert search.record_scores(parse("")) is None
    spelled = [search.project_scores(parse(text)) for text in ("fruhdrucke", "Fruehdrucke", "Frühdrucke")]
    assert all(scores is not None and list(scores) == [0] for scores in spelled)


def test_a_typo_scores_below_every_exact_match(catalog):
    search = engine.build_temporary(catalog)
    scores = search.record_scores(parse("holzschnitt OR karte"))
    assert scores is not None and len(scores.nonzero()[0]) == 3
    typo = search.record_scores(parse("holzscnitt"))
    assert typo is not None and 0 < typo.max() < scores[scores > 0].min()


def test_a_record_is_found_by_its_pids_last_part_case_aside_never_by_a_near_one_or_a_start(tmp_path):
    records = {
        "0AA1": [
            datadir.record("0AA1", "Xy7Kq9TzW2", label="Plan"),
            datadir.record("0AA1", "b-2", label="Karte"),
        ]
    }
    data_dir = datadir.write_data_dir(tmp_path / "data", projects=[datadir.project("0AA1")], records=records)
    search = engine.build_temporary(load_catalog(data_dir))
    assert matched(search, "Xy7Kq9TzW2") == matched(search, "xy7kq9tzw2") == [0]
    assert matched(search, "Xy7Kq9TzW3") == []  # one edit away: another pid
    assert matched(search, "xy7kq*") == []  # a start finds words of the texts, not pids
    assert matched(search, "b-2") == matched(search, '"b 2"') == [1]  # a pid's words, as names are analysed
    scores = search.record_scores(parse("Xy7Kq9TzW2 OR karte"))
    assert scores is not None and scores[0] > engine.IDENTIFIER_SCORE > scores[1]  # the record asked for first


def test_a_near_word_alone_scores_the_constant_every_match_gets_and_the_word_adds_its_bm25(catalog):
    search = engine.build_temporary(catalog)
    exact = search.record_scores(parse("holzschnitt"))
    typo = search.record_scores(parse("holzscnitt"))
    assert exact is not None and typo is not None
    assert list(typo[:2]) == [pytest.approx(engine.NEAR_SCORE)] * 2  # both labels found by the near word alone
    assert all(score > engine.NEAR_SCORE for score in exact[:2])


@pytest.fixture
def woodcuts(tmp_path):
    """A frequent word: 90 labels hold it (of several lengths, some twice), 30 a typo of it, 20 neither."""
    labels = [f"Holzschnitt {'Blatt ' * (i % 9)}{'Holzschnitt' if i % 4 == 0 else ''}" for i in range(90)]
    labels += [f"Holzscnitt {'Blatt ' * (i % 3)}" for i in range(30)] + [f"Karte {i}" for i in range(20)]
    records = {"0AA1": [datadir.record("0AA1", f"r{i:03d}", label=label) for i, label in enumerate(labels)]}
    projects = [datadir.project("0AA1", name="Holzschnitte")]
    return load_catalog(datadir.write_data_dir(tmp_path / "data", projects=projects, records=records))


def test_a_words_first_pages_are_found_among_its_own_items_in_the_order_of_every_match(woodcuts):
    search = engine.build_temporary(woodcuts)
    records, query = search.records, parse("holzschnitt")
    holding, every = records.holding(query), records.matching(query)
    assert holding is not None and every is not None
    first = records.page(every, "relevance", 0, 50)
    every_match = search.record_scores(query)
    assert every_match is not None and len(every_match.nonzero()[0]) == 120  # the word's 90 and its near word's 30
    found = records.page_holding(holding, 0, 50)
    assert found is not None and list(found) == list(first)
    assert list(records.page_holding(holding, 40, 80)) == list(records.page(every, "relevance", 40, 80))
    assert records.page_holding(holding, 50, 100) is None  # past the word's own items: the near word's follow
    assert records.holding(parse("holzschnitt blatt")) is None  # a near word of either would add to a score
    assert records.holding(parse("holzschnitt OR karte")) is None
    assert records.holding(parse('"holzschnitt blatt"')) is None  # no near words: the whole query is as cheap
    assert records.holding(parse("map")) is None  # under five letters: no near words


def test_a_page_among_the_words_own_items_is_refused_when_the_constant_rounds_two_scores_to_one(woodcuts, monkeypatch):
    monkeypatch.setattr(engine, "NEAR_SCORE", 2.0**30)  # far above the BM25 scores: every sum rounds to one
    search = engine.build_temporary(woodcuts)
    holding = search.records.holding(parse("holzschnitt"))
    assert holding is not None and search.records.page_holding(holding, 0, 50) is None


def test_a_process_making_documents_that_ended_before_chunks_are_asked_for_loses_the_index_with_a_reason(
    catalog, tmp_path, monkeypatch
):
    """A process killed in the first moment breaks the pool before its first chunks are asked for: that says the
    same as a chunk lost later, not a traceback (``svc stamp`` then exits 2 naming the search index)."""
    real = engine.forked_pool

    def broken(*arguments):
        pool = real(*arguments)
        with pytest.raises(BrokenProcessPool):
            pool.submit(os._exit, 1).result()
        return pool

    monkeypatch.setattr(engine, "forked_pool", broken)
    with pytest.raises(ProcessLost, match="a process making the search index's documents ended before its chunk"):
        engine.build_indexes(catalog, tmp_path / "index", catalog.data_version, processes=2)


def test_a_stamped_index_is_used_only_while_it_matches_the_data(catalog, caplog):
    data_dir = Path(catalog.data_dir)
    written = engine.write_stamped(catalog, data_dir)
    assert (data_dir / ".svc" / "search").resolve() == written
    assert engine.unusable(engine.index_directory(data_dir), catalog) is None
    with caplog.at_level(logging.WARNING):
        opened = engine.open_engine(catalog)
    assert opened.directory == written and not caplog.records
    # Stamped again on the same data: kept. On a damaged index: the link moves to a new one, the old is removed.
    assert engine.write_stamped(catalog, data_dir) == written
    (written / engine.META).write_text((written / engine.META).read_text().replace('"format"', '"formats"'))
    again = engine.write_stamped(catalog, data_dir)
    assert again != written and not written.exists() and (data_dir / ".svc" / "search").resolve() == again

    other = load_catalog(data_dir)
    object.__setattr__(other, "data_version", "another")
    assert "the data changed" in str(engine.unusable(engine.index_directory(data_dir), other))
    meta = json.loads((again / engine.META).read_text())
    damaged = again / next(name for name in meta["files"] if name.startswith("records/"))
    raw = bytearray(damaged.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    damaged.write_bytes(bytes(raw))
    assert "damaged" in str(engine.unusable(engine.index_directory(data_dir), catalog))
    with caplog.at_level(logging.WARNING):
        rebuilt = engine.open_engine(catalog)
    assert rebuilt.directory != again and matched(rebuilt, "karte") == [2]
    [warning] = [r.getMessage() for r in caplog.records if r.name == "catalog.domain.engine"]
    assert "search index not used" in warning and "damaged" in warning and "svc stamp" in warning
    shutil.rmtree(data_dir / ".svc")
    assert "there is no search index" in str(engine.unusable(engine.index_directory(data_dir), catalog))
    assert not os.path.exists(rebuilt.directory) or rebuilt.directory.is_dir()


def _index_contents(directory: Path) -> tuple[dict[str, object], list[list[object]]]:
    """An index's meta but its files' checksums (tantivy names segments at random), and every document's numbers."""
    meta = json.loads((directory / engine.META).read_text())
    del meta["files"]
    searcher = tantivy.Index.open(str(directory / "records")).searcher()
    assert searcher.num_segments == 1
    addresses = [tantivy.DocAddress(0, doc) for doc in range(searcher.num_docs)]
    names = ("position", "year_from", *engine.RECORD_NUMBERS)
    return meta, [searcher.fast_field_values(name, addresses) for name in names]


def test_documents_made_by_forked_processes_make_the_same_index(tmp_path, monkeypatch):
    """`svc stamp` has two processes make the records' documents, a chunk at a time: same index as one process's."""
    from catalog.domain.all_records import all_records_index
    from tests.render_digests import make_synthetic

    corpus = load_catalog(make_synthetic(tmp_path / "data"))
    all_records_index(corpus)
    monkeypatch.setattr(engine._RecordsInProcesses, "DOCUMENTS", 150)  # 14 chunks, handed out to both in turn
    engine.build_indexes(corpus, tmp_path / "one", corpus.data_version)
    engine.build_indexes(corpus, tmp_path / "two", corpus.data_version, processes=2)
    one, two = _index_contents(tmp_path / "one"), _index_contents(tmp_path / "two")
    assert one[0]["ordered"] is True and one == two
    searched = [engine.SearchEngine(tmp_path / name) for name in ("one", "two")]
    for text in ("folio", "photogarph", '"register entry"', "map OR photograph -letter", "creator:muller"):
        first, second = (search.record_scores(parse(text)) for search in searched)
        assert first is not None and second is not None and first.tolist() == second.tolist()
