"""Who created a project, in the data's own words (SPEC §5.6).

Citations, JSON-LD and both OAI formats name the creators; everyone else is
a contributor. Role strings are free text, often compound ("Project Leader,
Data Collector") and in English, German or French. Which roles lead a
project is data, not code: ``roles.toml`` beside this module.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from catalog.domain.model import Attribution, Project

# The repository that publishes every dataset: the creator of a project that names no leading role.
REPOSITORY_PUBLISHER = "DaSCH"

_VOCABULARY = tomllib.loads((Path(__file__).with_name("roles.toml")).read_text(encoding="utf-8"))
_LEADING = re.compile("|".join(f"(?:{p})" for ps in _VOCABULARY["leading"].values() for p in ps), re.IGNORECASE)
_NOT_LEADING = re.compile("|".join(f"(?:{p})" for p in _VOCABULARY["not_leading"]["patterns"]), re.IGNORECASE)

_ROLE_SEPARATORS = re.compile(r"[,;/&]|\band\b|\bund\b|\bet\b", re.IGNORECASE)


def role_parts(role: str) -> list[str]:
    """The single roles inside one role string ("Project Leader, Data Collector"), trimmed."""
    return [part.strip() for part in _ROLE_SEPARATORS.split(role) if part.strip()]


@lru_cache(maxsize=4096)
def is_leading_part(part: str) -> bool:
    """True when one single role (a part of a role string) leads the project."""
    return bool(_LEADING.search(part)) and not _NOT_LEADING.search(part)


@lru_cache(maxsize=4096)
def is_creator_role(role: str) -> bool:
    """True when any part of one role string is a leading role."""
    return any(is_leading_part(part) for part in role_parts(role))


@dataclass(frozen=True, slots=True)
class Credit:
    """One person or organisation of a project: creator or not, and the roles that are not leading."""

    contributor_id: str
    is_creator: bool
    other_roles: tuple[str, ...]  # whole role strings for contributors; the non-leading parts for creators


def project_credits(project: Project) -> tuple[Credit, ...]:
    """Everyone a project attributes, once each in stored order, with their roles merged.

    A creator keeps the roles that are not leading ("Project Leader, Data
    Curator" → creator, and contributor as "Data Curator").
    """
    roles_by_id: dict[str, list[str]] = {}
    for attribution in project.attributions:
        roles_by_id.setdefault(attribution.contributor_id, []).extend(attribution.roles)
    credits = []
    for contributor_id, roles in roles_by_id.items():
        if any(is_creator_role(role) for role in roles):
            others = [part for role in roles for part in role_parts(role) if not is_leading_part(part)]
            credits.append(Credit(contributor_id, True, tuple(dict.fromkeys(others))))
        else:
            credits.append(Credit(contributor_id, False, tuple(dict.fromkeys(roles))))
    return tuple(credits)


def creator_attributions(project: Project) -> tuple[Attribution, ...]:
    """The attributions with a leading role, in stored order, one per contributor.

    Empty means the project is credited to :data:`REPOSITORY_PUBLISHER`.
    """
    seen: set[str] = set()
    creators = []
    for attribution in project.attributions:
        if attribution.contributor_id not in seen and any(map(is_creator_role, attribution.roles)):
            seen.add(attribution.contributor_id)
            creators.append(attribution)
    return tuple(creators)
