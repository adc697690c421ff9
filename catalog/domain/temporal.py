"""Temporal coverage resolution (SPEC §5.7): a coverage entry -> period name and date.

Offline and framework-free, so that the validator (which reports entries that
resolve to nothing) and OAI-PMH (which emits DataCite ``date dateType="Coverage"``)
read the same answer.

Resolution order for one entry of a project's ``temporalCoverage``:

1. A ChronOntology period reference (``…chronontology.dainst.org/period/<id>``)
   resolves through ``chronontology-periods.json`` (keyed by ``<id>``) when that
   period has a timespan with a year at both ends.
2. Otherwise the entry's name resolves through
   ``temporal-coverage-enrichment.json`` (keyed by the name; a language map tries
   its preferred text first, then its other texts): its ``date`` is used when it
   is a year or a ``start/end`` range of years (written as below); an entry with ``date: null`` and
   ``source: "unresolved"`` is a known gap (``unresolved_ack``), not an error.
3. Otherwise a ChronOntology period with a year at one end only ("not
   specified" or "present" at the other) gives an open range, ``1914/..`` or
   ``../1500`` (ISO 8601-2 notation: W3CDTF has no open ranges).
4. Otherwise the entry has a name and no date.

Years are written the way the enrichment file writes them: a sign only when
negative, at least four digits (``-945`` -> ``-0945``, ``98`` -> ``0098``); a
span of one year is that year alone. Negative years are kept as the source
numbers them (no shift between historical BCE and ISO 8601 astronomical
numbering), as the enrichment file does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from catalog.domain.model import is_placeholder, language_items, pick_language

_CHRONONTOLOGY_PERIOD = re.compile(r"^https?://chronontology\.dainst\.org/period/([A-Za-z0-9_-]+)/?$")
_YEAR = re.compile(r"^-?[0-9]+$")
_YEARS = re.compile(r"^(-?[0-9]+)(?:/(-?[0-9]+))?$")  # a year or a start/end range of years
UNRESOLVED_SOURCE = "unresolved"


@dataclass(frozen=True, slots=True)
class TemporalCoverage:
    """One resolved entry: ``name`` is "" when the entry carries no name at all."""

    name: str
    date: str | None
    unresolved_ack: bool = False


def resolve(entry: Any, periods: Mapping[str, Any], enrichment: Mapping[str, Any]) -> TemporalCoverage:
    """Resolve one ``temporalCoverage`` entry (a language map or an authority reference)."""
    name = coverage_name(entry)
    period_id = chronontology_period_id(entry)
    period = periods.get(period_id) if period_id is not None else None
    closed = _period_span(period, closed=True)
    if closed is not None:
        return TemporalCoverage(name, closed, False)
    for candidate in _candidate_names(entry, name):
        known = enrichment.get(candidate)
        if not isinstance(known, Mapping):
            continue
        date = known.get("date")
        years = _YEARS.match(date.strip()) if isinstance(date, str) else None
        if years:
            return TemporalCoverage(name, _span(*(_w3cdtf(year) for year in years.groups() if year)), False)
        if date is None and known.get("source") == UNRESOLVED_SOURCE:
            return TemporalCoverage(name, None, True)
    return TemporalCoverage(name, _period_span(period, closed=False), False)


def coverage_name(entry: Any) -> str:
    """The period name: a reference's ``text``, or a language map's preferred text."""
    if isinstance(entry, Mapping) and "url" in entry:
        text = entry.get("text")
        return text.strip() if isinstance(text, str) and not is_placeholder(text) else ""
    name = pick_language(entry)
    return "" if is_placeholder(name) else name.strip()


def chronontology_period_id(entry: Any) -> str | None:
    """The period id of a ChronOntology reference (the URL's last segment), else None."""
    if not isinstance(entry, Mapping):
        return None
    url = entry.get("url")
    match = _CHRONONTOLOGY_PERIOD.match(url.strip()) if isinstance(url, str) else None
    return match.group(1) if match else None


def _period_span(period: Any, closed: bool) -> str | None:
    """The first timespan with a year at both ends (``closed``) or at one end only."""
    if not isinstance(period, Mapping):
        return None
    for span in period.get("hasTimespan") or ():
        begin, end = _year(span, "begin"), _year(span, "end")
        if closed and begin is not None and end is not None:
            return _span(begin, end)
        if not closed and (begin is None) != (end is None):
            return f"{begin}/.." if begin is not None else f"../{end}"
    return None


def _year(span: Any, side: str) -> str | None:
    bound = span.get(side) if isinstance(span, Mapping) else None
    at = bound.get("at") if isinstance(bound, Mapping) else None
    return _w3cdtf(at.strip()) if isinstance(at, str) and _YEAR.match(at.strip()) else None


def _w3cdtf(year: str) -> str:
    """``-945`` -> ``-0945``, ``98`` -> ``0098``: four digits at least, a sign only when negative."""
    number = int(year)
    return f"-{-number:04d}" if number < 0 else f"{number:04d}"


def _span(begin: str, end: str | None = None) -> str:
    return begin if end is None or end == begin else f"{begin}/{end}"


def _candidate_names(entry: Any, name: str) -> Iterator[str]:
    """The preferred name first, then the entry's texts in its other languages."""
    if name:
        yield name
    if isinstance(entry, Mapping) and "url" not in entry:
        for _, text in language_items(entry):
            if text.strip() != name:
                yield text.strip()
