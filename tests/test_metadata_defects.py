"""Issue 26's metadata defects as users meet them: a real `svc serve` of the corpus, `svc validate` as a subprocess.

- A DOI written only into a publication's text (0844: 10.25592/uhhfdm.8477) is exported like a structured one.
- The language facet names every value; a private-use code reads "Unlisted language (x-cpa)", translated.
- `svc validate` warns about coverage without dates (082D "Swiss") and private-use language codes (0844 x-cpa).
"""

from __future__ import annotations

import json
import urllib.request

from lxml import etree, html

from tests.conftest import CORPUS_DIR, run_svc

DOI = "10.25592/uhhfdm.8477"


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read()


def test_a_doi_in_a_publications_text_is_a_datacite_related_identifier(corpus_server) -> None:
    tree = etree.fromstring(fetch(f"{corpus_server.base_url}/projects/0844/datacite.xml"))
    related = {
        (element.text, element.get("relatedIdentifierType"), element.get("relationType"))
        for element in tree.iter("{*}relatedIdentifier")
    }
    assert (DOI, "DOI", "IsCitedBy") in related


def test_a_doi_in_a_publications_text_is_a_dublin_core_relation(corpus_server) -> None:
    tree = etree.fromstring(fetch(f"{corpus_server.base_url}/projects/0844/dc.xml"))
    relations = [element.text for element in tree.iter("{http://purl.org/dc/elements/1.1/}relation")]
    assert any(DOI in (relation or "") for relation in relations)


def test_the_language_facet_names_a_private_use_code(corpus_server) -> None:
    for prefix, label in (("", "Unlisted language (x-cpa)"), ("/de", "Nicht verzeichnete Sprache (x-cpa)")):
        page = html.fromstring(fetch(f"{corpus_server.base_url}{prefix}/projects"))
        [value] = page.xpath("//input[@name='language'][@value='x-cpa']/@id")
        assert page.xpath(f"normalize-space(//label[@for='{value}']/text())") == label


def test_validate_warns_about_undated_coverage_and_private_use_languages() -> None:
    report = json.loads(run_svc("validate", "--format", "json", str(CORPUS_DIR)).stdout)
    found = {(w["file"].rpartition("/")[2][:4], w["path"], w["check"]) for w in report["warnings"]}
    assert ("082D", "temporalCoverage[0]", "undated-coverage") in found
    assert ("0844", "dataLanguage[6]", "language-code") in found
    messages = [w["message"] for w in report["warnings"] if w["check"] == "language-code"]
    assert messages == [
        "'x-cpa' is a private-use code, not an ISO 639 language code: harvesters get no language for it "
        "(pages show it as an unlisted language)"
    ]
