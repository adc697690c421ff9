"""Exports at stable URLs, content negotiation on the entity pages, Signposting and the catalogue dump."""

from __future__ import annotations

import json
import urllib.request

import pytest
import signposting
from lxml import etree, html

from catalog.domain.loader import load_catalog
from catalog.formats import datacite_xml, dublin_core_xml, exports, item_metadata
from tests.conftest import CORPUS_DIR
from tests.http_support import fetch
from tests.oai_support import schema

pytestmark = pytest.mark.usefixtures("static_assets")

NEGOTIATED = {
    "application/ld+json": "/projects/0803/metadata.jsonld",
    "application/vnd.datacite.datacite+xml": "/projects/0803/datacite.xml",
    "application/x-bibtex": "/projects/0803/citation.bib",
    "application/x-research-info-systems": "/projects/0803/citation.ris",
    "application/vnd.citationstyles.csl+json": "/projects/0803/citation.csl.json",
    "text/x-bibliography": "/projects/0803/citation.txt",
    "application/json": "/api/v2/projects/0803",
}


@pytest.fixture
def corpus(install_catalog):
    return install_catalog(CORPUS_DIR)


@pytest.mark.parametrize(("accept", "location"), sorted(NEGOTIATED.items()))
def test_page_url_negotiates_each_offered_type(client, corpus, accept, location):
    response = client.get("/projects/0803", HTTP_ACCEPT=accept)
    assert response.status_code == 303
    assert response["Location"] == location
    assert "Accept" in response["Vary"]
    followed = client.get(location)
    assert followed.status_code == 200
    assert followed["Content-Type"].split(";")[0] == accept


def test_browsers_and_wildcards_get_html_that_varies_on_accept(client, corpus):
    for accept in ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "*/*", None):
        response = client.get("/projects/0803", **({"HTTP_ACCEPT": accept} if accept else {}))
        assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
        assert "Accept" in response["Vary"]


def test_unsupported_accept_is_406_listing_the_offered_types(client, corpus):
    response = client.get("/projects/0803", HTTP_ACCEPT="image/png")
    assert response.status_code == 406
    listed = response.content.decode().splitlines()[1:]
    assert listed == ["text/html", *[t for t in exports.negotiable(exports.WORK_EXPORTS)]]
    assert "Accept" in response["Vary"]


def test_bibliography_style_passes_through_negotiation(client, corpus):
    response = client.get("/projects/0803?style=harvard", HTTP_ACCEPT="text/x-bibliography")
    assert response["Location"] == "/projects/0803/citation.txt?style=harvard"
    text = client.get(response["Location"]).content.decode()
    assert "Available at: https://ark.dasch.swiss/ark:/72163/1/0803" in text
    assert client.get("/projects/0803/citation.txt?style=nonsense").status_code == 400


def test_persons_and_records_negotiate_too(client, corpus):
    response = client.get("/persons/person-072", HTTP_ACCEPT="application/ld+json")
    assert (response.status_code, response["Location"]) == (303, "/persons/person-072/metadata.jsonld")
    assert client.get("/persons/person-072", HTTP_ACCEPT="application/x-bibtex").status_code == 406
    table = corpus.records_of(corpus.get_project("0803"))
    suffix = table.pids[0].rpartition("/")[2]
    response = client.get(f"/projects/0803/records/{suffix}", HTTP_ACCEPT="application/vnd.datacite.datacite+xml")
    assert response["Location"] == f"/projects/0803/records/{suffix}/datacite.xml"


def test_datacite_and_dc_exports_are_the_oai_mapping_and_valid(client, corpus):
    project = corpus.get_project("0803")
    item = item_metadata.project_metadata(corpus, project, "http://testserver", "2016")
    for path, writer in (("datacite.xml", datacite_xml.render), ("dc.xml", dublin_core_xml.render)):
        body = client.get(f"/projects/0803/{path}").content
        assert body == exports.standalone_xml(writer(item))
        document = etree.fromstring(body)
        assert schema().validate(document), schema().error_log
    resource = etree.fromstring(client.get("/projects/0803/datacite.xml").content)
    assert resource.tag == "{http://datacite.org/schema/kernel-4}resource"


@pytest.mark.slow
def test_every_export_of_every_corpus_project_answers(client, corpus):
    for project in corpus.projects:
        for export in exports.WORK_EXPORTS[1:]:
            response = client.get(f"/projects/{project.shortcode}/{export.file}")
            assert response.status_code == 200, (project.shortcode, export.file)
            if export.file.endswith(".xml"):
                assert schema().validate(etree.fromstring(response.content)), (project.shortcode, export.file)


def test_page_head_links_every_export_and_the_export_box_lists_them(client, corpus):
    tree = html.fromstring(client.get("/projects/0803").content)
    alternates = tree.xpath("//head/link[@rel='alternate'][not(@hreflang)]")  # hreflang ones name the page's languages
    head = {(link.get("type"), link.get("href")) for link in alternates if link.get("type") != "application/atom+xml"}
    feeds = [link.get("href") for link in alternates if link.get("type") == "application/atom+xml"]
    assert feeds == ["/projects/0803/changes.atom"]  # the change feed, not an export
    box = {(a.get("type"), a.get("href")) for a in tree.xpath("//section[@id='export']//a")}
    expected = {
        (e.media_type, exports.export_path("/projects/0803", e, "/api/v2/projects/0803")) for e in exports.WORK_EXPORTS
    }
    assert head == box == expected


def test_shortcode_prefix_shared_by_several_projects_is_300(client, corpus):
    response = client.get("/projects/0801")
    assert response.status_code == 300
    tree = html.fromstring(response.content)
    assert tree.xpath("//ul[@class='choices']//a/@href") == [f"/projects/0801{c}" for c in "abcde"]
    assert response["Location"] == "/projects/0801a"
    assert client.get("/projects/9999").status_code == 404
    assert client.get("/projects/080").status_code == 404  # shorter than a shortcode: no listing of a range


def test_shared_pid_page_says_so_and_links_the_siblings(client, corpus):
    tree = html.fromstring(client.get("/projects/0801c").content)
    notice = tree.xpath("//p[@id='shared-pid']")[0]
    assert "shared by 5 projects" in notice.text_content()
    assert notice.xpath(".//a/@href") == [f"/projects/0801{c}" for c in "abde"]
    assert not html.fromstring(client.get("/projects/0803").content).xpath("//p[@id='shared-pid']")


def test_catalogue_dump_is_one_jsonld_document(client, corpus):
    response = client.get("/catalogue.jsonld")
    assert response.status_code == 200 and response["Content-Type"] == "application/ld+json"
    document = json.loads(b"".join(response.streaming_content))
    assert document["@type"] == "DataCatalog"
    datasets = [node for node in document["@graph"] if node["@type"] == "Dataset"]
    assert len(datasets) == len(corpus.projects)
    assert sum(node["@type"] == "Person" for node in document["@graph"]) == len(corpus.persons)


# Signposting against a real server --------------------------------------------


@pytest.mark.slow
def test_signposting_of_a_project_over_http(corpus_server):
    base = corpus_server.base_url
    found = signposting.find_signposting_http(f"{base}/projects/0803")
    assert str(found.citeAs.target) == "https://ark.dasch.swiss/ark:/72163/1/0803"
    described = {str(s.type): str(s.target) for s in found.describedBy}
    assert described["application/ld+json"] == f"{base}/projects/0803/metadata.jsonld"
    assert described["application/vnd.datacite.datacite+xml"] == f"{base}/projects/0803/datacite.xml"
    assert {str(t.target) for t in found.types} == {"https://schema.org/Dataset", "https://schema.org/AboutPage"}
    assert str(found.license.target) == "https://creativecommons.org/licenses/by/4.0/"
    assert found.authors and all(str(a.target).startswith(("https://orcid.org/", base)) for a in found.authors)
    assert 0 < len(found.items) <= 10
    linksets = [str(s.target) for s in found.linksets]
    assert linksets == [f"{base}/projects/0803/linkset"]
    full = signposting.find_signposting_linkset(linksets[0]).for_context(f"{base}/projects/0803")
    with urllib.request.urlopen(linksets[0]) as response:
        assert response.headers["Content-Type"] == "application/linkset+json"
    catalog = load_catalog(CORPUS_DIR)
    assert len(full.items) == len(catalog.records_of(catalog.get_project("0803")))
    assert str(full.citeAs.target) == str(found.citeAs.target)


def test_signposting_of_a_record_over_http(corpus_server):
    base = corpus_server.base_url
    catalog = load_catalog(CORPUS_DIR)
    pid = catalog.records_of(catalog.get_project("0803")).pids[0]
    found = signposting.find_signposting_http(f"{base}/projects/0803/records/{pid.rpartition('/')[2]}")
    assert str(found.citeAs.target) == pid
    assert {str(t.target) for t in found.types} == {"https://schema.org/CreativeWork", "https://schema.org/AboutPage"}
    assert {str(s.type) for s in found.describedBy} >= {"application/ld+json", "application/x-bibtex"}


def test_shared_pid_is_not_cite_as(corpus_server):
    found = signposting.find_signposting_http(f"{corpus_server.base_url}/projects/0801b")
    assert str(found.citeAs.target) == f"{corpus_server.base_url}/projects/0801b"


def test_about_page_describes_the_data_catalog_the_datasets_are_in(client, corpus):
    tree = html.fromstring(client.get("/about").content)
    about = json.loads(tree.xpath("//script[@type='application/ld+json']/text()")[0])
    dataset = json.loads(client.get("/projects/0803/metadata.jsonld").content)
    assert about["@type"] == "DataCatalog" and about["@id"] == dataset["includedInDataCatalog"]["@id"]
    assert about["@id"] == "http://testserver/about#catalog" and tree.xpath("//*[@id='catalog']")
    assert about["distribution"]["contentUrl"] == "http://testserver/catalogue.jsonld"


def test_negotiation_over_a_real_server_keeps_each_accept_header_apart(corpus_server):
    """Through svc serve (compression and caching middleware included): the answer follows each Accept header."""
    gzip = {"Accept-Encoding": "gzip"}
    for _ in range(2):  # the second round is answered from the remembered choices
        bibtex = fetch(corpus_server.base_url, "/projects/0803", headers={**gzip, "Accept": "application/x-bibtex"})
        assert (bibtex.status, bibtex.headers["location"]) == (303, "/projects/0803/citation.bib")
        assert "Accept" in bibtex.headers["vary"]
        page = fetch(corpus_server.base_url, "/projects/0803", headers={**gzip, "Accept": "text/html,*/*;q=0.8"})
        assert page.status == 200 and page.headers["content-type"].startswith("text/html")
        assert {"Accept", "Accept-Encoding"} <= {v.strip() for v in page.headers["vary"].split(",")}
        refused = fetch(corpus_server.base_url, "/projects/0803", headers={"Accept": "image/png"})
        assert refused.status == 406 and b"text/html" in refused.body
