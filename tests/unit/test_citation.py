"""Formatted citations (CSL styles), record citations and the Highwire tags of the pages."""

from __future__ import annotations

import pytest
from lxml import html

from catalog.domain.loader import load_catalog
from catalog.formats import citation
from tests import datadir
from tests.conftest import CORPUS_DIR

BASE = "http://testserver"
TITLE = "Die Bilderfolgen der Basler Frühdrucke: Spätmittelalterliche Didaxe als Bild-Text-Lektüre"
ARK = "https://ark.dasch.swiss/ark:/72163/1/0803"


@pytest.fixture(scope="module")
def corpus():
    return load_catalog(CORPUS_DIR)


def _data(corpus, shortcode: str) -> citation.CitationData:
    return citation.citation_data(corpus, corpus.get_project(shortcode), f"{BASE}/projects/{shortcode}")


def test_each_style_names_creators_year_title_publisher_and_https_identifier(corpus):
    data = _data(corpus, "0803")
    expected = {
        "apa": f"Schellewald, B., Hug, H., & Rosenthaler, L. (2011). {TITLE} [Dataset]. DaSCH. {ARK}",
        # Chicago title-cases the title (CSL does so for items not marked as non-English).
        "chicago-author-date": "Schellewald, B., H. Hug, and L. Rosenthaler. 2011. “Die Bilderfolgen Der Basler "
        f"Frühdrucke: Spätmittelalterliche Didaxe Als Bild-Text-Lektüre”. DaSCH. {ARK}.",
        "chicago-notes-bibliography": "Schellewald, B., H. Hug, and L. Rosenthaler. “Die Bilderfolgen Der Basler "
        f"Frühdrucke: Spätmittelalterliche Didaxe Als Bild-Text-Lektüre”. DaSCH, 2011. {ARK}.",
        "harvard": f"Schellewald, B., Hug, H. and Rosenthaler, L. (2011) “{TITLE}”. DaSCH. Available at: {ARK}.",
        "mla": "Schellewald, B., et al. “Die Bilderfolgen Der Basler Frühdrucke: Spätmittelalterliche Didaxe Als "
        f"Bild-Text-Lektüre”. DaSCH, 2011, {ARK}.",
    }
    assert {style: citation.formatted(data, style) for style in citation.STYLES} == expected


def test_unknown_style_is_a_key_error(corpus):
    with pytest.raises(KeyError):
        citation.formatted(_data(corpus, "0803"), "nonsense")


def test_shared_pid_project_is_cited_by_its_landing_page(corpus):
    assert _data(corpus, "0801a").url == f"{BASE}/projects/0801a"


def test_record_citation_names_its_project_and_creators(corpus):
    project = corpus.get_project("0803")
    table = corpus.records_of(project)
    data = citation.record_citation_data(corpus, project, table, 0, f"{BASE}/projects/0803")
    assert data.container == TITLE
    authorship = table.record(0)["legalInfo"]["authorship"]
    assert [c.family for c in data.creators] == authorship  # the record's own authorship
    assert data.url == table.pids[0]
    text = citation.formatted(data, "apa")
    # A record is cited as what its type of data says (this one is a text), not as a data set.
    assert table.record(0)["typeOfData"] == "Text" and citation.csl_item(data)["type"] == "document"
    assert text.startswith(f"{authorship[0]}. (") and f". In {TITLE}. DaSCH. {table.pids[0]}" in text
    assert "[Dataset]" not in text
    csl = citation.csl_item(data)
    assert csl["container-title"] == TITLE and csl["type"] == "document"


def test_record_authorship_names_are_its_creators(tmp_path):
    legal = [{"authorship": ["Ada Lovelace", "CALCULATED", "Ada Lovelace", "Charles Babbage"]}]
    data_dir = datadir.write_data_dir(
        tmp_path, projects=[datadir.project("0AA1")], records={"0AA1": [datadir.record("0AA1", "r1", legalInfo=legal)]}
    )
    catalog = load_catalog(data_dir)
    project = catalog.get_project("0AA1")
    data = citation.record_citation_data(catalog, project, catalog.records_of(project), 0, f"{BASE}/projects/0AA1")
    assert [c.family for c in data.creators] == ["Ada Lovelace", "Charles Babbage"]
    assert data.year == "2024" and data.publisher == "Example Repository" and data.title == "Site plan"


# On the pages -----------------------------------------------------------------


@pytest.mark.usefixtures("static_assets")
def test_project_page_citation_style_chooser_and_highwire(client, install_catalog):
    install_catalog(CORPUS_DIR)
    tree = html.fromstring(client.get("/projects/0803").content)
    assert tree.xpath("string(//p[@id='citation'])").startswith("Schellewald, B., Hug, H., & Rosenthaler, L. (2011)")
    assert tree.xpath("//select[@id='citation-style']/option/@value") == list(citation.STYLES)
    meta = [(m.get("name"), m.get("content")) for m in tree.xpath("//head/meta[starts-with(@name, 'citation_')]")]
    assert meta == [
        ("citation_title", TITLE),
        ("citation_author", "Schellewald, Barbara"),
        ("citation_author", "Hug, Hannes"),
        ("citation_author", "Rosenthaler, Lukas"),
        ("citation_publication_date", "2011"),
        ("citation_publisher", "DaSCH"),
        ("citation_public_url", ARK),
    ]
    harvard = html.fromstring(client.get("/projects/0803?style=harvard").content)
    assert "Available at: " + ARK in harvard.xpath("string(//p[@id='citation'])")
    assert harvard.xpath("//select[@id='citation-style']/option[@selected]/@value") == ["harvard"]
    assert client.get("/projects/0803?style=nonsense").status_code == 400


@pytest.mark.usefixtures("static_assets")
def test_record_page_citation_and_highwire(client, install_catalog):
    catalog = install_catalog(CORPUS_DIR)
    pid = catalog.records_of(catalog.get_project("0803")).pids[0]
    tree = html.fromstring(client.get(f"/projects/0803/records/{pid.rpartition('/')[2]}").content)
    text = tree.xpath("string(//p[@id='citation'])")
    assert f"In {TITLE}." in text and text.endswith(pid)
    meta = dict((m.get("name"), m.get("content")) for m in tree.xpath("//head/meta[starts-with(@name, 'citation_')]"))
    assert meta["citation_public_url"] == pid and meta["citation_publisher"]
