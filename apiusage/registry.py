"""The registry of removed and deprecated companion-repository API items, read from `registry.toml`.

The TOML file is the single source of truth (it is also what `--list` prints); this module only types it,
checks it and applies the command's namespace/prefix overrides.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

REGISTRY_PATH = Path(__file__).with_name("registry.toml")

KINDS = ("route", "payload-field", "ontology-property", "authentication")
STATUSES = ("removed", "deprecated")


class RegistryError(ValueError):
    """The registry file or an override is malformed."""


@dataclass(frozen=True)
class Vocabulary:
    """An ontology whose properties are matched under these namespaces or under a prefix bound in the file."""

    name: str
    description: str
    prefixes: tuple[str, ...]
    namespaces: tuple[str, ...]


@dataclass(frozen=True)
class Entry:
    id: str
    kind: str
    status: str
    title: str
    replacement: str
    note: str
    removed_in: str | None = None
    deprecated_since: str | None = None
    # route
    method: str | None = None
    path: str | None = None
    method_required: bool = False
    required_parameters: tuple[str, ...] = ()
    allowed_values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # payload-field
    payload_field: str | None = None
    object_has_any: tuple[str, ...] = ()
    object_has_all: tuple[str, ...] = ()
    object_has_none: tuple[str, ...] = ()
    request_routes: tuple[str, ...] = ()
    # ontology-property
    vocabulary: str | None = None
    local_name: str | None = None  # the property's local name
    subject_class: str | None = None
    # authentication
    patterns: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    log_user_field: bool = False
    needs_api_reference: bool = False
    # the entry as written in the registry, for --list --format json
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def version(self) -> str:
        """Human wording of the entry's version, e.g. "removed in v55"."""
        if self.status == "removed":
            return f"removed in {self.removed_in}" if self.removed_in else "removed"
        if self.deprecated_since:
            return f"deprecated since {self.deprecated_since}"
        return "deprecated, no removal version announced"


@dataclass(frozen=True)
class Registry:
    entries: tuple[Entry, ...]
    vocabularies: Mapping[str, Vocabulary]
    api_path_prefixes: tuple[str, ...]

    def of_kind(self, kind: str) -> tuple[Entry, ...]:
        return tuple(entry for entry in self.entries if entry.kind == kind)

    def with_overrides(self, namespaces: Mapping[str, list[str]], prefixes: Mapping[str, list[str]]) -> Registry:
        """Replace a vocabulary's namespaces and/or prefixes (the `--namespace` / `--prefix` options)."""
        unknown = sorted((set(namespaces) | set(prefixes)) - set(self.vocabularies))
        if unknown:
            known = ", ".join(self.vocabularies)
            raise RegistryError(f"unknown vocabulary {unknown[0]!r} (known: {known})")
        vocabularies = {
            name: replace(
                vocabulary,
                namespaces=tuple(namespaces.get(name, vocabulary.namespaces)),
                prefixes=tuple(prefixes.get(name, vocabulary.prefixes)),
            )
            for name, vocabulary in self.vocabularies.items()
        }
        return replace(self, vocabularies=vocabularies)

    def to_json(self) -> dict[str, Any]:
        return {
            "api-path-prefixes": list(self.api_path_prefixes),
            "vocabularies": {
                name: {"description": v.description, "prefixes": list(v.prefixes), "namespaces": list(v.namespaces)}
                for name, v in self.vocabularies.items()
            },
            "entries": [dict(entry.raw) for entry in self.entries],
        }


def load_registry(path: Path = REGISTRY_PATH) -> Registry:
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    vocabularies = {
        name: Vocabulary(name, spec.get("description", ""), tuple(spec["prefixes"]), tuple(spec["namespaces"]))
        for name, spec in data.get("vocabularies", {}).items()
    }
    entries = tuple(_entry(raw, vocabularies) for raw in data["entries"])
    ids = [entry.id for entry in entries]
    duplicates = sorted({entry_id for entry_id in ids if ids.count(entry_id) > 1})
    if duplicates:
        raise RegistryError(f"{path}: duplicate entry id {duplicates[0]!r}")
    return Registry(entries, vocabularies, tuple(data.get("api-path-prefixes", ())))


_REQUIRED_BY_KIND = {
    "route": ("path",),
    "payload-field": ("field",),
    "ontology-property": ("vocabulary", "property"),
    "authentication": ("patterns", "keywords"),
}


def _entry(raw: Mapping[str, Any], vocabularies: Mapping[str, Vocabulary]) -> Entry:
    entry_id = raw.get("id", "?")
    if raw.get("kind") not in KINDS:
        raise RegistryError(f"entry {entry_id}: kind must be one of {', '.join(KINDS)}")
    if raw.get("status") not in STATUSES:
        raise RegistryError(f"entry {entry_id}: status must be one of {', '.join(STATUSES)}")
    missing = [key for key in ("id", "title", "replacement", "note", *_REQUIRED_BY_KIND[raw["kind"]]) if key not in raw]
    if missing:
        raise RegistryError(f"entry {entry_id}: missing {', '.join(missing)}")
    if raw["kind"] == "ontology-property" and raw["vocabulary"] not in vocabularies:
        raise RegistryError(f"entry {entry_id}: unknown vocabulary {raw['vocabulary']!r}")
    return Entry(
        id=raw["id"],
        kind=raw["kind"],
        status=raw["status"],
        title=raw["title"],
        replacement=raw["replacement"],
        note=raw["note"],
        removed_in=raw.get("removed-in"),
        deprecated_since=raw.get("deprecated-since"),
        method=raw.get("method"),
        path=raw.get("path"),
        method_required=raw.get("method-required", False),
        required_parameters=tuple(raw.get("required-parameters", ())),
        allowed_values={name: tuple(values) for name, values in raw.get("allowed-values", {}).items()},
        payload_field=raw.get("field"),
        object_has_any=tuple(raw.get("object-has-any", ())),
        object_has_all=tuple(raw.get("object-has-all", ())),
        object_has_none=tuple(raw.get("object-has-none", ())),
        request_routes=tuple(raw.get("request-routes", ())),
        vocabulary=raw.get("vocabulary"),
        local_name=raw.get("property"),
        subject_class=raw.get("subject-class"),
        patterns=tuple(raw.get("patterns", ())),
        keywords=tuple(raw.get("keywords", ())),
        log_user_field=raw.get("log-user-field", False),
        needs_api_reference=raw.get("needs-api-reference", False),
        raw=raw,
    )
