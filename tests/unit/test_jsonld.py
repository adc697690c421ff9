"""The Dataset JSON-LD against Google's Dataset documentation and a JSON-LD processor.

Google (developers.google.com/search/docs/appearance/structured-data/dataset):
required ``name`` and ``description`` (50 to 5000 characters); recommended
``alternateName``, ``creator`` (Person or Organization with a name),
``citation``, ``funder``, ``identifier``, ``isAccessibleForFree``,
``keywords``, ``license``, ``sameAs``, ``spatialCoverage``, ``temporalCoverage``
(ISO 8601 date or interval, ``..`` for an open end), ``url``, ``version``,
``distribution`` (``DataDownload`` with ``contentUrl`` and
``encodingFormat``) and ``includedInDataCatalog`` (a ``DataCatalog``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest
from pyld import jsonld as pyld

from catalog.domain.loader import load_catalog
from catalog.domain.temporal import resolve
from catalog.domain.values import stored_list
from catalog.formats import jsonld
from tests.conftest import CORPUS_DIR, SAMPLE_DIR

BASE = "https://meta.example.org"
_DATE = r"-?[0-9]{4,}(?:-[0-9]{2}(?:-[0-9]{2})?)?"  # expanded years (-3300000) are ISO 8601 too
ISO_INTERVAL = re.compile(rf"^(?:{_DATE}|\.\.)(?:/(?:{_DATE}|\.\.))?$")
URL = re.compile(r"^https?://\S+$")


def _many(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def google_dataset_problems(document: dict[str, Any]) -> list[str]:
    """What Google's Dataset rich-result checks would reject or warn about (empty when none)."""
    problems = []
    if document.get("@type") != "Dataset":
        problems.append("@type is not Dataset")
    if not isinstance(document.get("name"), str) or not document["name"].strip():
        problems.append("name missing")
    description = document.get("description")
    if not isinstance(description, str) or not 50 <= len(description) <= 5000:
        problems.append("description not 50-5000 characters")
    for creator in _many(document.get("creator", [])):
        if creator.get("@type") not in {"Person", "Organization"} or not creator.get("name"):
            problems.append(f"creator without a type or name: {creator}")
    if not document.get("creator"):
        problems.append("no creator")
    for value in _many(document.get("temporalCoverage", [])):
        if not isinstance(value, str) or not value.strip():
            problems.append(f"temporalCoverage not text: {value!r}")
    for download in _many(document.get("distribution", [])):
        if download.get("@type") != "DataDownload" or not URL.match(download.get("contentUrl", "")):
            problems.append(f"distribution without a contentUrl: {download}")
        if not download.get("encodingFormat"):
            problems.append(f"distribution without an encodingFormat: {download}")
    if not document.get("distribution"):
        problems.append("no distribution")
    catalog_ = document.get("includedInDataCatalog")
    if not isinstance(catalog_, dict) or catalog_.get("@type") != "DataCatalog" or not catalog_.get("name"):
        problems.append("includedInDataCatalog is not a named DataCatalog")
    for key in ("url", "sameAs", "license"):
        for value in _many(document.get(key, [])):
            if key != "license" and not URL.match(value):
                problems.append(f"{key} is not a URL: {value!r}")
    for key in ("identifier", "keywords", "isAccessibleForFree", "url", "publisher", "datePublished"):
        if key not in document:
            problems.append(f"recommended {key} missing")
    if "datePublished" in document and not re.match(rf"^{_DATE}$", document["datePublished"]):
        problems.append(f"datePublished not ISO 8601: {document['datePublished']!r}")
    return problems


def _local_loader(url: str, options: dict | None = None) -> dict[str, Any]:
    """schema.org's context maps every term into its vocabulary (``@vocab``); offline, say so directly."""
    assert url.rstrip("/") in {"https://schema.org", "http://schema.org"}, url
    return {"contextUrl": None, "documentUrl": url, "document": {"@context": {"@vocab": "https://schema.org/"}}}


def _terms(node: Any) -> set[str]:
    """Every property name used anywhere in a compact document."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if not key.startswith("@"):
                found.add(key)
            found |= _terms(value)
    elif isinstance(node, list):
        for item in node:
            found |= _terms(item)
    return found


def _expanded_terms(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if not key.startswith("@"):
                found.add(key)
            found |= _expanded_terms(value)
    elif isinstance(node, list):
        for item in node:
            found |= _expanded_terms(item)
    return found


def expansion_problems(document: dict[str, Any]) -> list[str]:
    """Terms that JSON-LD expansion drops or that schema.org does not define."""
    from rdflib.namespace import SDO  # imported here: pytest's collection probes module globals, which SDO warns on

    expanded = pyld.expand(document, {"documentLoader": _local_loader})
    iris = _expanded_terms(expanded)
    problems = [f"dropped {term}" for term in _terms(document) if f"https://schema.org/{term}" not in iris]
    for iri in iris:
        term = iri.removeprefix("https://schema.org/")
        if not hasattr(SDO, term):
            problems.append(f"not a schema.org term: {term}")
    return problems


CATALOGS = {"corpus": CORPUS_DIR, "sample": SAMPLE_DIR}


@pytest.fixture(scope="module", params=sorted(CATALOGS))
def loaded(request):
    return load_catalog(CATALOGS[request.param])


def test_every_project_passes_google_dataset_checks(loaded):
    for project in loaded.projects:
        document = jsonld.project_dataset(loaded, project, BASE, "Test catalogue")
        assert google_dataset_problems(document) == [], project.shortcode


def test_every_project_expands_without_losing_a_term(loaded):
    for project in loaded.projects:
        document = jsonld.project_dataset(loaded, project, BASE, "Test catalogue")
        assert expansion_problems(document) == [], project.shortcode


def test_temporal_coverage_is_an_interval_whenever_the_resolver_finds_one(loaded):
    for project in loaded.projects:
        document = jsonld.project_dataset(loaded, project, BASE, "Test catalogue")
        resolved = [
            resolve(entry, loaded.chronontology_periods, loaded.temporal_coverage_enrichment)
            for entry in stored_list(project.get("temporalCoverage"))
        ]
        values = _many(document.get("temporalCoverage", []))
        assert all(ISO_INTERVAL.match(v) for v in values), (project.shortcode, values)
        assert bool(values) == any(coverage.date for coverage in resolved), project.shortcode
        undated = [c.name for c in resolved if c.name and not c.date]
        assert set(undated) <= set(document.get("keywords", [])), project.shortcode


def test_records_persons_organizations_and_groups_expand_cleanly(loaded):
    documents = [jsonld.person(loaded, p, BASE) for p in list(loaded.persons.values())[:50]]
    documents += [jsonld.organization(loaded, o, BASE) for o in list(loaded.organizations.values())[:50]]
    for project in loaded.projects[:20]:
        table = loaded.records_of(project)
        if table:
            record = jsonld.record_work(loaded, project, table, 0, BASE)
            assert record["name"] and record["creator"] and record["publisher"]["name"]
            assert record["isPartOf"]["@type"] == "Dataset"
            documents.append(record)
    for document in documents:
        assert document["name"] and document["@id"].startswith(BASE)
        assert expansion_problems(document) == [], document["@id"]


@pytest.fixture(scope="module")
def corpus():
    return load_catalog(CORPUS_DIR)


def _dataset(corpus, shortcode: str) -> dict[str, Any]:
    return jsonld.project_dataset(corpus, corpus.get_project(shortcode), BASE, "Test catalogue")


def test_temporal_coverage_of_the_issue_examples(corpus):
    assert _dataset(corpus, "0101")["temporalCoverage"] == "2006/2016"
    assert _dataset(corpus, "0803")["temporalCoverage"] == "1250/1500"
    assert "temporalCoverage" not in _dataset(corpus, "0110")  # a placeholder object, nothing to say


def test_a_period_without_dates_is_a_keyword_not_a_temporal_coverage(corpus):
    document = _dataset(corpus, "082D")  # "Swiss", a ChronOntology period without dates
    assert "temporalCoverage" not in document
    assert "Swiss" in document["keywords"]


def test_catalogue_and_distribution(corpus):
    document = _dataset(corpus, "0803")
    assert document["includedInDataCatalog"] == {
        "@type": "DataCatalog",
        "@id": f"{BASE}/about#catalog",
        "name": "Test catalogue",
        "url": f"{BASE}/projects",
        "publisher": {"@type": "Organization", "name": "DaSCH"},
    }
    downloads = {d["encodingFormat"]: d["contentUrl"] for d in document["distribution"]}
    assert downloads == {
        "application/json": f"{BASE}/api/v2/projects/0803",
        "application/ld+json": f"{BASE}/projects/0803/metadata.jsonld",
        "text/turtle": f"{BASE}/projects/0803/metadata.ttl",
        "application/rdf+xml": f"{BASE}/projects/0803/metadata.rdf",
        "application/vnd.datacite.datacite+xml": f"{BASE}/projects/0803/datacite.xml",
        "application/vnd.datacite.datacite+json": f"{BASE}/projects/0803/datacite.json",
        "application/xml": f"{BASE}/projects/0803/dc.xml",
        "application/x-bibtex": f"{BASE}/projects/0803/citation.bib",
        "application/x-research-info-systems": f"{BASE}/projects/0803/citation.ris",
        "application/vnd.citationstyles.csl+json": f"{BASE}/projects/0803/citation.csl.json",
        "text/x-bibliography": f"{BASE}/projects/0803/citation.txt",
    }


def test_license_wherever_the_data_has_one(corpus):
    for project in corpus.projects:
        licences = [
            legal["license"].get("licenseURI")
            for legal in stored_list(project.get("legalInfo"))
            if isinstance(legal.get("license"), Mapping)
        ]
        has_licence = any(u and u.startswith("http") for u in licences)
        assert ("license" in _dataset(corpus, project.shortcode)) == has_licence, project.shortcode


def test_description_is_one_text_in_one_language(corpus):
    # 0803 describes itself in German and abstracts itself in English: the English text wins, alone.
    description = _dataset(corpus, "0803")["description"]
    english = " ".join(corpus.get_project("0803").get("abstract")["en"].split())
    assert english.startswith(description.removesuffix("…")) and len(description) <= 5000
    if len(english) > 5000:
        assert description.endswith(".")  # cut after a sentence
    description_0110 = _dataset(corpus, "0110")["description"]
    assert description_0110[:60] not in description_0110[60:]  # no text repeated


def test_shared_pid_is_not_the_identifier(corpus):
    document = _dataset(corpus, "0801a")
    assert _many(document["identifier"])[0] == f"{BASE}/projects/0801a"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Short.", "Short."),
        ("One sentence here. Another sentence that is much longer than the rest", "One sentence here."),
        ("word " * 10, "word word word…"),
    ],
)
def test_cut_at_sentence(text, expected):
    assert jsonld.cut_at_sentence(text, 20 if len(text) > 20 else 50) == expected
