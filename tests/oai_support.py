"""Helpers of the OAI-PMH tests: strict XSD validation of every response, a client, test data."""

from __future__ import annotations

import calendar
import contextlib
import dataclasses
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from lxml import etree

from catalog import runtime
from catalog.domain.loader import load_catalog
from catalog.domain.model import Catalog
from tests.conftest import SHARED_SCHEMAS_DIR
from tests.http_support import wait_until_read_by_server

SCHEMAS = SHARED_SCHEMAS_DIR
OAI = "http://www.openarchives.org/OAI/2.0/"
NS = {
    "o": OAI,
    "dc": "http://purl.org/dc/elements/1.1/",
    "oai_dc": "http://www.openarchives.org/OAI/2.0/oai_dc/",
    "d": "http://datacite.org/schema/kernel-4",
    "w": "http://schema.datacite.org/oai/oai-1.1/",
    "i": "http://www.openarchives.org/OAI/2.0/oai-identifier",
}
OAI_PATH = "/dpe/oai"
HIGH_LIMITS = {"oai_rate_limit_per_second": 1e9, "oai_rate_limit_burst": 10**9}
HIGH_LIMITS_ENV = {"SVC_OAI_RATE_LIMIT_PER_SECOND": "1000000000", "SVC_OAI_RATE_LIMIT_BURST": "1000000000"}

_schema: etree.XMLSchema | None = None


def schema() -> etree.XMLSchema:
    global _schema
    if _schema is None:
        _schema = etree.XMLSchema(etree.parse(str(SCHEMAS / "all.xsd")))
    return _schema


def parse_valid(body: bytes) -> etree._Element:
    """Parse a response and validate all of it, metadata included, against the XSDs."""
    document = etree.fromstring(body)
    if not schema().validate(document):
        raise AssertionError(f"response is not valid: {schema().error_log}\n{body[:3000].decode()}")
    return document


def oai(client, method: str = "get", **arguments: Any) -> etree._Element:
    """One OAI-PMH request through Django; asserts HTTP 200, the content type and validity."""
    if method == "post":  # OAI-PMH POST is a urlencoded form (multipart is refused)
        response = client.post(OAI_PATH, urlencode(arguments), "application/x-www-form-urlencoded")
    else:
        response = getattr(client, method)(OAI_PATH, arguments)
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"] == "text/xml; charset=utf-8"
    return parse_valid(response.content)


def errors(document: etree._Element) -> list[str]:
    return document.xpath("/o:OAI-PMH/o:error/@code", namespaces=NS)


def request_attributes(document: etree._Element) -> dict[str, str]:
    return dict(document.find(f"{{{OAI}}}request").attrib)


def identifiers(document: etree._Element) -> list[str]:
    return document.xpath("//o:header/o:identifier/text()", namespaces=NS)


def token(document: etree._Element) -> etree._Element | None:
    found = document.xpath("//o:resumptionToken", namespaces=NS)
    return found[0] if found else None


def harvest(client, verb: str = "ListIdentifiers", **arguments: Any) -> tuple[list[str], list[etree._Element]]:
    """Follow a list to its end; the identifiers and every page."""
    pages = [oai(client, verb=verb, **arguments)]
    while (next_token := token(pages[-1])) is not None and next_token.text:
        pages.append(oai(client, verb=verb, resumptionToken=next_token.text))
    return [identifier for page in pages for identifier in identifiers(page)], pages


def serving(settings):
    """Fixture body (``serve = pytest.fixture(serving)``): serve a given catalogue to the
    Django test client, with rate limits out of the way."""
    previous = runtime.application.state()
    settings.SVC = dataclasses.replace(settings.SVC, **HIGH_LIMITS)

    def install(catalog: Catalog) -> Catalog:
        runtime.install(catalog)
        return catalog

    yield install
    runtime.application.swap(previous)


def config(**changes: Any):
    return dataclasses.replace(settings.SVC, **changes)


def write_data(root: Path, files: dict[str, Any]) -> Path:
    """A data directory from ``{relative path: JSON value}``."""
    for name, value in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value), encoding="utf-8")
    return root


def project(shortcode: str, **fields: Any) -> dict[str, Any]:
    """A minimal valid project; ``fields`` override or add."""
    return {
        "id": shortcode,
        "pid": f"https://ark.dasch.swiss/ark:/72163/1/{shortcode}",
        "name": f"Project {shortcode}",
        "shortcode": shortcode,
        "officialName": f"Project {shortcode}",
        "status": "Finished",
        "shortDescription": "A project.",
        "description": {"en": "A project."},
        "startDate": "2020-01-01",
        "endDate": "2021-12-31",
        "howToCite": "Project",
        "accessRights": {"accessRights": "Full Open Access"},
        "legalInfo": [],
        "keywords": [],
        "disciplines": [],
        "temporalCoverage": [],
        "spatialCoverage": [],
        "attributions": [],
        "funding": "No funding",
        **fields,
    }


def record(shortcode: str, suffix: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": f"http://rdfh.ch/{shortcode}/{suffix}",
        "pid": f"https://ark.dasch.swiss/ark:/72163/1/{shortcode}/{suffix}",
        "label": {"en": f"Record {suffix}"},
        "accessRights": "Full Open Access",
        "publisher": "DaSCH",
        "dateCreated": "2021-03-04T05:06:07Z",
        "datePublished": "2021-03-04T05:06:07Z",
        "typeOfData": "Text",
        "keywords": [],
        **fields,
    }


def load(root: Path, files: dict[str, Any]) -> Catalog:
    return load_catalog(write_data(root, files))


def iter_records(document: etree._Element) -> Iterator[etree._Element]:
    yield from document.xpath("//o:record", namespaces=NS)


@contextlib.contextmanager
def request_in_flight(base_url: str) -> Iterator[None]:
    """One OAI request of this client held open: a form body announced and not sent yet."""
    host, port = base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            f"POST {OAI_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            "Content-Length: 13\r\n\r\nverb=".encode()
        )
        wait_until_read_by_server(sock)  # the view has started and waits for the rest of the body
        yield
        sock.sendall(b"Identify")


def wait_past_second(response_date: str, deadline: float = 10) -> None:
    """Until this machine's clock is past the second an OAI-PMH ``responseDate`` names (what follows is dated later)."""
    second = calendar.timegm(time.strptime(response_date, "%Y-%m-%dT%H:%M:%SZ"))
    end = time.monotonic() + deadline
    while time.time() < second + 1:
        if time.monotonic() > end:
            raise TimeoutError(f"the clock did not pass {response_date} within {deadline} s")
        time.sleep(0.01)
