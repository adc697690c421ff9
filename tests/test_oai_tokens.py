"""Resumption tokens (SPEC §5.5): stateless, short, signed, verb-specific, expiring, valid across releases."""

from __future__ import annotations

import re
import time

import pytest

from oaipmh import tokens
from tests.oai_support import NS, errors, harvest, identifiers, load, oai, project, record, serving, token

serve = pytest.fixture(serving)
KEY = b"k" * 64
NOW = 1_800_000_000
STATE = tokens.ListState(
    "ListRecords",
    "oai_datacite",
    "project:0803",
    10,
    20,
    NOW - 60,
    False,
    ("0803", "https://ark.dasch.swiss/ark:/72163/1/0803/lklK7rVuVOmpBZYWrF8o=gh"),
    100,
    4283,
)


def test_round_trip_url_safety_and_size():
    encoded = tokens.encode(STATE, KEY)
    assert re.fullmatch(r"[A-Za-z0-9_-]+", encoded)
    assert len(encoded) <= 200
    assert tokens.decode(encoded, "ListRecords", KEY, NOW) == STATE


@pytest.mark.parametrize(
    ("verb", "key", "now", "message"),
    [
        ("ListIdentifiers", KEY, NOW, "does not belong to ListIdentifiers"),
        ("ListRecords", b"o" * 64, NOW, "not one this repository issued"),
        ("ListRecords", KEY, NOW - 60 + tokens.LIFETIME + 1, "expired"),
    ],
)
def test_refused_with_a_reason(verb, key, now, message):
    encoded = tokens.encode(STATE, KEY)
    with pytest.raises(tokens.BadResumptionToken, match=message):
        tokens.decode(encoded, verb, key, now)


def test_every_character_matters():
    encoded = tokens.encode(STATE, KEY)
    for position in range(len(encoded)):
        changed = encoded[:position] + ("B" if encoded[position] != "B" else "C") + encoded[position + 1 :]
        with pytest.raises(tokens.BadResumptionToken):
            tokens.decode(changed, "ListRecords", KEY, NOW)


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


def test_without_a_ledger_a_token_from_other_data_is_refused(client, serve, tmp_path):
    first, second = two_versions(tmp_path)
    serve(first)
    issued = token(oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc")).text
    serve(second)
    refused = oai(client, verb="ListIdentifiers", resumptionToken=issued)
    assert errors(refused) == ["badResumptionToken"]
    assert "issued for other data" in refused.findtext("o:error", namespaces=NS)


def test_a_page_deep_in_the_list_is_served_from_its_key(client, serve, tmp_path):
    """The token names the last item delivered: the third page does not depend on reading the first two."""
    first, _ = two_versions(tmp_path)
    serve(first)
    listed, pages = harvest(client, metadataPrefix="oai_dc")
    assert len(listed) == 251 and len(pages) == 3
    last_of_second_page = first.records_of(first.get_project("0AAA")).pids[198]
    third = tokens.ListState(
        "ListIdentifiers", "oai_dc", None, None, None, int(time.time()), False, ("0aaa", last_of_second_page), 200, 251
    )
    page = oai(client, verb="ListIdentifiers", resumptionToken=tokens.encode(third, first.data_version.encode()))
    assert identifiers(page) == listed[200:]
    assert token(page).text is None and token(page).get("cursor") == "200"


def test_a_token_has_an_expiration_date(client, serve, tmp_path):
    first, _ = two_versions(tmp_path)
    serve(first)
    issued = token(oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc"))
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", issued.get("expirationDate"))
