"""Warnings of ``svc validate``: data that is valid but degrades the metadata harvesters receive.

Unlike findings, warnings do not make the data invalid (the exit status stays 0
unless ``--strict``); each says what the published metadata will lack and
names the file and JSON path to fix. The rules are the ones the OAI mapping
applies (``catalog.domain.roles``, ``catalog.domain.identifiers``,
``catalog.formats.vocabularies``), so a warning predicts exactly what a
harvester gets.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from catalog.domain.ledger import iso_time
from catalog.domain.model import PLACEHOLDERS, PROJECT_DATE_FIELDS, parse_timestamp
from catalog.domain.roles import REPOSITORY_PUBLISHER, is_creator_role
from catalog.domain.temporal import resolve
from catalog.formats.vocabularies import known_organisation, language_alpha3

# ISO 639-1 (two letters) or 639-2/-3 (three letters), optionally with BCP 47 subtags; not private use (x-…).
_ISO_639 = re.compile(r"[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*")
_CODED_LABEL = re.compile(r"\s*(\d{2,6})\b")  # "10404 Visual arts and Art history"


class Warn(StrEnum):
    """The kind of a warning (the ``check`` field of the JSON report)."""

    NO_LEADING_ROLE = "no-leading-role"
    SHARED_PID = "shared-pid"
    LANGUAGE_CODE = "language-code"
    DISCIPLINE_LABEL = "discipline-label"
    FUNDER_IDENTIFIER = "funder-identifier"
    PLACEHOLDER = "placeholder"
    UNDATED_COVERAGE = "undated-coverage"
    FUTURE_DATE = "future-date"


@dataclass(frozen=True, slots=True)
class MetadataWarning:
    file: str
    path: str
    message: str
    check: Warn


class Entity(Protocol):
    """An object read from an entity file (``validation.checks._Item``)."""

    kind: str
    file: str
    raw: dict[str, Any]

    @property
    def key(self) -> str | None: ...

    def path(self, *parts: str | int) -> str: ...


def future_date(raw: Mapping[str, Any], fields: Sequence[str], now: int) -> tuple[str, str] | None:
    """The field (and the message) of the date an item's OAI-PMH datestamp would come from, if it is after ``now``.

    Its own date is the datestamp of an item (SPEC §5.3) only until a release is served; svc never serves a
    datestamp later than the moment it serves the item, so it uses the release's activation time instead.
    """
    for name in fields:
        stamp = parse_timestamp(raw.get(name))
        if stamp is not None:
            if stamp <= now:
                return None
            return name, (
                f"{name} {iso_time(stamp)} is in the future: OAI-PMH never dates an item later than it is served,"
                " so harvesters get the release's activation time instead, and again with every release until then"
            )
    return None


def metadata_warnings(
    items: Mapping[str, Sequence[Entity]],
    periods: Mapping[str, Any] | None = None,
    enrichment: Mapping[str, Any] | None = None,
    now: int = 0,
) -> list[MetadataWarning]:
    """Every warning about the entities (records' own dates are checked as the records are read).

    ``periods`` and ``enrichment`` are the temporal-coverage files that resolve coverage to dates; ``now``
    is the moment a date is in the future from.
    """
    projects = items.get("project", ())
    organizations = {item.key: item for item in items.get("organization", ()) if item.key}
    persons = {item.key for item in items.get("person", ()) if item.key}
    found: list[MetadataWarning] = []
    for project in projects:
        found.extend(_leading_role(project))
        found.extend(_languages(project))
        found.extend(_undated_coverage(project, periods or {}, enrichment or {}))
        found.extend(_funders(project, organizations, persons))
        future = future_date(project.raw, PROJECT_DATE_FIELDS, now) if now else None
        if future is not None:
            found.append(_warning(project, (future[0],), future[1], Warn.FUTURE_DATE))
    found.extend(_shared_pids([item for kind in ("project", "cluster", "collection") for item in items.get(kind, ())]))
    found.extend(_discipline_labels(projects))
    for kind in ("project", "person", "organization", "cluster", "collection"):
        for item in items.get(kind, ()):
            found.extend(_placeholders(item))
    return found


def _warning(item: Entity, parts: Sequence[str | int], message: str, check: Warn) -> MetadataWarning:
    return MetadataWarning(item.file, item.path(*parts), message, check)


def _list(value: Any) -> list[tuple[int, Any]]:
    return list(enumerate(value)) if isinstance(value, list) else []


def _leading_role(project: Entity) -> Iterator[MetadataWarning]:
    roles = [
        role
        for _, attribution in _list(project.raw.get("attributions"))
        if isinstance(attribution, dict)
        for _, role in _list(attribution.get("contributorType"))
        if isinstance(role, str)
    ]
    if not any(is_creator_role(role) for role in roles):
        yield _warning(
            project,
            ("attributions",),
            f"no attribution has a leading role (project leader, principal investigator, applicant, author, …): "
            f"harvesters and citations get {REPOSITORY_PUBLISHER} as the creator",
            Warn.NO_LEADING_ROLE,
        )


def _languages(project: Entity) -> Iterator[MetadataWarning]:
    for position, code in _list(project.raw.get("dataLanguage")):
        if not isinstance(code, str):
            continue
        if code.lower().startswith("x-"):
            problem = "a private-use code, not an ISO 639 language code"
        elif not _ISO_639.fullmatch(code):
            problem = "not an ISO 639 language code"
        elif language_alpha3(code) is None:
            problem = "not a known ISO 639 language"
        else:
            continue
        yield _warning(
            project,
            ("dataLanguage", position),
            f"{code!r} is {problem}: harvesters get no language for it (pages show it as an unlisted language)",
            Warn.LANGUAGE_CODE,
        )


def _undated_coverage(
    project: Entity, periods: Mapping[str, Any], enrichment: Mapping[str, Any]
) -> Iterator[MetadataWarning]:
    """Coverage known to have no dates (source "unresolved"): search engines need ISO 8601 dates.

    Coverage that resolves to nothing unacknowledged is a finding (``temporal-coverage``), not this.
    """
    for position, entry in _list(project.raw.get("temporalCoverage")):
        if not isinstance(entry, dict):
            continue
        resolved = resolve(entry, periods, enrichment)
        if resolved.date is None and resolved.unresolved_ack:
            yield _warning(
                project,
                ("temporalCoverage", position),
                f"temporal coverage {resolved.name!r} has no dates: search engines get no temporalCoverage "
                "for it (the name stays a keyword and a dct:temporal label)",
                Warn.UNDATED_COVERAGE,
            )


def _funders(project: Entity, organizations: Mapping[str, Entity], persons: set[str]) -> Iterator[MetadataWarning]:
    for grant_position, grant in _list(project.raw.get("funding")):
        if not isinstance(grant, dict):
            continue
        for position, funder_id in _list(grant.get("funders")):
            if not isinstance(funder_id, str) or funder_id in persons:
                continue  # a person funds without a funder identifier; unknown ids are reference findings
            organization = organizations.get(funder_id)
            if organization is None:
                continue
            name = organization.raw.get("name")
            name = name if isinstance(name, str) else ""
            has_ror = any(
                isinstance(same, dict) and "ror.org/" in str(same.get("url", ""))
                for _, same in _list(organization.raw.get("sameAs"))
            )
            if not has_ror and known_organisation(name) is None:
                yield _warning(
                    project,
                    ("funding", grant_position, "funders", position),
                    f"funder {name or funder_id!r} has no known identifier (neither a ROR id in its sameAs nor an "
                    "entry in catalog/formats/organisations.toml): harvesters get its name only",
                    Warn.FUNDER_IDENTIFIER,
                )


def _shared_pids(items: Iterable[Entity]) -> Iterator[MetadataWarning]:
    holders: dict[str, list[Entity]] = defaultdict(list)
    for item in items:
        pid = item.raw.get("pid")
        if isinstance(pid, str) and pid.strip() and pid.strip() not in PLACEHOLDERS:
            holders[pid.strip().rstrip("/")].append(item)
    for pid, sharing in holders.items():
        if len(sharing) < 2:
            continue
        names = ", ".join(f"{item.kind} {item.key}" for item in sharing)
        for item in sharing:
            yield _warning(
                item,
                ("pid",),
                f"pid {pid} is shared by {names}: it identifies none of them in harvested metadata "
                "(each gets its landing page as identifier)",
                Warn.SHARED_PID,
            )


def _discipline_labels(projects: Sequence[Entity]) -> Iterator[MetadataWarning]:
    """The same discipline code (a URL, or a leading number such as 10404) written with different labels."""
    seen: dict[tuple[str, str | None], list[tuple[Entity, tuple[str | int, ...], str]]] = defaultdict(list)
    for project in projects:
        for position, discipline in _list(project.raw.get("disciplines")):
            if isinstance(discipline, dict) and isinstance(discipline.get("url"), str):
                label = discipline.get("text")
                if isinstance(label, str):
                    code = discipline["url"].strip().rstrip("/")
                    seen[(code, None)].append((project, ("disciplines", position, "text"), label))
                continue
            entries = discipline.items() if isinstance(discipline, dict) else [(None, discipline)]
            for lang, label in entries:
                match = _CODED_LABEL.match(label) if isinstance(label, str) else None
                if match:
                    path = ("disciplines", position, *([lang] if lang else []))
                    seen[(match.group(1), lang)].append((project, path, label))
    for (code, lang), uses in seen.items():
        spellings = Counter(label for _, _, label in uses)
        if len(spellings) < 2:
            continue
        usual = spellings.most_common(1)[0][0]
        language = f" ({lang})" if lang else ""
        for project, path, label in uses:
            if label != usual:
                yield _warning(
                    project,
                    path,
                    f"discipline {code}{language} is written {label!r} here but {usual!r} in "
                    f"{spellings[usual]} place(s) ({len(spellings)} spellings): harvesters see different "
                    "subjects",
                    Warn.DISCIPLINE_LABEL,
                )


def _placeholders(item: Entity) -> Iterator[MetadataWarning]:
    for parts, value in _strings(item.raw, ()):
        if value in PLACEHOLDERS:
            yield _warning(
                item,
                parts,
                f"placeholder {value!r}: harvesters get nothing for this field",
                Warn.PLACEHOLDER,
            )


def _strings(value: Any, parts: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if isinstance(value, str):
        yield parts, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*parts, key))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _strings(item, (*parts, position))
