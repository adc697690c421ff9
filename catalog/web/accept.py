"""Accept headers with media-type parameters, as DOI resolvers read them.

Django matches an accepted ``text/x-bibliography; style=apa`` only against an
offered type with the same parameters, so such a client got 406. Content
negotiation here offers plain types: parameters other than ``q`` are taken off
before matching, and the ones that choose a variant (a citation ``style``) are
read separately.
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


@lru_cache(maxsize=1024)
def without_parameters(header: str) -> str:
    """The header with each media range's parameters dropped, except its ``q``."""
    parts = []
    for media_type, parameters in _ranges(header):
        q = parameters.get("q")
        parts.append(f"{media_type};q={q}" if q is not None else media_type)
    return ", ".join(parts)


def parameter(header: str, media_type: str, name: str) -> str | None:
    """The value of parameter ``name`` of ``media_type``'s range in the header, if it has one."""
    for found, parameters in _ranges(header):
        if found == media_type and parameters.get(name):
            return parameters[name]
    return None
