"""Paths of the pages and of the JSON documents, as plain functions.

View models are built outside a request (once per catalogue), so they build
their links here instead of through Django's ``reverse``; ``catalog/urls.py``
declares the same shapes and a test keeps the two in step.
"""

from __future__ import annotations

from urllib.parse import quote


def _segment(value: str) -> str:
    """One path segment, quoted the way Django's ``reverse`` quotes it."""
    return quote(value, safe="!$&'()*+,;=:@~")


def projects_path() -> str:
    return "/projects"


def project_path(shortcode: str, tab: str | None = None) -> str:
    path = f"/projects/{_segment(shortcode)}"
    return f"{path}?tab={tab}" if tab and tab != "overview" else path


def records_path(shortcode: str, page: int = 1) -> str:
    path = f"/projects/{_segment(shortcode)}/records"
    return f"{path}?page={page}" if page > 1 else path


def record_suffix(pid: str) -> str:
    """The last segment of a record's pid: the record part of its page URL."""
    return pid.rstrip("/").rpartition("/")[2]


def record_path(shortcode: str, pid: str) -> str:
    return f"/projects/{_segment(shortcode)}/records/{_segment(record_suffix(pid))}"


def changes_feed_path() -> str:
    return "/feeds/changes.atom"


def project_feed_path(shortcode: str) -> str:
    """The Atom feed of changes to a project's records."""
    return f"{project_path(shortcode)}/changes.atom"


def citation_path(shortcode: str, extension: str) -> str:
    return f"/projects/{_segment(shortcode)}/citation.{extension}"


def person_path(person_id: str) -> str:
    return f"/persons/{_segment(person_id)}"


def organization_path(organization_id: str) -> str:
    return f"/organizations/{_segment(organization_id)}"


def cluster_path(cluster_id: str) -> str:
    return f"/clusters/{_segment(cluster_id)}"


def collection_path(collection_id: str) -> str:
    return f"/collections/{_segment(collection_id)}"


# The JSON API (served by catalog.api.urls under /api/v2/).
API_ROOT = "/api/v2"


def project_json_path(shortcode: str) -> str:
    return f"{API_ROOT}/projects/{_segment(shortcode)}"


def record_json_path(shortcode: str, pid: str) -> str:
    return f"{API_ROOT}/projects/{_segment(shortcode)}/records/{_segment(record_suffix(pid))}"


def person_json_path(person_id: str) -> str:
    return f"{API_ROOT}/persons/{_segment(person_id)}"


def organization_json_path(organization_id: str) -> str:
    return f"{API_ROOT}/organizations/{_segment(organization_id)}"


def cluster_json_path(cluster_id: str) -> str:
    return f"{API_ROOT}/clusters/{_segment(cluster_id)}"


def collection_json_path(collection_id: str) -> str:
    return f"{API_ROOT}/collections/{_segment(collection_id)}"
