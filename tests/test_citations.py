"""Citation downloads: BibTeX and RIS parse with real parsers, CSL-JSON is valid with the required keys."""

from __future__ import annotations

import json

import bibtexparser
import pytest
import rispy
from lxml import html

from tests import datadir
from tests.conftest import CORPUS_DIR
from tests.http_support import fetch

CSL_TYPES = {"dataset", "article", "book", "webpage", "document"}


@pytest.fixture
def corpus(install_catalog):
    return install_catalog(CORPUS_DIR)


def download(client, shortcode: str, extension: str):
    response = client.get(f"/projects/{shortcode}/citation.{extension}")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="{shortcode}.{extension}"'
    return response


def test_bibtex_of_every_corpus_project_parses(client, corpus):
    for project in corpus.projects:
        response = download(client, project.shortcode, "bib")
        assert response["Content-Type"] == "application/x-bibtex; charset=utf-8"
        library = bibtexparser.parse_string(response.content.decode())
        assert not library.failed_blocks, project.shortcode
        (entry,) = library.entries
        assert entry.entry_type == "misc"
        assert entry.key == f"dasch-{project.shortcode}"
        assert entry["author"] and entry["title"] and entry["publisher"] == "DaSCH"


def test_bibtex_of_0803(client, corpus):
    entry = bibtexparser.parse_string(download(client, "0803", "bib").content.decode()).entries[0]
    assert entry["author"] == "Schellewald, Barbara and " + " and ".join(
        corpus.persons[i].sort_name for i in ("person-072", "person-073")
    )
    assert (
        entry["title"] == "{Die Bilderfolgen der Basler Frühdrucke: Spätmittelalterliche Didaxe als Bild-Text-Lektüre}"
    )
    # The Issued rule: no dataPublicationYear, so the earliest datePublished of its records (2011).
    assert entry["year"] == "2011"
    assert entry["url"] == "https://ark.dasch.swiss/ark:/72163/1/0803"


def test_bibtex_escapes_special_characters(client, tmp_path, install_catalog):
    project = datadir.project("0E01", name="Costs & {braces} 100% of #1_a", howToCite="50% & more")
    install_catalog(datadir.write_data_dir(tmp_path, projects=[project]))
    text = download(client, "0E01", "bib").content.decode()
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks
    assert library.entries[0]["title"] == r"{Costs \& \{braces\} 100\% of \#1\_a}"
    assert library.entries[0]["note"] == r"50\% \& more"


def test_ris_of_every_corpus_project_parses(client, corpus):
    for project in corpus.projects:
        response = download(client, project.shortcode, "ris")
        assert response["Content-Type"] == "application/x-research-info-systems; charset=utf-8"
        text = response.content.decode()
        assert text.startswith("TY  - DATA\r\n") and text.endswith("ER  -\r\n")
        (entry,) = rispy.loads(text)
        assert entry["type_of_reference"] == "DATA"
        assert entry["title"] == project.name
        assert entry["authors"]
        assert entry["publisher"] == "DaSCH"


def test_ris_of_0803(client, corpus):
    (entry,) = rispy.loads(download(client, "0803", "ris").content.decode())
    assert entry["authors"][0] == "Schellewald, Barbara"
    # The Issued rule: no dataPublicationYear, so the earliest datePublished of its records (2011).
    assert entry["year"] == "2011"
    assert entry["urls"] == ["https://ark.dasch.swiss/ark:/72163/1/0803"]
    assert "Late Middle Ages" in entry["keywords"]


def test_csl_json_of_every_corpus_project(client, corpus):
    for project in corpus.projects:
        response = download(client, project.shortcode, "csl.json")
        assert response["Content-Type"] == "application/vnd.citationstyles.csl+json; charset=utf-8"
        items = json.loads(response.content)
        assert isinstance(items, list) and len(items) == 1
        item = items[0]
        assert {"id", "type", "title", "author"} <= item.keys()
        assert item["type"] in CSL_TYPES
        for author in item["author"]:
            assert "literal" in author or ("family" in author and "given" in author)
        if "issued" in item:
            assert isinstance(item["issued"]["date-parts"][0][0], int)


def test_project_without_creators_is_cited_as_the_publisher(client, tmp_path, install_catalog):
    project = datadir.project("0E02", attributions=[])
    install_catalog(datadir.write_data_dir(tmp_path, projects=[project]))
    item = json.loads(download(client, "0E02", "csl.json").content)[0]
    assert item["author"] == [{"literal": "DaSCH"}]
    assert bibtexparser.parse_string(download(client, "0E02", "bib").content.decode()).entries[0]["author"] == "{DaSCH}"


def test_unknown_project_citation_is_404(client, corpus):
    assert client.get("/projects/NOPE/citation.ris").status_code == 404
    assert client.get("/projects/0803/citation.doc").status_code == 404


# Formatted citations in the reader's language, over a real server --------------------------------------

RECORD_0803 = "/projects/0803/records/00bnHlmDVIq_Blb4DvKGiQU"
# What the CSL locale of each language says before a Harvard citation's URL ("Available at:").
AVAILABLE_AT = {"en": "Available at:", "de": "Verfügbar unter:", "fr": "Disponible sur:", "it": "Disponibile su:"}


def page_citation(server, path: str) -> str:
    path = path.removeprefix("/en")  # English pages have no prefix
    reply = fetch(server.base_url, path)
    assert reply.status == 200, (path, reply.status)
    return " ".join(html.fromstring(reply.body).get_element_by_id("citation").text_content().split())


@pytest.mark.parametrize("language", ["en", "de", "fr", "it"])
def test_a_page_cites_in_its_own_language(corpus_server, language: str) -> None:
    harvard = page_citation(corpus_server, f"/{language}/projects/0803?style=harvard")
    assert f" {AVAILABLE_AT[language]} https://ark.dasch.swiss/ark:/72163/1/0803" in harvard
    apa = page_citation(corpus_server, f"/{language}/projects/0803")
    dataset = {"en": "[Dataset]", "de": "[Datensatz]", "fr": "[Jeu de données]", "it": "[Dataset]"}[language]
    assert dataset in apa
    record = page_citation(corpus_server, f"/{language}/{RECORD_0803.lstrip('/')}?style=harvard")
    assert record.endswith(
        f"{AVAILABLE_AT[language]} https://ark.dasch.swiss/ark:/72163/1/0803/00bnHlmDVIq_Blb4DvKGiQU."
    )


@pytest.mark.parametrize("locale", ["de-DE", "fr", "it_IT"])
def test_the_formatted_citation_export_takes_a_locale(corpus_server, locale: str) -> None:
    language = locale[:2]
    reply = fetch(corpus_server.base_url, f"/projects/0803/citation.txt?style=harvard&locale={locale}")
    assert reply.status == 200
    assert f" {AVAILABLE_AT[language]} https://ark.dasch.swiss/ark:/72163/1/0803." in reply.body.decode()
    negotiated = fetch(
        corpus_server.base_url,
        "/projects/0803",
        headers={"Accept": f"text/x-bibliography; style=harvard; locale={locale}"},
    )
    assert negotiated.status == 303
    assert negotiated.headers["location"] == f"/projects/0803/citation.txt?style=harvard&locale={locale}"


def test_an_unknown_locale_is_refused_with_the_offered_ones(corpus_server) -> None:
    reply = fetch(corpus_server.base_url, "/projects/0803/citation.txt?locale=xx")
    assert reply.status == 400
    assert reply.body.decode() == (
        "Unknown citation style or locale. Styles: apa, chicago-author-date, chicago-notes-bibliography, harvard, mla."
        " Locales: en-US, de-DE, fr-FR, it-IT.\n"
    )


def test_a_title_ending_in_a_full_stop_is_not_followed_by_another(corpus_server) -> None:
    """The record's label ends in "." inside Chicago's quotes: one full stop, in every language."""
    for locale, closing in (
        ("en", "verwendet.\u201d In "),
        ("de", "Verwendet.\u201c In "),
        ("fr", "Verwendet. \u00bb In "),
    ):
        path = f"{RECORD_0803}/citation.txt?style=chicago-author-date&locale={locale}"
        text = fetch(corpus_server.base_url, path).body.decode()
        assert closing.lower() in text.lower(), text


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        ("mla", "DaSCH, 2011, https://ark.dasch.swiss/ark:/72163/1/0803."),
        ("chicago-notes-bibliography", "DaSCH, 2011. https://ark.dasch.swiss/ark:/72163/1/0803."),
    ],
)
def test_the_humanities_styles_are_offered(corpus_server, style: str, expected: str) -> None:
    text = fetch(corpus_server.base_url, f"/projects/0803/citation.txt?style={style}").body.decode()
    assert text.rstrip().endswith(expected), text
    page = fetch(corpus_server.base_url, f"/projects/0803?style={style}")
    assert page.status == 200 and f'value="{style}" selected'.encode() in page.body
