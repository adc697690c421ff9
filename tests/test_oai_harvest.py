"""Harvesting a real `svc serve` the way aggregators do: with an OAI-PMH client library (Sickle).

Every response a harvest sees is also validated strictly against the XSDs.
"""

from __future__ import annotations

import urllib.parse
import urllib.request

import pytest
from sickle import Sickle

from tests.conftest import CORPUS_DIR, SAMPLE_DIR, Server, start_server, stop_server
from tests.oai_support import HIGH_LIMITS_ENV, OAI_PATH, identifiers, parse_valid, token

DATA_DIRS = [
    pytest.param(CORPUS_DIR, id="corpus"),
    pytest.param(
        SAMPLE_DIR,
        id="sample",
    ),
]


@pytest.fixture(scope="module", params=DATA_DIRS)
def server(request):
    running = start_server(request.param, HIGH_LIMITS_ENV)
    yield running
    stop_server(running)


def get(server: Server, **arguments: str):
    url = f"{server.base_url}{OAI_PATH}?{urllib.parse.urlencode(arguments)}"
    with urllib.request.urlopen(url, timeout=30) as response:
        assert response.status == 200
        assert response.headers["Content-Type"] == "text/xml; charset=utf-8"
        return parse_valid(response.read())


def expected_identifiers(server: Server) -> list[str]:
    """Every item, as the validated ListIdentifiers pages list them."""
    pages = [get(server, verb="ListIdentifiers", metadataPrefix="oai_dc")]
    while (following := token(pages[-1])) is not None and following.text:
        pages.append(get(server, verb="ListIdentifiers", resumptionToken=following.text))
    return [identifier for page in pages for identifier in identifiers(page)]


@pytest.mark.slow
@pytest.mark.parametrize(("prefix", "method"), [("oai_dc", "GET"), ("oai_datacite", "POST")])
def test_a_harvester_receives_every_item_exactly_once(server, prefix, method):
    expected = expected_identifiers(server)
    assert len(expected) == len(set(expected)) > 0
    sickle = Sickle(server.base_url + OAI_PATH, http_method=method, max_retries=0, timeout=30)
    received = [record.header.identifier for record in sickle.ListRecords(metadataPrefix=prefix)]
    assert received == expected
    assert [header.identifier for header in sickle.ListIdentifiers(metadataPrefix=prefix)] == expected
    sets = [s.setSpec for s in sickle.ListSets()]
    assert sets[:3] == ["entityType", "entityType:ResearchProject", "entityType:Record"]
    assert sickle.Identify().repositoryIdentifier == "dasch.swiss"


@pytest.mark.slow
def test_a_token_survives_a_restart():
    first = start_server(CORPUS_DIR, HIGH_LIMITS_ENV)
    try:
        page = get(first, verb="ListRecords", metadataPrefix="oai_datacite", set="project:0803")
        issued = token(page).text
        expected_next = identifiers(get(first, verb="ListRecords", resumptionToken=issued))
    finally:
        stop_server(first)

    restarted = start_server(CORPUS_DIR, HIGH_LIMITS_ENV)
    try:
        continued = get(restarted, verb="ListRecords", resumptionToken=issued)
        assert identifiers(continued) == expected_next
        assert token(continued).get("cursor") == "100"
    finally:
        stop_server(restarted)
