"""catalog.domain.temporal: temporal coverage entries resolved offline (SPEC §5.7)."""

from __future__ import annotations

from typing import Any

import pytest

from catalog.domain.temporal import TemporalCoverage, resolve

PERIODS: dict[str, Any] = {
    "closedSpan01": {"hasTimespan": [{"begin": {"at": "-945"}, "end": {"at": "-715"}}]},
    "oneYear00001": {"hasTimespan": [{"begin": {"at": "98"}, "end": {"at": "98"}}]},
    "openEnd00001": {"hasTimespan": [{"begin": {"at": "1914"}, "end": {"at": "not specified"}}]},
    "openStart001": {"hasTimespan": [{"begin": {"at": "not specified"}, "end": {"at": "1500"}}]},
    "noYears00001": {"hasTimespan": [{"end": {"at": "present"}}]},
}
ENRICHMENT: dict[str, Any] = {
    "19th century": {"date": "1801/1900", "source": "llm"},
    "Iron Age": {"date": "-800/-50", "source": "manual"},
    "300 BC": {"date": "-0300", "source": "llm"},
    "Swiss": {"date": None, "source": "unresolved"},
    "Forgotten": {"date": None, "source": "llm"},
    "Modern times": {"date": "1500/1849", "source": "chronontology"},
}


def chronontology(period: str, text: str | None = "A period", scheme: str = "https") -> dict[str, str]:
    entry = {"type": "Chronontology", "url": f"{scheme}://chronontology.dainst.org/period/{period}"}
    return entry if text is None else {**entry, "text": text}


@pytest.mark.parametrize(
    "entry, expected",
    [
        # A ChronOntology period with years at both ends: from the periods file, years padded.
        (chronontology("closedSpan01", "22nd dynasty"), TemporalCoverage("22nd dynasty", "-0945/-0715", False)),
        (chronontology("oneYear00001", None, "http"), TemporalCoverage("", "0098", False)),
        # The periods file wins over the enrichment for a closed span.
        (chronontology("closedSpan01", "19th century"), TemporalCoverage("19th century", "-0945/-0715", False)),
        # No usable years: the enrichment by name, then an open range.
        (chronontology("noYears00001", "Modern times"), TemporalCoverage("Modern times", "1500/1849", False)),
        (chronontology("openEnd00001", "Contemporary"), TemporalCoverage("Contemporary", "1914/..", False)),
        (chronontology("openStart001", "Before"), TemporalCoverage("Before", "../1500", False)),
        (chronontology("unknownPerio", "Swiss"), TemporalCoverage("Swiss", None, True)),
        (chronontology("unknownPerio", "Elsewhere"), TemporalCoverage("Elsewhere", None, False)),
        (chronontology("noYears00001", "Elsewhere"), TemporalCoverage("Elsewhere", None, False)),
        # Names: a reference's text, a language map's preferred text (then its others).
        (
            {"type": "Periodo", "url": "http://n2t.net/ark:/p0", "text": "Iron Age"},
            TemporalCoverage("Iron Age", "-0800/-0050", False),
        ),
        ({"de": "19. Jahrhundert", "en": "19th century"}, TemporalCoverage("19th century", "1801/1900", False)),
        ({"de": "Eisenzeit", "fr": "Iron Age"}, TemporalCoverage("Eisenzeit", "-0800/-0050", False)),
        ({"en": "300 BC"}, TemporalCoverage("300 BC", "-0300", False)),
        ({"en": "Forgotten"}, TemporalCoverage("Forgotten", None, False)),
        ({"en": "Unheard of"}, TemporalCoverage("Unheard of", None, False)),
        # A placeholder stands for a missing value: no name.
        ({"type": "URL", "url": "MISSING"}, TemporalCoverage("", None, False)),
        ({"en": "MISSING"}, TemporalCoverage("", None, False)),
    ],
)
def test_resolve(entry: dict[str, Any], expected: TemporalCoverage) -> None:
    assert resolve(entry, PERIODS, ENRICHMENT) == expected


def test_resolve_works_on_the_loaders_frozen_mappings() -> None:
    from catalog.domain.model import freeze

    entry = freeze(chronontology("closedSpan01"))
    assert resolve(entry, freeze(PERIODS), freeze(ENRICHMENT)).date == "-0945/-0715"
    assert resolve(freeze({"en": "Iron Age"}), freeze(PERIODS), freeze(ENRICHMENT)).date == "-0800/-0050"


def test_the_result_is_immutable() -> None:
    resolved = resolve({"en": "19th century"}, PERIODS, ENRICHMENT)
    with pytest.raises(AttributeError):
        resolved.date = "2000"  # type: ignore[misc]
