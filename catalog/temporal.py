"""Resolve a project's temporal coverage entry to a date, offline (SPEC §5.7).

An entry is a language map (``{"en": "Late Middle Ages"}``) or an authority
reference (``{"type": "Chronontology", "url": …, "text": …}``). A ChronOntology
period URL resolves through ``chronontology-periods.json`` (keyed by the URL's
last path segment); any other name, and a period missing from that file,
through ``temporal-coverage-enrichment.json`` (keyed by the name). What
resolves nowhere keeps its name only. Dates are W3CDTF years or ``start/end``
ranges; an unknown side of a range is open (``..``, ISO 8601-2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from catalog.model import Frozen, is_placeholder, language_items, pick_language

CHRONONTOLOGY_HOST = "chronontology.dainst.org"
OPEN = ".."


@dataclass(frozen=True, slots=True)
class TemporalCoverage:
    name: str
    date: str | None
    # The enrichment file marks the name as known to have no date
    # (``"source": "unresolved"``), so a missing date is not an error.
    unresolved_ack: bool = False


def resolve(entry: Frozen, periods: Mapping[str, Frozen], enrichment: Mapping[str, Frozen]) -> TemporalCoverage:
    names = _names(entry)
    name = names[0] if names else ""
    if isinstance(entry, Mapping) and _is_chronontology(entry.get("url")):
        date = _period_date(periods.get(entry["url"].rstrip("/").rpartition("/")[2]))
        if date:
            return TemporalCoverage(name, date)
    unresolved_ack = False
    for candidate in names:
        found = enrichment.get(candidate)
        if isinstance(found, Mapping):
            date = found.get("date")
            if isinstance(date, str) and date.strip() and not is_placeholder(date):
                return TemporalCoverage(name, date.strip())
            unresolved_ack = unresolved_ack or found.get("source") == "unresolved"
    return TemporalCoverage(name, None, unresolved_ack)


def _names(entry: Frozen) -> list[str]:
    """The entry's names, the preferred language first; a bare reference is named by its URL."""
    if isinstance(entry, Mapping) and ("url" in entry or "type" in entry):
        text = entry.get("text")
        if isinstance(text, str) and text.strip() and not is_placeholder(text):
            return [text.strip()]
        url = entry.get("url")
        return [url.strip()] if isinstance(url, str) and url.strip() and not is_placeholder(url) else []
    first = pick_language(entry)
    texts = [text.strip() for _, text in language_items(entry) if not is_placeholder(text) and text.strip()]
    if first and not is_placeholder(first):
        texts.insert(0, first.strip())
    return list(dict.fromkeys(texts))


def _is_chronontology(url: Frozen) -> bool:
    return isinstance(url, str) and CHRONONTOLOGY_HOST in url


def _period_date(period: Frozen) -> str | None:
    """``begin/end`` of a period's first timespan; None when neither side is known."""
    if not isinstance(period, Mapping):
        return None
    spans = period.get("hasTimespan")
    if not isinstance(spans, tuple) or not spans or not isinstance(spans[0], Mapping):
        return None
    begin, end = (_year(spans[0].get(side)) for side in ("begin", "end"))
    if begin is None and end is None:
        return None
    if begin == end:
        return begin
    return f"{begin or OPEN}/{end or OPEN}"


def _year(point: Frozen) -> str | None:
    """A W3CDTF year (``-2200``, ``0098``) from ``{"at": "…"}``; "not specified" is unknown."""
    if not isinstance(point, Mapping):
        return None
    value = point.get("at")
    if isinstance(value, int) and not isinstance(value, bool):
        year = value
    elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
        year = int(value.strip())
    else:
        return None
    return f"-{-year:04d}" if year < 0 else f"{year:04d}"
