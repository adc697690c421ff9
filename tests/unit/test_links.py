"""catalog.formats.links: the one place page and API paths, record suffixes and path segments are made."""

from __future__ import annotations

from urllib.parse import unquote

import pytest
from django.urls import reverse

from catalog.formats import links


@pytest.mark.parametrize(
    ("pid", "suffix"),
    [
        ("https://ark.dasch.swiss/ark:/72163/1/0803/abc", "abc"),
        ("https://ark.dasch.swiss/ark:/72163/1/0803/abc/", "abc"),  # a trailing slash names the same record
        ("abc", "abc"),
    ],
)
def test_record_suffix_is_the_last_segment(pid, suffix):
    assert links.record_suffix(pid) == suffix


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        ("0803", "0803"),
        ("person-001", "person-001"),
        ("a b", "a%20b"),
        ("a/b", "a%2Fb"),
        ("50%", "50%25"),
        ("x?y#z", "x%3Fy%23z"),
        ("Zürich", "Z%C3%BCrich"),
        ("a:b@c!$&'()*+,;=", "a:b@c!$&'()*+,;="),  # RFC 3986 pchar stays as it is
    ],
)
def test_segment_encodes_what_a_path_segment_may_not_hold(value, encoded):
    assert links.segment(value) == encoded
    assert unquote(encoded) == value


@pytest.mark.parametrize("value", ["0803", "a b", "50%", "Zürich", "x?y#z", "a:b@c!$&'()*+,;="])
def test_segment_quotes_as_django_reverse_does(value):
    assert links.person_path(value) == reverse("person", args=[value])


def test_page_and_api_paths():
    pid = "https://ark.example.org/ark:/99999/1/0A0F/rec 1/"
    assert links.project_path("0A0F") == "/projects/0A0F"
    assert links.project_path("0A0F", "overview") == "/projects/0A0F"
    assert links.project_path("0A0F", "records") == "/projects/0A0F?tab=records"
    assert links.records_path("0A0F") == "/projects/0A0F/records"
    assert links.records_path("0A0F", 3) == "/projects/0A0F/records?page=3"
    assert links.record_path("0A0F", pid) == "/projects/0A0F/records/rec%201"
    assert links.record_json_path("0A0F", pid) == "/api/v2/projects/0A0F/records/rec%201"
    assert links.citation_path("0A0F", "bib") == "/projects/0A0F/citation.bib"
    assert links.cluster_json_path("cluster-001") == "/api/v2/clusters/cluster-001"
