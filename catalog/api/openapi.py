"""The OpenAPI 3.1 description of the JSON API, served at /api/v2/openapi.json.

Built in Python rather than kept as a static file so that the limits it states
(page sizes, the shortcode pattern) are the constants the API enforces.
Entity schemas are generated from the data files' JSON Schemas in
``catalog/domain/schemas/`` (OpenAPI 3.1 schemas are JSON Schema 2020-12), so the
API and ``svc validate`` describe one shape; as served, every top-level field
may be a placeholder (SPEC §2.2) and only what the loader guarantees is required.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from catalog.api.payloads import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, SHORTCODE_PATTERN, SINGULAR
from catalog.domain.all_records import FACET_KEYS
from catalog.domain.record_search import PAGE_SIZE as RECORD_SEARCH_PAGE_SIZE
from catalog.domain.record_search import RecordQuery
from catalog.domain.schema import SCHEMA_DIR, SCHEMA_FILES
from catalog.domain.search import FACETS as _LISTING_FACETS
from catalog.domain.search import SORTS as PROJECT_SORTS
from catalog.domain.version import svc_version

API_BASE_PATH = "/api/v2"
JSON = "application/json"
PROBLEM_JSON = "application/problem+json"

Schema = dict[str, Any]


def _ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def _array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


STRING: Schema = {"type": "string"}
# Entity name in the document -> data file kind in catalog/domain/schemas (SCHEMA_FILES).
ENTITY_KINDS: dict[str, str] = {
    "Project": "project",
    "Person": "person",
    "Organization": "organization",
    "Cluster": "cluster",
    "Collection": "collection",
    "Record": "record",
}
# What the loader guarantees of a served entity; every other field may be absent or a placeholder.
LOADER_REQUIRED: dict[str, tuple[str, ...]] = {"Project": ("id", "shortcode"), "Record": ()}
_SHARED_SCHEMA = "definitions.json"


# Checks of a value's quality that ``svc validate`` reports but the loader does not enforce:
# the served data may break them (the corpus has empty citation texts, a licence URL with a space).
VALUE_CHECKS = frozenset({"minLength", "pattern", "format", "minItems", "minProperties"})


def served_schema(node: Any, local_prefix: str) -> Any:
    """A validation schema as the API serves it: ``$ref``s into ``#/components/schemas/…``, no value checks.

    ``definitions.json#/$defs/x`` and definitions.json's own ``#/$defs/x`` become
    ``x``; a schema file's local ``#/$defs/x`` becomes ``<local_prefix>.x``. An
    object's ``required`` goes too (``required`` alone, inside ``not``, tells
    shapes apart and stays).
    """
    if isinstance(node, dict):
        dropped = VALUE_CHECKS | ({"required"} if "properties" in node else set())
        rewritten = {key: served_schema(value, local_prefix) for key, value in node.items() if key not in dropped}
        ref = node.get("$ref")
        if isinstance(ref, str):
            file, _, pointer = ref.partition("#/$defs/")
            name = pointer if file == _SHARED_SCHEMA or not local_prefix else f"{local_prefix}.{pointer}"
            rewritten["$ref"] = f"#/components/schemas/{name}"
        return rewritten
    if isinstance(node, list):
        return [served_schema(value, local_prefix) for value in node]
    return node


def _validation_schema(name: str) -> Schema:
    schema: Schema = json.loads((SCHEMA_DIR / name).read_text("utf-8"))
    return schema


def served_entity_schema(entity: str, validation_schema: Schema) -> Schema:
    """The served shape of an entity: its validation schema without value checks, where only what the
    loader guarantees is required and any top-level field may be a placeholder (svc serves data files
    as stored, even ones ``svc validate`` rejects)."""
    kind = ENTITY_KINDS[entity]
    schema: Schema = served_schema({k: v for k, v in validation_schema.items() if k not in ("$schema", "$defs")}, kind)
    required = LOADER_REQUIRED.get(entity, ("id",))
    schema["properties"] = {
        name: prop if name in required else {"anyOf": [prop, _ref("Placeholder")]}
        for name, prop in schema["properties"].items()
    }
    schema["required"] = list(required)
    if not required:
        del schema["required"]
    return schema


def _validation_components() -> dict[str, Schema]:
    """The shared definitions and each entity's schema, from catalog/domain/schemas/*.json."""
    components: dict[str, Schema] = {
        name: served_schema(schema, "") for name, schema in _validation_schema(_SHARED_SCHEMA)["$defs"].items()
    }
    for entity, kind in ENTITY_KINDS.items():
        schema = _validation_schema(SCHEMA_FILES[kind])
        components.update(
            {f"{kind}.{name}": served_schema(local, kind) for name, local in schema.get("$defs", {}).items()}
        )
        components[entity] = served_entity_schema(entity, schema)
    return components


def _schemas() -> dict[str, Schema]:
    return {
        **_validation_components(),
        "Placeholder": {
            "type": "string",
            "enum": ["MISSING", "CALCULATED"],
            "description": "Stands in for a missing or computed value; may replace any field.",
        },
        "RecordPage": {
            "type": "object",
            "description": "One page of a project's records, ordered by pid.",
            "required": ["count", "page", "pageSize", "pageCount", "next", "previous", "items"],
            "additionalProperties": False,
            "properties": {
                "count": {"type": "integer", "minimum": 0, "description": "Records of the project in all."},
                "page": {"type": "integer", "minimum": 1, "description": "This page's number."},
                "pageSize": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
                "pageCount": {"type": "integer", "minimum": 1, "description": "Number of pages (at least 1)."},
                "next": {"type": ["string", "null"], "format": "uri", "description": "URL of the next page."},
                "previous": {"type": ["string", "null"], "format": "uri", "description": "URL of the previous page."},
                "items": _array(_ref("Record")),
            },
        },
        "RecordSearchPage": {
            "type": "object",
            "description": "One page of a search across the records of every project (the rules of the /records page).",
            "required": ["count", "page", "pageSize", "pageCount", "next", "previous", "facets", "items"],
            "additionalProperties": False,
            "properties": {
                "count": {"type": "integer", "minimum": 0, "description": "Records that match, in all."},
                "page": {"type": "integer", "minimum": 1, "description": "This page's number."},
                "pageSize": {"type": "integer", "const": RECORD_SEARCH_PAGE_SIZE},
                "pageCount": {"type": "integer", "minimum": 1, "description": "Number of pages (at least 1)."},
                "next": {"type": ["string", "null"], "format": "uri", "description": "URL of the next page."},
                "previous": {"type": ["string", "null"], "format": "uri", "description": "URL of the previous page."},
                "facets": {
                    "type": "object",
                    "description": "Per facet, the values with the number of matches each would give together "
                    "with the search and the other facets' selections.",
                    "required": list(FACET_KEYS),
                    "additionalProperties": False,
                    "properties": {key: _array(_ref("FacetValue")) for key in FACET_KEYS},
                },
                "items": _array(
                    {
                        "type": "object",
                        "required": ["project", "record"],
                        "additionalProperties": False,
                        "properties": {
                            "project": {"type": "string", "description": "The record's project (shortcode)."},
                            "record": _ref("Record"),
                        },
                    }
                ),
            },
        },
        "FacetValue": {
            "type": "object",
            "required": ["value", "label", "count", "selected"],
            "additionalProperties": False,
            "properties": {
                "value": {"type": "string", "description": "What to pass as the facet's query parameter."},
                "label": {"type": "string"},
                "count": {"type": "integer", "minimum": 0},
                "selected": {"type": "boolean"},
            },
        },
        "Problem": {
            "type": "object",
            "description": "An error, as RFC 9457 problem details.",
            "required": ["type", "title", "status", "detail"],
            "properties": {
                "type": {"type": "string", "const": "about:blank"},
                "title": {"type": "string", "description": "The HTTP status phrase."},
                "status": {"type": "integer", "description": "The HTTP status code."},
                "detail": {"type": "string", "description": "What was wrong with this request."},
            },
        },
    }


def _parameters() -> dict[str, Schema]:
    return {
        "shortcode": {
            "name": "shortcode",
            "in": "path",
            "required": True,
            "description": "Project shortcode, case-insensitive. Malformed: 400; unknown: 404.",
            "schema": {"type": "string", "pattern": SHORTCODE_PATTERN},
            "example": "0803",
        },
        "record": {
            "name": "record",
            "in": "path",
            "required": True,
            "description": "The last segment of the record's pid (ARK), e.g. NNDkHRthUuKwfKVGaX7H7gY.",
            "schema": {"type": "string", "minLength": 1},
        },
        "id": {
            "name": "id",
            "in": "path",
            "required": True,
            "description": "The entity's id, matched exactly, e.g. person-001.",
            "schema": {"type": "string", "minLength": 1},
        },
        "page": {
            "name": "page",
            "in": "query",
            "description": "Page number, from 1. A page past the last one: 404.",
            "schema": {"type": "integer", "minimum": 1, "default": 1},
        },
        "page_size": {
            "name": "page_size",
            "in": "query",
            "description": f"Records per page, 1 to {MAX_PAGE_SIZE}.",
            "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE, "default": DEFAULT_PAGE_SIZE},
        },
        "q": {
            "name": "q",
            "in": "query",
            "description": "Search text (the search engine's: docs/pages-and-search.md): every word must match a "
            "record's label, description, keywords, type of data, publisher, authors or identifier, in any of its "
            "forms (German, French, Italian and English stemming; case and accents ignored; one typo forgiven in a "
            'word of five letters or more). Syntax: "a phrase", -excluded, a OR b, title:, creator:, '
            "year:1990-2000; what it cannot read is searched as plain words. At most 500 characters.",
            "schema": {"type": "string", "maxLength": 500},
        },
        "sort": {
            "name": "sort",
            "in": "query",
            "description": "Order: relevance (best match first; the default with q), natural label order (the "
            "default without q), its reverse, by date, or by identifier.",
            "schema": {"type": "string", "enum": list(RecordQuery.SORTS)},
        },
        **{
            f"records_{name}": {
                "name": name,
                "in": "query",
                "description": f"Only records published (else created) in a year {side} this one.",
                "schema": {"type": "integer", "minimum": 1, "maximum": 9999},
            }
            for name, side in (("from", "from"), ("to", "up to"))
        },
        "project_q": {
            "name": "q",
            "in": "query",
            "description": "Search text, as on /projects: every word must match the project's names, keywords, "
            "disciplines, descriptions, coverage or contributors, in any of its forms; same syntax as for records. "
            "At most 500 characters.",
            "schema": {"type": "string", "maxLength": 500},
        },
        "project_sort": {
            "name": "sort",
            "in": "query",
            "description": "Order: relevance (best match first; the default with q), name (the default without), "
            "name-desc, newest, oldest (by start date, undated last).",
            "schema": {"type": "string", "enum": list(PROJECT_SORTS)},
        },
        **{
            f"project_{name}": {
                "name": name,
                "in": "query",
                "description": f"Projects that ran in some year {side} this one (whole years).",
                "schema": {"type": "integer", "minimum": 1, "maximum": 9999},
            }
            for name, side in (("from", "from"), ("to", "up to"))
        },
        **{
            f"project_facet_{key}": {
                "name": key,
                "in": "query",
                "description": f"Facet of /projects ({label.lower()}). Repeatable: values of one facet combine "
                "with OR, facets with AND; at most 50 values in all.",
                "schema": {"type": "array", "items": {"type": "string"}, "maxItems": 50},
                "style": "form",
                "explode": True,
            }
            for key, label in PROJECT_FACETS
        },
        "search_page": {
            "name": "page",
            "in": "query",
            "description": f"Page number, from 1 ({RECORD_SEARCH_PAGE_SIZE} records a page). Past the last page: 404.",
            "schema": {"type": "integer", "minimum": 1, "default": 1},
        },
        **{
            f"facet_{key}": {
                "name": key,
                "in": "query",
                "description": f"{description} Repeatable: values of one facet combine with OR, facets with AND; "
                "at most 50 values in all.",
                "schema": {"type": "array", "items": {"type": "string"}, "maxItems": 50},
                "style": "form",
                "explode": True,
            }
            for key, description in (
                ("project", "Only records of these projects (shortcodes)."),
                ("type", "Only records of these types of data."),
                ("creator", "Only records whose (first) author is one of these."),
                ("licence", "Only records under these licences (the facet's values: one URI per licence)."),
                ("year", "Only records published (else created) in these years."),
            )
        },
        "If-None-Match": {
            "name": "If-None-Match",
            "in": "header",
            "description": "An ETag from an earlier response: 304 Not Modified while the data is unchanged.",
            "schema": {"type": "string"},
        },
    }


def _headers() -> dict[str, Schema]:
    return {
        "ETag": {
            "description": "A strong validator of this body in its content-coding: changes whenever the bytes do.",
            "schema": STRING,
        },
        "Link": {
            "description": "RFC 8288 links to the first, prev, next and last pages.",
            "schema": STRING,
        },
        "Allow": {
            "description": "The methods the API allows: GET, HEAD, and OPTIONS (a browser's CORS preflight).",
            "schema": STRING,
        },
    }


def _problem(description: str) -> Schema:
    return {"description": description, "content": {PROBLEM_JSON: {"schema": _ref("Problem")}}}


def _ok(description: str, schema: Schema, *headers: str) -> Schema:
    return {
        "description": description,
        "headers": {name: {"$ref": f"#/components/headers/{name}"} for name in ("ETag", *headers)},
        "content": {JSON: {"schema": schema}},
    }


NOT_MODIFIED: Schema = {"description": "Not modified since the ETag given in If-None-Match."}
CONDITIONAL = {"$ref": "#/components/parameters/If-None-Match"}
# gunicorn's limits (its defaults, which svc keeps), answered before the request reaches svc.
REQUEST_LINE_LIMIT = 4094
HEADER_FIELD_LIMIT = 8190
HEADER_FIELDS_LIMIT = 100


def _server_responses() -> dict[str, Schema]:
    """Answers of the HTTP server itself to requests too large to read: an HTML page, then the connection closes."""
    page = {"text/html": {"schema": STRING}}
    return {
        "RequestLineTooLong": {
            "description": f"The request line (method, path with query, HTTP version) is longer than "
            f"{REQUEST_LINE_LIMIT} bytes. Answered by the HTTP server before svc reads the request, "
            "as an HTML page; the connection is closed.",
            "content": page,
        },
        "HeaderFieldsTooLarge": {
            "description": f"A header field (name, value and line end) is longer than {HEADER_FIELD_LIMIT} "
            f"bytes, or the request has more than {HEADER_FIELDS_LIMIT} header fields. Answered by the HTTP "
            "server before svc reads the request, as an HTML page; the connection is closed.",
            "content": page,
        },
    }


SERVER_RESPONSES: dict[str, Schema] = {
    "414": {"$ref": "#/components/responses/RequestLineTooLong"},
    "431": {"$ref": "#/components/responses/HeaderFieldsTooLarge"},
}


PROJECT_FACETS = tuple((facet.key, facet.label) for facet in _LISTING_FACETS)


def _operation(operation_id: str, summary: str, responses: dict[str, Schema], *parameters: str) -> Schema:
    return {
        "get": {
            "operationId": operation_id,
            "summary": summary,
            "parameters": [*({"$ref": f"#/components/parameters/{p}"} for p in parameters), CONDITIONAL],
            "responses": {**responses, "304": NOT_MODIFIED, **SERVER_RESPONSES},
        }
    }


def _entity_paths(kind: str, schema_name: str) -> dict[str, Schema]:
    singular = SINGULAR[kind]
    return {
        f"/{kind}": _operation(
            f"list{schema_name}s",
            f"All {kind}, ordered by id",
            {
                "200": _ok(f"Every {singular}.", _array(_ref(schema_name))),
                "400": _problem("A query parameter was given (this endpoint takes none)."),
            },
        ),
        f"/{kind}/{{id}}": _operation(
            f"get{schema_name}",
            f"One {singular}",
            {
                "200": _ok(f"The {singular}.", _ref(schema_name)),
                "400": _problem("A query parameter was given (this endpoint takes none)."),
                "404": _problem(f"No {singular} with this id."),
            },
            "id",
        ),
    }


def _paths() -> dict[str, Schema]:
    malformed = _problem("Malformed shortcode, or a query parameter was given (this endpoint takes none).")
    return {
        "/projects": _operation(
            "listProjects",
            "All projects in catalogue order; with search parameters, the projects the listing's search finds",
            {
                "200": _ok("Every project, or every project found, in the search's order.", _array(_ref("Project"))),
                "400": _problem("An unknown or repeated parameter, a bad sort or year, or too long a search text."),
            },
            "project_q",
            *(f"project_facet_{key}" for key, _ in PROJECT_FACETS),
            "project_from",
            "project_to",
            "project_sort",
        ),
        "/projects/{shortcode}": _operation(
            "getProject",
            "One project",
            {
                "200": _ok("The project.", _ref("Project")),
                "400": malformed,
                "404": _problem("No project with this shortcode."),
            },
            "shortcode",
        ),
        "/projects/{shortcode}/records": _operation(
            "listProjectRecords",
            "A page of a project's records, ordered by pid",
            {
                "200": _ok("One page of records.", _ref("RecordPage"), "Link"),
                "400": _problem("Malformed shortcode, page or page_size, or an unknown or repeated query parameter."),
                "404": _problem("No project with this shortcode, or a page past the last one."),
            },
            "shortcode",
            "page",
            "page_size",
        ),
        "/records": _operation(
            "searchRecords",
            "Search the records of every project, with facets",
            {
                "200": _ok("One page of matching records and the facets.", _ref("RecordSearchPage")),
                "400": _problem("An unknown or repeated parameter, a bad page or sort, or too long a search text."),
                "404": _problem("A page past the last one."),
            },
            "q",
            *(f"facet_{key}" for key in FACET_KEYS),
            "records_from",
            "records_to",
            "sort",
            "search_page",
        ),
        "/projects/{shortcode}/records/{record}": _operation(
            "getProjectRecord",
            "One record of a project",
            {
                "200": _ok("The record.", _ref("Record")),
                "400": malformed,
                "404": _problem("No project with this shortcode, or no such record in it."),
            },
            "shortcode",
            "record",
        ),
        **_entity_paths("persons", "Person"),
        **_entity_paths("organizations", "Organization"),
        **_entity_paths("clusters", "Cluster"),
        **_entity_paths("collections", "Collection"),
        "/openapi.json": {
            "get": {
                "operationId": "getOpenApiDocument",
                "summary": "This OpenAPI document",
                "parameters": [CONDITIONAL],
                "responses": {
                    "200": _ok("The OpenAPI 3.1 document.", {"type": "object"}),
                    "304": NOT_MODIFIED,
                    "400": _problem("A query parameter was given (this endpoint takes none)."),
                    **SERVER_RESPONSES,
                },
            }
        },
    }


def openapi_document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "svc metadata API",
            "version": svc_version(),  # svc's; the API's own version is the /api/v2/ of its paths
            "description": (
                "Read-only JSON API of the research-data catalogue: projects, their records, persons, "
                "organizations, clusters and collections, each in its stored shape (camelCase keys, unknown "
                "fields kept; the placeholders MISSING and CALCULATED may stand in for any value). Only GET and "
                "HEAD are allowed (others: 405). Errors are RFC 9457 problem documents. Responses carry an ETag "
                "(conditional GET with If-None-Match answers 304) and Access-Control-Allow-Origin: *."
            ),
        },
        "servers": [{"url": API_BASE_PATH}],
        "paths": _paths(),
        "components": {
            "schemas": _schemas(),
            "parameters": _parameters(),
            "headers": _headers(),
            "responses": _server_responses(),
        },
    }


@functools.cache
def openapi_bytes() -> bytes:
    return json.dumps(openapi_document(), ensure_ascii=False, indent=1).encode()
