"""Paths of the pages and of the JSON documents, as plain functions.

View models are built outside a request (once per catalogue), so they build
their links here instead of through Django's ``reverse``; ``catalog/urls.py``
declares the same shapes and a test keeps the two in step.
"""

from __future__ import annotations

import re
from urllib.parse import quote

# RFC 3986 pchar minus the percent sign: what a path segment may hold unencoded
# (the set Django's ``reverse`` leaves as it is).
_SEGMENT_SAFE = "-._~!$&'()*+,;=:@"
_PLAIN_SEGMENT_RE = re.compile(r"[A-Za-z0-9._~=-]*")


def segment(value: str) -> str:
    """One URL path segment, percent-encoded where needed."""
    if _PLAIN_SEGMENT_RE.fullmatch(value):
        return value  # the common case (ids, pids), without quote()'s cost
    return quote(value, safe=_SEGMENT_SAFE)


def projects_path() -> str:
    return "/projects"


def project_path(shortcode: str, tab: str | None = None) -> str:
    path = f"/projects/{segment(shortcode)}"
    return f"{path}?tab={tab}" if tab and tab != "overview" else path


def all_records_path() -> str:
    """The search across the records of every project."""
    return "/records"


def all_records_json_path() -> str:
    return "/api/v2/records"


def records_path(shortcode: str, page: int = 1) -> str:
    path = f"/projects/{segment(shortcode)}/records"
    return f"{path}?page={page}" if page > 1 else path


def record_suffix(pid: str) -> str:
    """The last segment of a record's pid: the record part of its page URL."""
    return pid.rstrip("/").rpartition("/")[2]


def record_path(shortcode: str, pid: str) -> str:
    return f"/projects/{segment(shortcode)}/records/{segment(record_suffix(pid))}"


def changes_feed_path() -> str:
    return "/feeds/changes.atom"


def project_feed_path(shortcode: str) -> str:
    """The Atom feed of changes to a project's records."""
    return f"{project_path(shortcode)}/changes.atom"


def citation_path(shortcode: str, extension: str) -> str:
    return f"/projects/{segment(shortcode)}/citation.{extension}"


def person_path(person_id: str) -> str:
    return f"/persons/{segment(person_id)}"


def organization_path(organization_id: str) -> str:
    return f"/organizations/{segment(organization_id)}"


def cluster_path(cluster_id: str) -> str:
    return f"/clusters/{segment(cluster_id)}"


def collection_path(collection_id: str) -> str:
    return f"/collections/{segment(collection_id)}"


# The JSON API (served by catalog.api.urls under /api/v2/).
API_ROOT = "/api/v2"


def project_json_path(shortcode: str) -> str:
    return f"{API_ROOT}/projects/{segment(shortcode)}"


def record_json_path(shortcode: str, pid: str) -> str:
    return f"{API_ROOT}/projects/{segment(shortcode)}/records/{segment(record_suffix(pid))}"


def person_json_path(person_id: str) -> str:
    return f"{API_ROOT}/persons/{segment(person_id)}"


def organization_json_path(organization_id: str) -> str:
    return f"{API_ROOT}/organizations/{segment(organization_id)}"


def cluster_json_path(cluster_id: str) -> str:
    return f"{API_ROOT}/clusters/{segment(cluster_id)}"


def collection_json_path(collection_id: str) -> str:
    return f"{API_ROOT}/collections/{segment(collection_id)}"


# The DCAT-AP catalogue (served by catalog.pages.dcat_views).
CATALOGUE_DCAT_PATH = "/catalogue/dcat"


def about_path() -> str:
    return "/about"
