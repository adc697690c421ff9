"""Removed payload fields in JSON request/response bodies and in the object literals code sends.

An object is recognised by its own keys (registry: object-has-any / -all / -none), e.g. a project create or
update request is an object with `shortname`, `shortcode` or `longname` and no `id`; a `status` key in it is
the removed field. Group and user objects, whose status remains, lack those keys.
"""

from __future__ import annotations

from collections.abc import Iterator

from apiusage.findings import Hit
from apiusage.objects import ObjectLiteral, object_literals
from apiusage.registry import Entry, Registry
from apiusage.source import SourceText


def _recognises(entry: Entry, literal: ObjectLiteral) -> bool:
    keys = literal.keys
    return (
        entry.payload_field in keys
        and (not entry.object_has_any or any(key in keys for key in entry.object_has_any))
        and all(key in keys for key in entry.object_has_all)
        and not any(key in keys for key in entry.object_has_none)
    )


class PayloadScanner:
    def __init__(self, registry: Registry) -> None:
        self._entries = registry.of_kind("payload-field")

    def scan(self, source: SourceText, *, is_json: bool) -> Iterator[Hit]:
        entries = [entry for entry in self._entries if entry.payload_field and entry.payload_field in source.text]
        if not entries:
            return
        for literal in object_literals(source.text, json_only=is_json):
            for entry in entries:
                if _recognises(entry, literal):
                    offset = literal.keys[entry.payload_field or ""]
                    yield Hit(source.line_number(offset), entry, entry.title, f'"{entry.payload_field}"')
