"""The JSON API under /api/v2/, through the Django test client, on the corpus and on a small fictional data set."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from django.test import Client

from catalog.domain.loader import load_catalog
from catalog.runtime import install
from tests.api_data_sets import SMALL_RECORDS, corpus_catalog, stored_objects, write_small_data_set
from tests.conftest import CORPUS_DIR
from tests.http_support import head_and_get, same_headers

API = "/api/v2"
PROBLEM_JSON = "application/problem+json"


@pytest.fixture
def client() -> Client:
    install(corpus_catalog())
    return Client()


@pytest.fixture
def small_client(tmp_path) -> Client:
    install(load_catalog(write_small_data_set(tmp_path / "data")))
    return Client()


def assert_problem(response, status: int, *words: str) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM_JSON
    assert response["Access-Control-Allow-Origin"] == "*"
    body = response.json()
    assert body["status"] == status and body["type"] == "about:blank" and body["title"]
    for word in words:
        assert word in body["detail"]
    return body


def get_json(client: Client, path: str, **headers: str):
    response = client.get(path, **headers)
    assert response.status_code == 200, (path, response.content)
    assert response["Content-Type"] == "application/json"
    assert response["Access-Control-Allow-Origin"] == "*"
    return response.json()


# --- lists and members in the stored shape -------------------------------------------------------------------


def test_project_list_is_the_stored_array_ordered_by_shortcode(client):
    projects = get_json(client, f"{API}/projects")
    stored = sorted(stored_objects(CORPUS_DIR, "projects"), key=lambda p: p["shortcode"].lower())
    assert isinstance(projects, list) and len(projects) == 85
    assert projects == stored  # camelCase keys, every field, order
    assert "shortDescription" in projects[0] and "howToCite" in projects[0]


@pytest.mark.parametrize(
    ("kind", "count"), [("persons", 416), ("organizations", 142), ("clusters", 5), ("collections", 0)]
)
def test_entity_lists_are_complete_and_ordered_by_id(client, kind, count):
    listing = get_json(client, f"{API}/{kind}")
    assert listing == sorted(stored_objects(CORPUS_DIR, kind), key=lambda entity: entity["id"])
    assert len(listing) == count


@pytest.mark.parametrize("kind", ["persons", "organizations", "clusters"])
def test_every_member_is_served_as_stored(client, kind):
    for stored in stored_objects(CORPUS_DIR, kind):
        assert get_json(client, f"{API}/{kind}/{quote(stored['id'])}") == stored


def test_every_project_by_shortcode_in_any_case(client):
    for stored in stored_objects(CORPUS_DIR, "projects"):
        shortcode = stored["shortcode"]
        for variant in {shortcode, shortcode.lower(), shortcode.upper()}:
            assert get_json(client, f"{API}/projects/{variant}") == stored


def test_malformed_and_unknown_shortcodes(client):
    for malformed in ["08-03", "0803!", "x" * 17, "%20", "0803.json", "ü803"]:
        assert_problem(client.get(f"{API}/projects/{malformed}"), 400, "malformed shortcode")
        assert_problem(client.get(f"{API}/projects/{malformed}/records"), 400, "malformed shortcode")
        assert_problem(client.get(f"{API}/projects/{malformed}/records/abc"), 400, "malformed shortcode")
    for unknown in ["ffff", "0", "0803a", "x" * 16]:
        assert_problem(client.get(f"{API}/projects/{unknown}"), 404, f"no project with shortcode '{unknown}'")
        assert_problem(client.get(f"{API}/projects/{unknown}/records"), 404, "no project")


def test_unknown_ids(client):
    for kind in ["persons", "organizations", "clusters", "collections"]:
        assert_problem(client.get(f"{API}/{kind}/nobody-999"), 404, "nobody-999")
    # Ids match exactly: a different case is another id.
    assert_problem(client.get(f"{API}/persons/PERSON-001"), 404)


def test_small_data_set_keeps_unknown_fields_placeholders_and_collections(small_client):
    projects = get_json(small_client, f"{API}/projects")
    assert [p["shortcode"] for p in projects] == ["0A0F", "0b1c"]
    lighthouse = get_json(small_client, f"{API}/projects/0a0f")
    assert lighthouse["futureField"] == {"nested": [1, 2, {"deep": True}], "note": "kept as stored"}
    assert lighthouse["endDate"] == "MISSING" and lighthouse["funding"] == "No funding"
    assert get_json(small_client, f"{API}/projects/0B1C")["keywords"] == "MISSING"
    collections = get_json(small_client, f"{API}/collections")
    assert [c["id"] for c in collections] == ["collection-001", "collection-002"]
    assert get_json(small_client, f"{API}/collections/collection-001")["collections"] == ["collection-002"]
    assert get_json(small_client, f"{API}/persons/{quote('person-ä&b')}")["familyNames"] == ["Quill"]
    assert get_json(small_client, f"{API}/persons/person-002")["hobby"] == "unknown field"
    assert get_json(small_client, f"{API}/organizations/org%201")["name"] == {"en": "Imaginary Archive"}


# --- records: pagination ----------------------------------------------------------------------------------------


def corpus_records() -> list[dict]:
    return sorted(stored_objects(CORPUS_DIR, "records"), key=lambda record: record["pid"])


def test_records_first_page_defaults(client):
    response = client.get(f"{API}/projects/0803/records")
    page = response.json()
    assert page["count"] == 4198 and page["page"] == 1 and page["pageSize"] == 100 and page["pageCount"] == 42
    assert page["items"] == corpus_records()[:100]
    assert page["previous"] is None
    assert page["next"] == "http://testserver/api/v2/projects/0803/records?page=2&page_size=100"
    assert response["Link"] == (
        '<http://testserver/api/v2/projects/0803/records?page=1&page_size=100>; rel="first", '
        '<http://testserver/api/v2/projects/0803/records?page=2&page_size=100>; rel="next", '
        '<http://testserver/api/v2/projects/0803/records?page=42&page_size=100>; rel="last"'
    )
    assert "Link" in response["Access-Control-Expose-Headers"]


def test_following_next_links_yields_every_record_once_in_pid_order(client):
    url, items, pages = f"{API}/projects/0803/records?page_size=1000", [], 0
    while url:
        page = get_json(client, url)
        items.extend(page["items"])
        pages += 1
        url = page["next"]
    assert pages == 5 and items == corpus_records()


def test_middle_and_last_pages(client):
    middle = client.get(f"{API}/projects/0803/records?page=3&page_size=7")
    body = middle.json()
    assert body["items"] == corpus_records()[14:21] and body["pageCount"] == 600
    assert body["previous"].endswith("?page=2&page_size=7") and body["next"].endswith("?page=4&page_size=7")
    assert 'rel="prev"' in middle["Link"] and 'rel="next"' in middle["Link"]
    last = client.get(f"{API}/projects/0803/records?page=42")
    assert last.json()["items"] == corpus_records()[4100:] and last.json()["next"] is None
    assert 'rel="next"' not in last["Link"] and 'rel="prev"' in last["Link"]


def test_the_shortcode_is_case_insensitive_for_records_and_links_keep_the_request_path(client):
    page = get_json(client, f"{API}/projects/0803/records?page=1&page_size=2", HTTP_HOST="api.example.org")
    assert page["next"] == "http://api.example.org/api/v2/projects/0803/records?page=2&page_size=2"
    assert get_json(client, f"{API}/projects/0803/records?page=2&page_size=2")["items"] == corpus_records()[2:4]


def test_project_without_records_has_one_empty_page(client):
    page = get_json(client, f"{API}/projects/0101/records")
    assert page == {"count": 0, "page": 1, "pageSize": 100, "pageCount": 1, "next": None, "previous": None, "items": []}
    assert_problem(client.get(f"{API}/projects/0101/records?page=2"), 404, "past the last page (1)")


def test_pages_past_the_end_are_404(client):
    assert_problem(client.get(f"{API}/projects/0803/records?page=43"), 404, "page 43 is past the last page (42)")
    assert_problem(client.get(f"{API}/projects/0803/records?page=6&page_size=1000"), 404, "last page (5)")
    assert_problem(client.get(f"{API}/projects/0803/records?page=" + "9" * 5000), 404, "past the last page")


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("page=0", "page must be a positive integer"),
        ("page=-1", "page must be a positive integer"),
        ("page=abc", "page must be a positive integer"),
        ("page=1.5", "page must be a positive integer"),
        ("page=1e3", "page must be a positive integer"),
        ("page=%201", "page must be a positive integer"),
        ("page=", "page must be a positive integer"),
        ("page=%D9%A1", "page must be a positive integer"),  # an Arabic-Indic digit one
        ("page_size=0", "page_size must be a positive integer"),
        ("page_size=1001", "page_size must be at most 1000"),
        ("page_size=" + "9" * 40, "page_size must be at most 1000"),
        ("page_size=x", "page_size must be a positive integer"),
        ("page=1&page=2", "'page' is given 2 times"),
        ("pagesize=10", "unknown query parameter 'pagesize'"),
        ("page=1&offset=3", "unknown query parameter 'offset'"),
        ("%ff=1", "unknown query parameter"),
    ],
)
def test_bad_pagination_parameters_are_400(client, query, words):
    assert_problem(client.get(f"{API}/projects/0803/records?{query}"), 400, words)


def test_a_flood_of_query_parameters_is_a_json_400(client):
    query = "&".join(f"p{n}=1" for n in range(1500))
    assert_problem(client.get(f"{API}/projects/0803/records?{query}"), 400, "number of GET/POST parameters")


def test_leading_zeros_are_accepted(client):
    assert get_json(client, f"{API}/projects/0803/records?page=002&page_size=0010")["items"] == corpus_records()[10:20]


def test_page_size_bounds(client):
    assert len(get_json(client, f"{API}/projects/0803/records?page_size=1")["items"]) == 1
    assert len(get_json(client, f"{API}/projects/0803/records?page_size=1000")["items"]) == 1000


# --- one record -------------------------------------------------------------------------------------------------


def test_every_record_by_the_last_segment_of_its_pid(client):
    for stored in corpus_records()[::97] + corpus_records()[-1:]:
        suffix = stored["pid"].rpartition("/")[2]
        assert get_json(client, f"{API}/projects/0803/records/{quote(suffix)}") == stored


def test_record_with_reserved_characters_and_unknown_records(small_client):
    assert get_json(small_client, f"{API}/projects/0a0f/records/rec=1") == SMALL_RECORDS[1]
    assert get_json(small_client, f"{API}/projects/0A0F/records/rec%3D1") == SMALL_RECORDS[1]
    assert_problem(small_client.get(f"{API}/projects/0A0F/records/rec-9"), 404, "has no record 'rec-9'")
    assert_problem(small_client.get(f"{API}/projects/0b1c/records/rec-2"), 404, "project '0b1c' has no record")
    assert_problem(small_client.get(f"{API}/projects/0A0F/records/rec-2/more"), 404, "no API endpoint")


def test_records_of_the_small_data_set_are_ordered_by_pid(small_client):
    page = get_json(small_client, f"{API}/projects/0A0F/records")
    assert [record["pid"].rpartition("/")[2] for record in page["items"]] == ["rec-2", "rec-3", "rec=1"]


# --- endpoints without parameters, unknown paths, methods -------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "projects/0803",
        "persons",
        "persons/person-001",
        "organizations",
        "clusters",
        "collections",
        "projects/0803/records/NNDkHRthUuKwfKVGaX7H7gY",
        "openapi.json",
    ],
)
def test_endpoints_without_parameters_refuse_query_parameters(client, path):
    assert_problem(client.get(f"{API}/{path}?page=2"), 400, "unknown query parameter 'page'", "accepts: none")


def test_the_project_listing_takes_the_listing_search_and_nothing_else(client):
    """/api/v2/projects answers the search of /projects (text, facets, years, sort) with the same projects, in order."""
    found = get_json(client, f"{API}/projects?q=Gothelf")
    assert [project["shortcode"] for project in found] == ["0862"]
    by_name = get_json(client, f"{API}/projects?q=basel&sort=name")
    best = get_json(client, f"{API}/projects?q=basel")
    assert len(by_name) == len(best) > 1 and by_name != best
    assert sorted(p["shortcode"] for p in by_name) == sorted(p["shortcode"] for p in best)
    assert_problem(client.get(f"{API}/projects?page=2"), 400, "unknown query parameter 'page'", "accepts: q, sort")
    assert_problem(
        client.get(f"{API}/projects?sort=random"),
        400,
        "sort must be one of relevance, name, name-desc, newest, oldest, not 'random'",
    )
    assert_problem(client.get(f"{API}/projects?sort="), 400, "sort must be one of relevance")
    assert_problem(client.get(f"{API}/projects?to="), 400, "'to'")


@pytest.mark.parametrize(
    "path",
    ["", "nope", "projects/", "projects/0803/", "projects/0803/records/", "persons/person-001/x", "v3/projects"],
)
def test_unknown_api_paths_are_json_404(client, path):
    assert_problem(client.get(f"{API}/{path}"), 404, "no API endpoint", "/api/v2/openapi.json")


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete", "trace"])
@pytest.mark.parametrize("path", ["projects", "projects/0803/records", "persons/person-001", "openapi.json", "nope"])
def test_only_get_and_head_are_allowed(client, method, path):
    response = getattr(client, method)(f"{API}/{path}")
    assert_problem(response, 405, f"method {method.upper()} is not allowed")
    assert response["Allow"] == "GET, HEAD, OPTIONS"  # OPTIONS: the CORS preflight


def test_head_answers_headers_without_a_body(corpus_server):
    # Over a socket: Django's test client would drop a HEAD body itself.
    for path, status in ((f"{API}/projects/0803/records?page=2", 200), (f"{API}/projects/ffff", 404)):
        head, get = head_and_get(corpus_server.base_url, path, headers={"Accept-Encoding": "gzip"})
        assert head.status == get.status == status and head.body == b""
        assert same_headers(head, get) and int(head.headers["content-length"]) == len(get.body)
        assert ("link" in head.headers) is (status == 200)


# --- caching and CORS -------------------------------------------------------------------------------------------


def test_conditional_get_with_the_etag(client):
    response = client.get(f"{API}/projects/0803")
    etag = response["ETag"]
    assert etag.startswith('"') and corpus_catalog().data_version in etag
    assert response["Cache-Control"].startswith("public")
    not_modified = client.get(f"{API}/projects/0803", HTTP_IF_NONE_MATCH=etag)
    assert not_modified.status_code == 304 and not_modified.content == b""
    assert not_modified["ETag"] == etag and not_modified["Access-Control-Allow-Origin"] == "*"
    # The tag names this body, not the data version alone: another resource does not match it.
    assert client.get(f"{API}/projects", HTTP_IF_NONE_MATCH=etag).status_code == 200
    assert client.get(f"{API}/projects/0803", HTTP_IF_NONE_MATCH='"other"').status_code == 200
    # Errors carry no validator: a conditional request for a missing resource is still a 404.
    assert "ETag" not in client.get(f"{API}/projects/ffff")
    assert client.get(f"{API}/projects/ffff", HTTP_IF_NONE_MATCH=etag).status_code == 404


def test_new_data_changes_the_etag_and_the_answers(client, tmp_path):
    etag = client.get(f"{API}/projects")["ETag"]
    assert len(client.get(f"{API}/projects").json()) == 85
    install(load_catalog(write_small_data_set(tmp_path / "data")))
    response = client.get(f"{API}/projects", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200 and response["ETag"] != etag
    assert len(response.json()) == 2


def test_json_bodies_are_utf8(client):
    response = client.get(f"{API}/projects/0803")
    assert "Frühdrucke".encode() in response.content  # UTF-8, not \\u escapes
    assert json.loads(response.content) in client.get(f"{API}/projects").json()
