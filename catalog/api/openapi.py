"""The OpenAPI 3.1 description of the JSON API, served at /api/v2/openapi.json.

Built in Python rather than kept as a static file so that the limits it states
(page sizes, the shortcode pattern) are the constants the API enforces.
Entity schemas describe the stored shape: every field the data model knows,
each possibly replaced by a placeholder (SPEC §2.2), unknown fields allowed.
Only what the loader guarantees is required.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from catalog.api.payloads import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, SHORTCODE_PATTERN, SINGULAR

API_BASE_PATH = "/api/v2"
JSON = "application/json"
PROBLEM_JSON = "application/problem+json"

Schema = dict[str, Any]


def _ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def _stored(schema: Schema) -> Schema:
    """A stored field: its documented type, or a placeholder standing in for it."""
    return {"anyOf": [schema, _ref("Placeholder")]}


def _array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


STRING: Schema = {"type": "string"}
STRINGS = _array(STRING)


def _object(description: str, properties: dict[str, Schema], required: tuple[str, ...] = ()) -> Schema:
    schema: Schema = {
        "type": "object",
        "description": description,
        "properties": properties,
        "additionalProperties": True,
    }
    if required:
        schema["required"] = list(required)
    return schema


def _fields(described: dict[str, tuple[Schema, str]], plain: tuple[str, ...] = ()) -> dict[str, Schema]:
    """Properties with descriptions; all but ``plain`` may hold a placeholder."""
    return {
        name: {**(schema if name in plain else _stored(schema)), "description": description}
        for name, (schema, description) in described.items()
    }


def _schemas() -> dict[str, Schema]:
    text = _ref("Text")
    reference = _ref("Reference")
    text_or_reference = {"anyOf": [text, reference]}
    return {
        "Placeholder": {
            "type": "string",
            "enum": ["MISSING", "CALCULATED"],
            "description": "Stands in for a missing or computed value; may replace any field.",
        },
        "LanguageMap": {
            "type": "object",
            "description": 'Texts by BCP 47 language code, e.g. {"en": "…", "de": "…"}.',
            "additionalProperties": STRING,
        },
        "Text": {"anyOf": [STRING, _ref("LanguageMap")], "description": "A plain string or a language map."},
        "Reference": _object(
            "A link to an authority or resource.",
            _fields(
                {
                    "type": (STRING, "Kind of reference, e.g. URL, ORCID, ROR, Geonames, Skos, Pleiades."),
                    "url": (STRING, "The address."),
                    "text": (STRING, "Its label."),
                }
            ),
        ),
        "LegalInfo": _object(
            "Licence, copyright holder and authorship.",
            _fields(
                {
                    "license": (
                        _object(
                            "The licence.",
                            _fields(
                                {
                                    "licenseIdentifier": (STRING, "e.g. CC BY 4.0."),
                                    "licenseDate": (STRING, "ISO 8601 date."),
                                    "licenseURI": (STRING, "URL of the licence text."),
                                }
                            ),
                        ),
                        "The licence.",
                    ),
                    "copyrightHolder": (STRING, "Copyright holder."),
                    "authorship": (STRINGS, "Authors."),
                }
            ),
        ),
        "Attribution": _object(
            "A contributor and their roles in the project.",
            _fields(
                {
                    "contributor": (STRING, "Id of a person or an organization."),
                    "contributorType": (STRINGS, "Roles, e.g. Project Leader."),
                }
            ),
        ),
        "Grant": _object(
            "A grant funding the project.",
            _fields(
                {
                    "funders": (STRINGS, "Ids of the funding persons or organizations."),
                    "number": (STRING, "Grant number."),
                    "name": (STRING, "Grant name."),
                    "url": (STRING, "Grant URL."),
                }
            ),
        ),
        "Publication": _object(
            "A publication about or from the project.",
            _fields({"text": (STRING, "The citation."), "pid": (reference, "Its persistent identifier.")}),
        ),
        "Project": _object(
            "A research project in its stored shape.",
            _fields(
                {
                    "id": (STRING, "Internal id."),
                    "shortcode": (STRING, "Repository shortcode, matched case-insensitively."),
                    "pid": (STRING, "Permanent identifier (ARK URL)."),
                    "name": (STRING, "Name."),
                    "officialName": (STRING, "Official name, e.g. of the grant."),
                    "status": (STRING, "Ongoing or Finished."),
                    "shortDescription": (text, "One-sentence description."),
                    "description": (text, "Description."),
                    "abstract": (text, "Abstract."),
                    "startDate": (STRING, "ISO 8601 date."),
                    "endDate": (STRING, "ISO 8601 date."),
                    "howToCite": (STRING, "Citation."),
                    "accessRights": (
                        _object(
                            "Access right and embargo.",
                            _fields(
                                {
                                    "accessRights": (
                                        STRING,
                                        "Full Open Access, Open Access with Restrictions, Embargoed Access "
                                        "or Metadata only Access.",
                                    ),
                                    "embargoDate": (STRING, "ISO 8601 date."),
                                }
                            ),
                        ),
                        "Access rights.",
                    ),
                    "legalInfo": (_array(_ref("LegalInfo")), "Licences and copyright."),
                    "keywords": (_array(text), "Keywords."),
                    "disciplines": (_array(text_or_reference), "Disciplines (texts or authority references)."),
                    "temporalCoverage": (_array(text_or_reference), "Periods covered."),
                    "spatialCoverage": (_array(reference), "Places covered."),
                    "attributions": (_array(_ref("Attribution")), "Contributors and their roles."),
                    "funding": ({"anyOf": [_array(_ref("Grant")), STRING]}, "Grants, or a text such as 'No funding'."),
                    "url": (
                        {"anyOf": [reference, _array({"anyOf": [STRING, reference]})]},
                        "Link to the data (legacy: [data URL, website URL]).",
                    ),
                    "secondaryUrl": (reference, "Project website."),
                    "dataManagementPlan": ({"anyOf": [STRING, reference]}, "Data management plan."),
                    "dataPublicationYear": ({"type": ["string", "integer"]}, "Year the data was published."),
                    "typeOfData": (STRINGS, "Types of data, e.g. Text, Image."),
                    "dataLanguage": (_array(text), "Languages of the data (BCP 47)."),
                    "clusters": (STRINGS, "Ids of the clusters the project belongs to."),
                    "collections": (STRINGS, "Ids of the project's collections."),
                    "records": (STRINGS, "Ids of the project's records."),
                    "contactPoint": (STRINGS, "Ids of contact persons or organizations."),
                    "publications": (_array(_ref("Publication")), "Publications."),
                    "alternativeNames": (_array(text), "Other names."),
                    "documentationMaterial": (_array({"anyOf": [STRING, reference]}), "Documentation."),
                    "additionalMaterial": (_array({"anyOf": [STRING, reference]}), "Additional material."),
                    "provenance": (text, "Provenance of the data."),
                    "imageCredit": (STRING, "Credit for the project image."),
                },
                plain=("id", "shortcode"),
            ),
            required=("id", "shortcode"),
        ),
        "Person": _object(
            "A person in the stored shape.",
            _fields(
                {
                    "id": (STRING, "Id, e.g. person-001."),
                    "givenNames": (STRINGS, "Given names."),
                    "familyNames": (STRINGS, "Family names."),
                    "jobTitles": (STRINGS, "Job titles."),
                    "affiliations": (STRINGS, "Ids of organizations."),
                    "sameAs": (_array(reference), "Identifiers elsewhere, e.g. ORCID, GND."),
                    "email": (STRING, "E-mail address."),
                },
                plain=("id",),
            ),
            required=("id",),
        ),
        "Organization": _object(
            "An organization in the stored shape.",
            _fields(
                {
                    "id": (STRING, "Id, e.g. organization-001."),
                    "name": (text, "Name."),
                    "url": (STRING, "Website."),
                    "address": (
                        _object(
                            "Postal address.",
                            _fields(
                                {
                                    "street": (STRING, "Street."),
                                    "additional": (STRING, "Additional address line."),
                                    "postalCode": (STRING, "Postal code."),
                                    "locality": (STRING, "Town."),
                                    "canton": (STRING, "Canton or region."),
                                    "country": (STRING, "Country."),
                                }
                            ),
                        ),
                        "Postal address.",
                    ),
                    "email": (STRING, "E-mail address."),
                    "sameAs": (_array(reference), "Identifiers elsewhere, e.g. ROR."),
                    "alternativeName": (text, "Other name."),
                },
                plain=("id",),
            ),
            required=("id",),
        ),
        "Cluster": _object(
            "A cluster of projects in the stored shape.",
            _fields(
                {
                    "id": (STRING, "Id, e.g. cluster-001."),
                    "name": (text, "Name."),
                    "description": (text, "Description."),
                    "pid": (STRING, "Permanent identifier (ARK URL)."),
                    "projects": (STRINGS, "Shortcodes of its projects."),
                },
                plain=("id",),
            ),
            required=("id",),
        ),
        "Collection": _object(
            "A collection in the stored shape.",
            _fields(
                {
                    "id": (STRING, "Id."),
                    "name": (text, "Name."),
                    "description": (text, "Description."),
                    "pid": (STRING, "Permanent identifier (ARK URL)."),
                    "projects": (STRINGS, "Shortcodes of its projects."),
                    "records": (STRINGS, "Ids of its records."),
                    "collections": (STRINGS, "Ids of nested collections."),
                },
                plain=("id",),
            ),
            required=("id",),
        ),
        "Record": _object(
            "A record (one item of a project's data) in the stored shape.",
            _fields(
                {
                    "id": (STRING, "Repository IRI."),
                    "pid": (STRING, "ARK URL; its last segment names the record in URLs."),
                    "label": (text, "Label."),
                    "accessRights": (STRING, "Access right."),
                    "legalInfo": (_ref("LegalInfo"), "Licence and copyright."),
                    "howToCite": (STRING, "Citation."),
                    "publisher": (STRING, "Publisher."),
                    "dateCreated": (STRING, "ISO 8601 timestamp."),
                    "dateModified": (STRING, "ISO 8601 timestamp."),
                    "datePublished": (STRING, "ISO 8601 timestamp."),
                    "typeOfData": ({"anyOf": [STRING, STRINGS]}, "Type of data, e.g. Text."),
                    "keywords": (_array(text), "Keywords."),
                    "description": (text, "Description."),
                    "size": ({"type": ["string", "integer"]}, "Size."),
                    "file": (
                        _object(
                            "The record's file.",
                            _fields({"mimeType": (STRING, "MIME type."), "url": (STRING, "Download URL.")}),
                        ),
                        "The record's file.",
                    ),
                }
            ),
        ),
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
        "Allow": {"description": "The methods the API allows: GET, HEAD.", "schema": STRING},
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


def _operation(operation_id: str, summary: str, responses: dict[str, Schema], *parameters: str) -> Schema:
    return {
        "get": {
            "operationId": operation_id,
            "summary": summary,
            "parameters": [*({"$ref": f"#/components/parameters/{p}"} for p in parameters), CONDITIONAL],
            "responses": {**responses, "304": NOT_MODIFIED},
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
            "All projects, ordered by shortcode",
            {
                "200": _ok("Every project.", _array(_ref("Project"))),
                "400": _problem("A query parameter was given (this endpoint takes none)."),
            },
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
                },
            }
        },
    }


def openapi_document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "svc metadata API",
            "version": "2",
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
        },
    }


@functools.cache
def openapi_bytes() -> bytes:
    return json.dumps(openapi_document(), ensure_ascii=False, indent=1).encode()
