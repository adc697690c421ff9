"""Temporal coverage resolution (SPEC §5.7), offline, through the two optional data files."""

from __future__ import annotations

import pytest

from catalog.loader import load_catalog
from catalog.model import freeze
from catalog.temporal import TemporalCoverage, resolve
from tests.conftest import CORPUS_DIR

PERIODS = freeze(
    {
        "abc": {"hasTimespan": [{"begin": {"at": "-2200"}, "end": {"at": "-1700"}}]},
        "open-end": {"hasTimespan": [{"begin": {"at": "98"}, "end": {"at": "not specified"}}]},
        "open-start": {"hasTimespan": [{"end": {"at": "-4500"}}]},
        "one-year": {"hasTimespan": [{"begin": {"at": "1500"}, "end": {"at": "1500"}}]},
        "unknown": {"hasTimespan": [{"begin": {"at": "not specified"}}]},
    }
)
ENRICHMENT = freeze(
    {
        "Late Middle Ages": {"date": "1250/1500", "source": "llm"},
        "Spätmittelalter": {"date": "1251/1500", "source": "llm"},
        "Swiss": {"date": None, "source": "unresolved"},
        "Gothic (Medieval)": {"date": "1140/1500", "source": "chronontology"},
    }
)


def chronontology(period: str, text: str = "A period") -> dict:
    return freeze({"type": "Chronontology", "url": f"https://chronontology.dainst.org/period/{period}", "text": text})


@pytest.mark.parametrize(
    ("period", "date"),
    [("abc", "-2200/-1700"), ("open-end", "0098/.."), ("open-start", "../-4500"), ("one-year", "1500")],
)
def test_chronontology_periods_resolve_to_years(period, date):
    assert resolve(chronontology(period), PERIODS, ENRICHMENT) == TemporalCoverage("A period", date)


def test_a_period_missing_from_the_periods_file_resolves_by_name():
    entry = freeze(
        {"type": "Chronontology", "url": "http://chronontology.dainst.org/period/zzz/", "text": "Gothic (Medieval)"}
    )
    assert resolve(entry, PERIODS, ENRICHMENT) == TemporalCoverage("Gothic (Medieval)", "1140/1500")
    assert resolve(chronontology("unknown", "Nowhere"), PERIODS, ENRICHMENT) == TemporalCoverage("Nowhere", None)


def test_names_resolve_through_the_enrichment_file_in_any_language():
    assert resolve(freeze({"en": "Late Middle Ages"}), PERIODS, ENRICHMENT).date == "1250/1500"
    # The preferred language names the entry; any of its languages may resolve it.
    assert resolve(freeze({"en": "Unknown era", "de": "Spätmittelalter"}), PERIODS, ENRICHMENT) == TemporalCoverage(
        "Unknown era", "1251/1500"
    )
    periodo = freeze({"type": "Periodo", "url": "http://n2t.net/ark:/99152/p0qhb66tf8f", "text": "Late Middle Ages"})
    assert resolve(periodo, PERIODS, ENRICHMENT).date == "1250/1500"


def test_unresolved_names_keep_their_name_and_say_whether_that_is_acknowledged():
    assert resolve(freeze({"en": "Swiss"}), PERIODS, ENRICHMENT) == TemporalCoverage("Swiss", None, True)
    assert resolve(freeze({"en": "Atlantis"}), PERIODS, ENRICHMENT) == TemporalCoverage("Atlantis", None, False)
    assert resolve(freeze({"type": "URL", "url": "MISSING"}), PERIODS, ENRICHMENT) == TemporalCoverage("", None)


def test_every_corpus_entry_resolves_or_is_acknowledged():
    catalog = load_catalog(CORPUS_DIR)
    results = [
        resolve(entry, catalog.chronontology_periods, catalog.temporal_coverage_enrichment)
        for project in catalog.projects
        for entry in project.get("temporalCoverage")
    ]
    named = [result for result in results if result.name]
    assert len(named) == 140
    assert [r.name for r in named if r.date is None] == ["English (culture or style)", "Swiss"]
    assert all(r.unresolved_ack for r in named if r.date is None)
