"""Content negotiation: the one reading of ``Accept`` for every view that offers several media types.

RFC 9110 §12.5.1: each offered type takes the quality of the most specific
media range that matches it (``text/turtle`` before ``text/*`` before
``*/*``), and a quality of 0 means "not acceptable" (§12.4.2), so
``text/html;q=0, */*;q=0.1`` refuses HTML however wide the wildcard. Of what
remains, the highest quality wins, then the more specific range, then the
range named first, then the order the view offers. Nothing left: the view
answers 406. (Django's own negotiation drops the ``q=0`` ranges before
matching, so the wildcard re-admitted what they refused.)

Offered types are plain: parameters other than ``q`` are taken off before
matching (Django matched ``text/x-bibliography; style=apa`` only against a
type with the same parameters, so DOI resolvers got 406), and the ones that
choose a variant (a citation ``style``) are read with :func:`parameter`.
"""

from __future__ import annotations

import re
from functools import lru_cache

# A comma outside double quotes separates two media ranges (a quoted profile may hold commas).
_RANGES = re.compile(r',(?=(?:[^"]*"[^"]*")*[^"]*$)')
_PARAMETERS = re.compile(r';(?=(?:[^"]*"[^"]*")*[^"]*$)')


def _ranges(header: str) -> list[tuple[str, dict[str, str]]]:
    found = []
    for media_range in _RANGES.split(header):
        media_type, *parameters = _PARAMETERS.split(media_range)
        values = {}
        for parameter in parameters:
            name, _, value = parameter.partition("=")
            values[name.strip().lower()] = value.strip().strip('"')
        if media_type.strip():
            found.append((media_type.strip().lower(), values))
    return found


def _quality(value: str | None) -> float:
    """A range's ``q``: 1 when absent, unreadable or outside 0 to 1 (as Django reads it), to three decimals."""
    if value is None:
        return 1.0
    try:
        quality = float(value)
    except ValueError:
        return 1.0
    return round(quality, 3) if 0 <= quality <= 1 else 1.0


def _specificity(media_range: str, offered: str) -> int | None:
    """How specifically ``media_range`` names ``offered`` (2 exactly, 1 ``type/*``, 0 ``*/*``); None: not at all."""
    main, _, sub = media_range.partition("/")
    offered_main, _, offered_sub = offered.partition("/")
    if not main or not sub:
        return None
    if main == "*":
        return 0 if sub == "*" else None
    if main != offered_main:
        return None
    if sub == "*":
        return 1
    return 2 if sub == offered_sub else None


@lru_cache(maxsize=1024)
def preferred(header: str, offered: tuple[str, ...]) -> str | None:
    """The offered type the ``Accept`` header prefers, or None when it accepts none of them (a 406).

    Worked out once per header and offer: parsing costs more than the rest of a warm page, and
    clients send few distinct values.
    """
    ranges = [(media_range, _quality(parameters.get("q"))) for media_range, parameters in _ranges(header)]
    best: tuple[float, int, int, int] | None = None
    chosen = None
    for position, media_type in enumerate(offered):
        matching = [
            (specificity, quality, -order)
            for order, (media_range, quality) in enumerate(ranges)
            if (specificity := _specificity(media_range, media_type)) is not None
        ]
        if not matching:
            continue
        specificity, quality, order = max(matching)  # the most specific range decides, q=0 included
        rank = (quality, specificity, order, -position)
        if quality > 0 and (best is None or rank > best):
            best, chosen = rank, media_type
    return chosen


def parameter(header: str, media_type: str, name: str) -> str | None:
    """The value of parameter ``name`` of ``media_type``'s range in the header, if it has one."""
    for found, parameters in _ranges(header):
        if found == media_type and parameters.get(name):
            return parameters[name]
    return None
