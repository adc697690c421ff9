"""The OpenAPI document: valid OpenAPI 3.1, complete, and true of the real responses.

Conformance is checked by schemathesis against the served document: every
endpoint's real answers for every entity of the corpus and of a small
fictional data set, then a bounded property-based run that sends generated
valid and invalid requests to every operation.
"""

from __future__ import annotations

import json
import re

import jsonschema_rs
import pytest
import schemathesis
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from catalog.api.openapi import ENTITY_KINDS, openapi_document
from catalog.domain.loader import load_catalog
from catalog.runtime import install
from svc_site.wsgi import application
from tests.api_data_sets import corpus_catalog, stored_objects, write_small_data_set
from tests.conftest import SAMPLE_DIR
from validation.schema import SCHEMA_DIR, SCHEMA_FILES

# schemathesis's WSGI transport does not decode content-codings, and the API compresses what a client accepts
# (its default asks for gzip): the documents are checked as sent without one; compression: tests/test_wire.py.
PLAIN = {"Accept-Encoding": "identity"}

CONFORMANCE_CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture
def api_schema():
    install(corpus_catalog())
    return schemathesis.openapi.from_wsgi("/api/v2/openapi.json", application)


def test_the_document_is_served_and_valid_openapi_3_1():
    install(corpus_catalog())
    response = Client().get("/api/v2/openapi.json")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    document = response.json()
    assert document["openapi"] == "3.1.0" and document["servers"] == [{"url": "/api/v2"}]
    assert document == openapi_document()
    validate(document)  # raises on any violation of the OpenAPI 3.1 schema


def _routes(resolver: URLResolver, prefix: str = "") -> list[str]:
    routes = []
    for pattern in resolver.url_patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            routes.extend(_routes(pattern, route))
        elif isinstance(pattern, URLPattern):
            routes.append(route)
    return routes


def test_every_api_route_is_documented_and_every_documented_path_exists():
    api_routes = {
        "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route).removeprefix("api/v2/")
        for route in _routes(get_resolver())
        if route.startswith("api/v2/") and "(?P<rest>" not in route
    }
    documented = Client().get("/api/v2/openapi.json").json()["paths"]
    # The views name the id parameter `key`; the document calls it `id`.
    assert {path.replace("{key}", "{id}") for path in api_routes} == set(documented)
    for path, item in documented.items():
        assert set(item) == {"get"}, path
        responses = item["get"]["responses"]
        assert {"200", "304"} <= set(responses), path
        assert "400" in responses, path  # every endpoint refuses unknown query parameters


def _validate(schema, path: str, **case_parts) -> int:
    case = schema[path]["GET"].Case(**case_parts)
    response = case.call(headers=PLAIN)
    case.validate_response(response, checks=CONFORMANCE_CHECKS)
    return response.status_code


def _conforms_for_every_entity(schema, catalog) -> None:
    for kind in ("projects", "persons", "organizations", "clusters", "collections"):
        assert _validate(schema, f"/{kind}") == 200
    for key in catalog.persons:
        assert _validate(schema, "/persons/{id}", path_parameters={"id": key}) == 200
    for key in catalog.organizations:
        assert _validate(schema, "/organizations/{id}", path_parameters={"id": key}) == 200
    for key in catalog.clusters:
        assert _validate(schema, "/clusters/{id}", path_parameters={"id": key}) == 200
    for key in catalog.collections:
        assert _validate(schema, "/collections/{id}", path_parameters={"id": key}) == 200
    for project in catalog.projects:
        shortcode = {"shortcode": project.shortcode}
        assert _validate(schema, "/projects/{shortcode}", path_parameters=shortcode) == 200
        table = catalog.records_of(project)
        pages = -(-len(table) // 1000) if table is not None else 1
        for page in range(1, max(pages, 1) + 1):
            query = {"page": page, "page_size": 1000}
            assert _validate(schema, "/projects/{shortcode}/records", path_parameters=shortcode, query=query) == 200
        for index in range(0, len(table) if table is not None else 0, 211):
            suffix = table.pids[index].rpartition("/")[2]
            parameters = {**shortcode, "record": suffix}
            assert _validate(schema, "/projects/{shortcode}/records/{record}", path_parameters=parameters) == 200


def test_every_corpus_entity_conforms(api_schema):
    _conforms_for_every_entity(api_schema, corpus_catalog())


def test_every_entity_of_the_small_data_set_conforms(api_schema, tmp_path):
    catalog = load_catalog(write_small_data_set(tmp_path / "data"))
    install(catalog)
    _conforms_for_every_entity(api_schema, catalog)


STALE_ETAG = object()  # stands for a tag of the corpus's data version that matches no response
RECORDS = "/projects/{shortcode}/records"


@pytest.mark.parametrize(
    ("path", "case_parts", "status"),
    [
        ("/projects/{shortcode}", {"path_parameters": {"shortcode": "no-such"}}, 400),
        ("/projects/{shortcode}", {"path_parameters": {"shortcode": "ffff"}}, 404),
        (RECORDS, {"path_parameters": {"shortcode": "0803"}, "query": {"page": 0}}, 400),
        (RECORDS, {"path_parameters": {"shortcode": "0803"}, "query": {"page": 43}}, 404),
        (RECORDS, {"path_parameters": {"shortcode": "0803"}, "query": {"page_size": 5000}}, 400),
        ("/projects/{shortcode}/records/{record}", {"path_parameters": {"shortcode": "0803", "record": "none"}}, 404),
        ("/persons/{id}", {"path_parameters": {"id": "person-999"}}, 404),
        ("/projects", {"query": {"page": 1}}, 400),
        ("/projects", {"headers": {"If-None-Match": STALE_ETAG}}, 200),
    ],
)
def test_errors_conform(api_schema, path, case_parts, status):
    if case_parts.get("headers", {}).get("If-None-Match") is STALE_ETAG:
        case_parts = {"headers": {"If-None-Match": f'"{corpus_catalog().data_version}-x"'}}
    assert _validate(api_schema, path, **case_parts) == status


def _component_validator(document: dict, name: str) -> jsonschema_rs.Draft202012Validator:
    return jsonschema_rs.Draft202012Validator({"$ref": f"#/components/schemas/{name}", **document})


def test_entity_schemas_are_the_validation_schemas():
    """The document's entity schemas are built from validation/schemas: same fields, same shared definitions."""
    document = openapi_document()
    components = document["components"]["schemas"]
    definitions = json.loads((SCHEMA_DIR / "definitions.json").read_text("utf-8"))["$defs"]
    assert set(definitions) <= set(components)
    for entity, kind in ENTITY_KINDS.items():
        stored = json.loads((SCHEMA_DIR / SCHEMA_FILES[kind]).read_text("utf-8"))
        assert set(components[entity]["properties"]) == set(stored["properties"]), entity
        assert components[entity]["description"] == stored["description"], entity
    refs = re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', json.dumps(document))
    assert refs and set(refs) <= set(components)


def test_whatever_svc_validate_accepts_the_document_accepts():
    """Every entity of the sample data (valid: see test_sample_data) matches its schema in the document."""
    document = openapi_document()
    checked = 0
    for entity, kind in ENTITY_KINDS.items():
        validator = _component_validator(document, entity)
        directory = f"{kind}s" if kind != "record" else "records"
        for stored in stored_objects(SAMPLE_DIR, directory):
            assert validator.is_valid(stored), (entity, stored.get("id"))
            checked += 1
    assert checked > 50
    # …and a shape svc validate rejects is refused here too: a person's names must be lists.
    assert not _component_validator(document, "Person").is_valid({"id": "person-1", "givenNames": 3})


# Loaded from the same function that serves /api/v2/openapi.json (collection happens before any catalogue is
# installed); test_the_document_is_served_and_valid_openapi_3_1 checks that the served document is this one.
generated = schemathesis.openapi.from_dict(openapi_document())
generated.app = application


@generated.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_generated_requests_get_documented_answers(case):
    """Valid and invalid generated requests: never a 500, always a documented status, type, header and body."""
    install(corpus_catalog())
    case.call_and_validate(headers=PLAIN, checks=[*CONFORMANCE_CHECKS, negative_data_rejection])
