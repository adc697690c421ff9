"""Which attribution roles make a contributor a creator (SPEC §5.6).

Citations and JSON-LD name the creators; everyone else is a contributor.
Role strings are free text, sometimes compound ("Project Leader, Data
Collector") and in English, German or French.
"""

from __future__ import annotations

import re
from functools import lru_cache

from catalog.domain.model import Attribution, Project

# The repository that publishes every dataset: the creator of a project that names none.
REPOSITORY_PUBLISHER = "DaSCH"

# Roles that make an attribution a creator: project leader, principal
# investigator (PI), author, creator, and their German and French variants.
_CREATOR_ROLE = re.compile(
    r"""
    \b(?:co-?)?principal\s+investigator\b | \bpi\b
    | \b(?:research\s+)?project\s+lead(?:er)?\b | \bhead\s+of\s+(?:the\s+)?project\b
    | \b(?:co-?)?authors?\b | \bcreator\b
    | \bprojektleit(?:ung|er|erin)\b | \bautor(?:in)?\b | \burheber(?:in)?\b
    | \bchef(?:fe)?\s+de\s+projet\b | \bresponsable\s+(?:du|de)\s+projet\b | \bdirection\s+du\s+projet\b
    | \bauteure?s?\b | \bautrice\b | \bcr[ée]at(?:eur|rice)\b | \bchercheu(?:r|se)\s+principale?\b
    """,
    re.IGNORECASE | re.VERBOSE,
)

_ROLE_SEPARATORS = re.compile(r"[,;/&]|\band\b|\bund\b|\bet\b", re.IGNORECASE)


def role_parts(role: str) -> list[str]:
    """The single roles inside one role string ("Project Leader, Data Collector"), trimmed."""
    return [part.strip() for part in _ROLE_SEPARATORS.split(role) if part.strip()]


@lru_cache(maxsize=4096)
def is_creator_role(role: str) -> bool:
    """True when any part of one role string is a creator role."""
    return any(_CREATOR_ROLE.search(part) for part in role_parts(role))


def creator_attributions(project: Project) -> tuple[Attribution, ...]:
    """The attributions whose roles include a creator role, in stored order, one per contributor."""
    seen: set[str] = set()
    creators = []
    for attribution in project.attributions:
        if attribution.contributor_id not in seen and any(map(is_creator_role, attribution.roles)):
            seen.add(attribution.contributor_id)
            creators.append(attribution)
    return tuple(creators)
