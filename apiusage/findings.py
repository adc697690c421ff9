"""A finding: one use of a registry entry at one line of one file, and how it is reported."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apiusage.registry import Entry


@dataclass(frozen=True)
class Hit:
    """A use found in one file's text, before the file name is attached."""

    line: int
    entry: Entry
    what: str
    match: str
    method: str | None = None


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    entry: Entry
    what: str
    match: str
    method: str | None = None

    @classmethod
    def of(cls, path: str, hit: Hit) -> Finding:
        return cls(path, hit.line, hit.entry, hit.what, hit.match, hit.method)

    @property
    def sort_key(self) -> tuple[str, int, str, str]:
        return (self.path, self.line, self.entry.id, self.what)

    def text(self) -> str:
        entry = self.entry
        return f"{self.path}:{self.line}: {entry.status} {self.what} — use {entry.replacement} ({entry.version})"

    def to_json(self) -> dict[str, Any]:
        entry = self.entry
        return {
            "file": self.path,
            "line": self.line,
            "status": entry.status,
            "id": entry.id,
            "kind": entry.kind,
            "what": self.what,
            "method": self.method,
            "match": self.match,
            "replacement": entry.replacement,
            "version": entry.version,
            "removed_in": entry.removed_in,
            "deprecated_since": entry.deprecated_since,
            "note": entry.note,
        }
