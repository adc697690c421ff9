"""Which attribution roles make a contributor a creator (SPEC §5.6).

Citations and JSON-LD name the creators; everyone else is a contributor.
Role strings are free text, sometimes compound ("Project Leader, Data
Collector") and in English, German or French.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from catalog.model import Attribution, Project

# The repository that publishes every dataset: the creator of a project that names none.
REPOSITORY_PUBLISHER = "DaSCH"

CREATOR_ROLE_WORDS = frozenset(
    {
        "project leader",
        "project lead",
        "principal investigator",
        "principal investigator (pi)",
        "pi",
        "author",
        "creator",
        "projektleiter",
        "projektleiterin",
        "projektleitung",
        "autor",
        "autorin",
        "urheber",
        "urheberin",
        "chef de projet",
        "cheffe de projet",
        "responsable du projet",
        "direction du projet",
        "auteur",
        "auteure",
        "autrice",
        "créateur",
        "créatrice",
        "chercheur principal",
        "chercheuse principale",
    }
)

_ROLE_SEPARATORS = re.compile(r"\s*[,;/&]\s*|\s+and\s+|\s+und\s+|\s+et\s+")


def role_parts(role: str) -> list[str]:
    """The single roles inside one role string, trimmed and lowercased."""
    return [part for part in _ROLE_SEPARATORS.split(role.strip().lower()) if part]


def is_creator_role(roles: Iterable[str]) -> bool:
    return any(part in CREATOR_ROLE_WORDS for role in roles for part in role_parts(role))


def creator_attributions(project: Project) -> tuple[Attribution, ...]:
    """The attributions whose roles include a creator role, in stored order, one per contributor."""
    seen: set[str] = set()
    creators = []
    for attribution in project.attributions:
        if attribution.contributor_id not in seen and is_creator_role(attribution.roles):
            seen.add(attribution.contributor_id)
            creators.append(attribution)
    return tuple(creators)
