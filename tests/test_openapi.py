"""The OpenAPI document: valid OpenAPI 3.1, complete, and true of the real responses.

Conformance is checked by schemathesis against the served document: every
endpoint's real answers for every entity of the corpus and of a small
fictional data set, then a bounded property-based run that sends generated
valid and invalid requests to every operation.
"""

from __future__ import annotations

import json
import re
import socket

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

from catalog.api.openapi import (
    ENTITY_KINDS,
    HEADER_FIELD_LIMIT,
    HEADER_FIELDS_LIMIT,
    REQUEST_LINE_LIMIT,
    openapi_document,
)
from catalog.domain.loader import load_catalog
from catalog.domain.schema import SCHEMA_DIR, SCHEMA_FILES
from catalog.runtime import install
from svc_site.wsgi import application
from tests.api_data_sets import corpus_catalog, stored_objects, write_small_data_set
from tests.conftest import SAMPLE_DIR

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


@pytest.mark.slow
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
    """The document's entity schemas are built from catalog/domain/schemas: same fields, same shared definitions."""
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


@pytest.mark.slow
@generated.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_generated_requests_get_documented_answers(case):
    """Valid and invalid generated requests: never a 500, always a documented status, type, header and body."""
    install(corpus_catalog())
    case.call_and_validate(headers=PLAIN, checks=[*CONFORMANCE_CHECKS, negative_data_rejection])


# A request too large to read is answered by the HTTP server (gunicorn) itself: over a real `svc serve`.
SAMPLE_PATHS = {
    "{shortcode}": "0803",
    "{record}": "none",
    "{id}": "none",
}


def _raw_status(server_url: str, request: bytes) -> tuple[int, str]:
    host, port = server_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    content_type = next(
        (line.split(":", 1)[1].strip() for line in head if line.lower().startswith("content-type:")), ""
    )
    return int(head[0].split()[1]), content_type


def _request_line(path: str, length: int) -> bytes:
    """``GET <path>?x=… HTTP/1.1``, exactly ``length`` bytes without its line end."""
    start, end = f"GET /api/v2{path}?x=", " HTTP/1.1"
    return (start + "a" * (length - len(start) - len(end)) + end).encode()


@pytest.mark.parametrize("path", sorted(openapi_document()["paths"]))
def test_oversized_requests_get_the_documented_414_and_431(corpus_server, path):
    document = openapi_document()
    responses = document["paths"][path]["get"]["responses"]
    concrete = path
    for parameter, value in SAMPLE_PATHS.items():
        concrete = concrete.replace(parameter, value)
    line_limit, field_limit, fields_limit = REQUEST_LINE_LIMIT, HEADER_FIELD_LIMIT, HEADER_FIELDS_LIMIT
    # Two fields of every request; Connection: close, so that an answer that keeps the connection ends it.
    host = b"\r\nHost: localhost\r\nConnection: close"
    url = corpus_server.base_url

    assert _raw_status(url, _request_line(concrete, line_limit + 1) + host + b"\r\n\r\n") == (414, "text/html")
    assert _raw_status(url, _request_line(concrete, line_limit) + host + b"\r\n\r\n")[0] == 400
    field = b"\r\nX-Long: " + b"a" * (field_limit - len("X-Long: \r\n") + 1)
    too_many = b"".join(b"\r\nX-Field-%d: v" % number for number in range(fields_limit - 2 + 1))
    plain = f"GET /api/v2{concrete} HTTP/1.1".encode() + host
    assert _raw_status(url, plain + field + b"\r\n\r\n") == (431, "text/html")
    assert _raw_status(url, plain + field[:-1] + b"\r\n\r\n")[0] != 431
    assert _raw_status(url, plain + too_many + b"\r\n\r\n") == (431, "text/html")
    assert _raw_status(url, plain + too_many[: too_many.rindex(b"\r\n")] + b"\r\n\r\n")[0] != 431
    assert responses["414"] == {"$ref": "#/components/responses/RequestLineTooLong"}
    assert responses["431"] == {"$ref": "#/components/responses/HeaderFieldsTooLarge"}
    assert set(document["components"]["responses"]["RequestLineTooLong"]["content"]) == {"text/html"}
