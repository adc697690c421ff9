"""The JSON Schemas of the data files (``catalog/domain/schemas/``) and their validators.

They live below both readers: the loader's conformance check (through the
runtime), ``svc validate`` and the API's OpenAPI document read them, and
none of those imports another.

Validation runs on ``jsonschema-rs`` (Rust, draft 2020-12): the pure-Python
``jsonschema`` needs ~170 µs per record, nearly three minutes for a million
records, where ``jsonschema-rs`` needs ~1 µs. Schemas refer to each other by
relative file name (``definitions.json#/$defs/…``), resolved offline from the
bundled files, so other JSON Schema tools can use the same files unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"

# Data file kind -> schema file. The first six are the entity types (SPEC §2.2).
SCHEMA_FILES: Mapping[str, str] = {
    "project": "project.json",
    "person": "person.json",
    "organization": "organization.json",
    "cluster": "cluster.json",
    "collection": "collection.json",
    "record": "record.json",
    "chronontology-periods": "chronontology-periods.json",
    "temporal-coverage-enrichment": "temporal-coverage-enrichment.json",
}
# Type directory -> the kind of its objects (schema name), in checking order.
ENTITY_KINDS: Mapping[str, str] = {
    "projects": "project",
    "persons": "person",
    "organizations": "organization",
    "clusters": "cluster",
    "collections": "collection",
}
_SHARED = "definitions.json"
_MAX_VALUE_CHARS = 80

PathPart = str | int


class SchemaSet:
    """Compiled validators for every kind, with readable error messages."""

    def __init__(self, schema_dir: Path = SCHEMA_DIR) -> None:
        self._documents: dict[str, Any] = {}
        for name in (_SHARED, *SCHEMA_FILES.values()):
            self._documents[self._uri(schema_dir, name)] = json.loads((schema_dir / name).read_text("utf-8"))
        registry = jsonschema_rs.Registry(list(self._documents.items()))
        self._validators = {
            kind: jsonschema_rs.Draft202012Validator(
                self._documents[self._uri(schema_dir, name)],
                registry=registry,
                base_uri=self._uri(schema_dir, name),
                validate_formats=True,
            )
            for kind, name in SCHEMA_FILES.items()
        }

    @staticmethod
    def _uri(schema_dir: Path, name: str) -> str:
        return (schema_dir / name).as_uri()

    def is_valid(self, kind: str, instance: Any) -> bool:
        return bool(self._validators[kind].is_valid(instance))

    def errors(self, kind: str, instance: Any) -> Iterator[tuple[tuple[PathPart, ...], str]]:
        """(path inside the instance, message) for each violation; nothing when valid."""
        validator = self._validators[kind]
        if validator.is_valid(instance):
            return
        for error in validator.iter_errors(instance):
            yield from self._describe(error)

    def _describe(self, error: jsonschema_rs.ValidationError) -> Iterator[tuple[tuple[PathPart, ...], str]]:
        """Explain one error; for ``anyOf``/``oneOf`` point inside the one alternative that fits.

        When exactly one alternative failed only below the value itself (the
        value has that alternative's shape, a part of it is wrong), its errors
        say more ("url[0]: … is not an http(s) URL") than the alternatives.
        """
        path = tuple(error.instance_path)
        if error.kind.name in {"anyOf", "oneOf"}:
            inner = [
                branch
                for branch in error.kind.value
                if branch and all(len(sub.instance_path) > len(path) for sub in branch)
            ]
            if len(inner) == 1:
                for sub in inner[0]:
                    yield from self._describe(sub)
                return
        yield path, self._message(error)

    def _message(self, error: jsonschema_rs.ValidationError) -> str:
        kind = error.kind
        if isinstance(kind, jsonschema_rs.ValidationErrorKind.Required):
            return f"missing required field {json.dumps(kind.property)}"
        description = self._description_of_failing_schema(error.absolute_keyword_location)
        if description:
            return f"{_show(error.instance)} is not {description}"
        if isinstance(kind, jsonschema_rs.ValidationErrorKind.Type):
            return f"expected {_types(kind.types)}, found {_json_type(error.instance)}"
        return error.message if len(error.message) <= 2 * _MAX_VALUE_CHARS else f"{_show(error.instance)} is invalid"

    def _description_of_failing_schema(self, location: str | None) -> str | None:
        """The ``description`` of the (sub)schema whose keyword failed, if it has one.

        Schemas carry descriptions on the value shapes ("a date (YYYY-MM-DD) or a
        placeholder"), which read better than "not valid under any of the schemas
        listed in the 'anyOf' keyword".
        """
        if not location or "#" not in location:
            return None
        uri, _, pointer = location.partition("#")
        node = self._documents.get(uri)
        parts = [part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:-1]]
        if not parts:
            return None  # a document's own description documents the file, it does not name a value shape
        for part in parts:
            if isinstance(node, dict):
                node = node.get(part)
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None
        return node.get("description") if isinstance(node, dict) else None


@cache
def schemas() -> SchemaSet:
    """The bundled schemas, compiled once per process."""
    return SchemaSet()


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _MAX_VALUE_CHARS else text[: _MAX_VALUE_CHARS - 1] + "…"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _types(types: Any) -> str:
    names = [types] if isinstance(types, str) else list(types)
    articles = {"array": "an array", "object": "an object", "integer": "an integer", "null": "null"}
    return " or ".join(articles.get(name, f"a {name}") for name in names)
