"""Resumption tokens (SPEC §5.5): stateless, URL-safe, verb-specific, bound to the data version."""

from __future__ import annotations

import re

import pytest

from oaipmh import tokens
from tests.oai_support import NS, errors, harvest, identifiers, load, oai, project, record, serving, token

serve = pytest.fixture(serving)
STATE = tokens.ListState("ListRecords", "oai_datacite", "project:0803", 10, 20, 3, 41, 100, 4283)


def test_round_trip_and_url_safety():
    encoded = tokens.encode(STATE, "a" * 24)
    assert re.fullmatch(r"[A-Za-z0-9_-]+", encoded)
    assert tokens.decode(encoded, "ListRecords", "a" * 24) == STATE


@pytest.mark.parametrize(
    ("verb", "version", "message"),
    [
        ("ListIdentifiers", "a" * 24, "does not belong to ListIdentifiers"),
        ("ListRecords", "b" * 24, "data changed"),
        ("ListRecords", "a" * 8 + "c" * 16, "damaged"),  # same clear prefix, other data version
    ],
)
def test_refused(verb, version, message):
    encoded = tokens.encode(STATE, "a" * 24)
    with pytest.raises(tokens.BadResumptionToken, match=message):
        tokens.decode(encoded, verb, version)


def test_every_bit_matters():
    encoded = tokens.encode(STATE, "a" * 24)
    for position in range(0, len(encoded), 7):
        changed = encoded[:position] + ("B" if encoded[position] != "B" else "C") + encoded[position + 1 :]
        with pytest.raises(tokens.BadResumptionToken):
            tokens.decode(changed, "ListRecords", "a" * 24)


def two_versions(tmp_path):
    files = {
        "projects/a.json": project("0AAA"),
        "records/0AAA-records.json": [record("0AAA", f"r{n:03d}") for n in range(250)],
    }
    first = load(tmp_path / "first", files)
    files["projects/a.json"] = project("0AAA", status="Ongoing")
    second = load(tmp_path / "second", files)
    assert first.data_version != second.data_version
    return first, second


def test_a_token_from_other_data_is_refused(client, serve, tmp_path):
    first, second = two_versions(tmp_path)
    serve(first)
    issued = token(oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc")).text
    serve(second)
    refused = oai(client, verb="ListIdentifiers", resumptionToken=issued)
    assert errors(refused) == ["badResumptionToken"]
    assert "start the list again" in refused.findtext("o:error", namespaces=NS)


def test_a_page_deep_in_the_list_is_served_from_its_position(client, serve, tmp_path):
    """The token carries the position: the third page does not depend on reading the first two."""
    first, _ = two_versions(tmp_path)
    serve(first)
    listed, pages = harvest(client, metadataPrefix="oai_dc")
    assert len(listed) == 251 and len(pages) == 3
    third = tokens.ListState("ListIdentifiers", "oai_dc", None, None, None, 0, 199, 200, 251)
    page = oai(client, verb="ListIdentifiers", resumptionToken=tokens.encode(third, first.data_version))
    assert identifiers(page) == listed[200:]
    assert token(page).text is None and token(page).get("cursor") == "200"
