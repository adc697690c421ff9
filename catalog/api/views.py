"""JSON API views: thin wrappers over :mod:`catalog.api.payloads`.

Every endpoint shares one policy (:func:`api_endpoint`): GET and HEAD only (and
OPTIONS, a browser's CORS preflight),
errors as RFC 9457 problem documents, successful answers marked cacheable (their
ETag, compression, conditional GET and Cache-Control come from svc_site.cache,
as for every page), and CORS open to every origin since
the data is public and read-only.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from http import HTTPStatus
from urllib.parse import urlencode

from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse

from catalog.api.openapi import JSON, PROBLEM_JSON, openapi_bytes
from catalog.api.payloads import (
    ApiError,
    check_parameters,
    find_member,
    find_project,
    find_record,
    link_header,
    page_request,
    payloads_for,
    project_search,
    record_search_page,
    records_page,
)
from catalog.domain.all_records import AllRecordsQuery
from catalog.runtime import catalog_of
from catalog.web.conditional import set_last_modified
from catalog.web.inputs import Input, varies_on
from catalog.web.response_cache import mark_cacheable

ALLOWED_METHODS = ("GET", "HEAD")
# A script on another origin that revalidates (If-None-Match, If-Modified-Since) sends a request that is not
# "simple", so its browser first asks with a CORS preflight (Fetch standard §3.2): OPTIONS, answered alike for
# every request (no Vary needed), cached by the browser for Max-Age seconds (Chromium keeps at most 7200).
PREFLIGHT = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": ", ".join(ALLOWED_METHODS),
    "Access-Control-Allow-Headers": "If-None-Match, If-Modified-Since",
    "Access-Control-Max-Age": "86400",
    "Allow": ", ".join((*ALLOWED_METHODS, "OPTIONS")),
}

View = Callable[..., HttpResponse]


def problem(status: int, detail: str) -> HttpResponse:
    body = {"type": "about:blank", "title": HTTPStatus(status).phrase, "status": status, "detail": detail}
    return HttpResponse(json.dumps(body, separators=(",", ":")), status=status, content_type=PROBLEM_JSON)


def json_bytes(content: bytes) -> HttpResponse:
    return HttpResponse(content, content_type=JSON)


def api_endpoint(view: View) -> View:
    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if request.method == "OPTIONS":
            return HttpResponse(status=204, headers=PREFLIGHT)
        if request.method not in ALLOWED_METHODS:
            response = problem(405, f"method {request.method} is not allowed; the API is read-only (GET, HEAD)")
            response["Allow"] = PREFLIGHT["Allow"]
        else:
            try:
                response = view(request, *args, **kwargs)
            except ApiError as error:
                response = problem(error.status, error.detail)
            except SuspiciousOperation as error:  # e.g. too many query parameters for Django to parse
                response = problem(400, str(error) or "malformed request")
            if response.status_code == 200:
                # The bytes depend only on the data and the declared inputs: kept, tagged, compressed once
                # and answered conditionally by svc_site.cache, like every page.
                mark_cacheable(response)
        response["Access-Control-Allow-Origin"] = "*"
        response["Access-Control-Expose-Headers"] = "ETag, Link"
        return response

    return wrapper


def _no_parameters(request: HttpRequest) -> None:
    check_parameters(dict(request.GET.lists()), ())


def entity_list(kind: str) -> View:
    @varies_on(Input.QUERY, Input.ORIGIN)
    @api_endpoint
    def view(request: HttpRequest) -> HttpResponse:
        catalog = catalog_of(request)
        if kind == "projects" and request.GET:  # the listing's search: q, facets, years, sort
            response = json_bytes(project_search(catalog, dict(request.GET.lists())))
        else:
            _no_parameters(request)
            response = json_bytes(payloads_for(catalog).listing(kind))
        if catalog.ledger:
            set_last_modified(response, catalog.ledger.latest)
        return response

    view.__name__ = f"list_{kind}"
    return view


def entity_detail(kind: str) -> View:
    @varies_on(Input.QUERY, Input.ORIGIN)
    @api_endpoint
    def view(request: HttpRequest, key: str) -> HttpResponse:
        _no_parameters(request)
        return json_bytes(find_member(payloads_for(catalog_of(request)), kind, key))

    view.__name__ = f"get_{kind}"
    return view


@varies_on(Input.QUERY, Input.ORIGIN)
@api_endpoint
def project_detail(request: HttpRequest, shortcode: str) -> HttpResponse:
    _no_parameters(request)
    catalog = catalog_of(request)
    project = find_project(catalog, shortcode)
    response = json_bytes(find_member(payloads_for(catalog), "projects", project.key))
    if catalog.ledger:
        set_last_modified(response, catalog.ledger.project_time(project.key))
    return response


@varies_on(Input.QUERY, Input.ORIGIN)
@api_endpoint
def project_records(request: HttpRequest, shortcode: str) -> HttpResponse:
    catalog = catalog_of(request)
    project = find_project(catalog, shortcode)
    table = catalog.records_of(project)
    page = page_request(dict(request.GET.lists()), len(table) if table is not None else 0)

    def page_url(number: int) -> str:
        query = urlencode({"page": number, "page_size": page.size})
        return request.build_absolute_uri(f"{request.path}?{query}")

    response = json_bytes(records_page(table, page, page_url))
    if catalog.ledger:
        set_last_modified(response, catalog.ledger.project_time(project.key))
    response["Link"] = link_header(page, page_url)
    return response


@varies_on(Input.QUERY, Input.ORIGIN)
@api_endpoint
def records_search(request: HttpRequest) -> HttpResponse:
    """`/api/v2/records`: the search across all records, as the `/records` page runs it."""
    catalog = catalog_of(request)

    def page_url(query: AllRecordsQuery, number: int) -> str:
        return request.build_absolute_uri(query.url(request.path, page=number))

    body, _result, _query = record_search_page(catalog, dict(request.GET.lists()), page_url)
    response = json_bytes(body)
    if catalog.ledger:
        set_last_modified(response, catalog.ledger.latest)
    return response


@varies_on(Input.QUERY, Input.ORIGIN)
@api_endpoint
def project_record(request: HttpRequest, shortcode: str, record: str) -> HttpResponse:
    _no_parameters(request)
    catalog = catalog_of(request)
    project = find_project(catalog, shortcode)
    response = json_bytes(find_record(catalog, project, record))
    table = catalog.records_of(project)
    index = None if table is None else table.index_of_suffix(record)
    if catalog.ledger and index is not None:
        set_last_modified(response, catalog.ledger.record_time(project.key, index))
    return response


@varies_on(Input.QUERY, Input.ORIGIN)
@api_endpoint
def openapi(request: HttpRequest) -> HttpResponse:
    _no_parameters(request)
    return json_bytes(openapi_bytes())


@varies_on(Input.QUERY, Input.ORIGIN)
@api_endpoint
def unknown_endpoint(request: HttpRequest, rest: str) -> HttpResponse:
    raise ApiError(404, f"no API endpoint at {request.path!r}; the endpoints are listed in /api/v2/openapi.json")
