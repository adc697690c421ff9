"""Every page route and status, through the Django test client, on real data sets."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse
from lxml import html

from catalog.formats import links
from tests.conftest import CORPUS_DIR, SAMPLE_DIR

DATA_SETS = [pytest.param(CORPUS_DIR, id="corpus")]
if (SAMPLE_DIR / "projects").is_dir():
    DATA_SETS.append(pytest.param(SAMPLE_DIR, id="sample"))

pytestmark = pytest.mark.usefixtures("static_assets")


@pytest.fixture(params=DATA_SETS)
def catalog(request, install_catalog):
    return install_catalog(request.param)


@pytest.fixture
def corpus(install_catalog):
    return install_catalog(CORPUS_DIR)


def page(client: Client, url: str, status: int = 200):
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    assert response["Content-Type"] == "text/html; charset=utf-8"
    return html.fromstring(response.content)


def assert_page_shell(tree, canonical_path: str | None = None) -> None:
    """One h1, landmarks, skip link, description; canonical and OpenGraph on indexable pages."""
    assert len(tree.xpath("//h1")) == 1
    assert tree.xpath("//main[@id='main']") and tree.xpath("//header") and tree.xpath("//footer")
    assert tree.xpath("//a[@class='skip-link'][@href='#main']")
    assert tree.xpath("//meta[@name='description']/@content")[0].strip()
    if canonical_path is not None:
        assert tree.xpath("//link[@rel='canonical']/@href") == ["http://testserver" + canonical_path]
        assert tree.xpath("//meta[@property='og:url']/@content") == ["http://testserver" + canonical_path]
        assert tree.xpath("//meta[@property='og:title']/@content")[0]


def jsonld(tree) -> dict:
    blocks = tree.xpath("//script[@type='application/ld+json']/text()")
    assert len(blocks) == 1
    return json.loads(blocks[0])


def test_root_redirects_permanently_to_the_listing(client):
    response = client.get("/")
    assert response.status_code == 308
    assert response["Location"] == "/projects"


@pytest.mark.slow
def test_every_entity_page_renders(client, catalog):
    tree = page(client, "/projects")
    assert_page_shell(tree, "/projects")
    for project in catalog.projects:
        tree = page(client, links.project_path(project.shortcode))
        assert_page_shell(tree, links.project_path(project.shortcode))
        assert jsonld(tree)["@type"] == "Dataset"
        assert tree.xpath("//link[@rel='alternate'][@type='application/json']/@href") == [
            links.project_json_path(project.shortcode)
        ]
        tab_ids = tree.xpath("//div[@data-tabs]/a/@data-tab")
        assert tab_ids[0] == "overview" and "contributors" in tab_ids
        for tab in tab_ids[1:]:
            tab_tree = page(client, links.project_path(project.shortcode, tab))
            assert tab_tree.xpath(f"//section[@id='panel-{tab}'][not(@hidden)]")
            assert tab_tree.xpath("//section[@id='panel-overview'][@hidden]")
    for person in catalog.persons.values():
        tree = page(client, links.person_path(person.id))
        assert_page_shell(tree, links.person_path(person.id))
        assert jsonld(tree)["@type"] == "Person"
    for organization in catalog.organizations.values():
        tree = page(client, links.organization_path(organization.id))
        assert_page_shell(tree, links.organization_path(organization.id))
        assert jsonld(tree)["@type"] == "Organization"
    for cluster in catalog.clusters.values():
        assert_page_shell(page(client, links.cluster_path(cluster.id)), links.cluster_path(cluster.id))
    for collection in catalog.collections.values():
        assert_page_shell(page(client, links.collection_path(collection.id)), links.collection_path(collection.id))
    assert_page_shell(page(client, "/about"), "/about")


def test_record_list_and_record_pages(client, catalog):
    for key, table in catalog.records.items():
        project = catalog.project_by_key[key]
        tree = page(client, links.records_path(project.shortcode))
        assert_page_shell(tree, links.records_path(project.shortcode))
        rows = tree.xpath("//table[@class='records']/tbody/tr")
        assert len(rows) == min(50, len(table))
        for index in (0, len(table) - 1):
            path = links.record_path(project.shortcode, table.pids[index])
            record_tree = page(client, path)
            assert_page_shell(record_tree, path)
            assert jsonld(record_tree)["identifier"] == table.pids[index]


def test_record_pages_of_the_corpus_paginate(client, corpus):
    table = corpus.records["0803"]
    last_page = -(-len(table) // 50)
    tree = page(client, f"/projects/0803/records?page={last_page}")
    assert len(tree.xpath("//table[@class='records']/tbody/tr")) == len(table) - (last_page - 1) * 50
    assert tree.xpath("//nav[@aria-label='Pagination']//a[@aria-current='page']/text()") == [str(last_page)]
    page(client, f"/projects/0803/records?page={last_page + 1}", status=404)
    assert client.get("/projects/0803/records?page=").status_code == 200
    for garbage in ("abc", "0", "-1", "1.5", "\u0661", "99999999999999999999", "1&page=2", "%00"):
        response = client.get(f"/projects/0803/records?page={garbage}")
        assert response.status_code == 400, garbage
        assert b"Bad request" in response.content


def test_project_page_shows_the_first_records_and_links_to_all(client, corpus):
    tree = page(client, "/projects/0803?tab=records")
    assert len(tree.xpath("//section[@id='panel-records']//tbody/tr")) == 20
    assert tree.xpath("//section[@id='panel-records']//a[@href='/projects/0803/records']")


def test_shortcodes_match_case_insensitively(client, corpus):
    tree = page(client, "/projects/080c")
    assert tree.xpath("//link[@rel='canonical']/@href") == ["http://testserver/projects/080C"]


@pytest.mark.parametrize(
    "url",
    [
        "/projects/NOPE",
        "/projects/0803?tab=nonsense",
        "/projects/0803/records/not-a-record",
        "/projects/NOPE/records",
        "/projects/NOPE/citation.bib",
        "/persons/person-999999",
        "/organizations/organization-999999",
        "/clusters/cluster-999",
        "/collections/collection-1",
        "/no/such/page",
        "/projects/0803/records/a/b",
    ],
)
def test_unknown_things_are_a_real_404_page(client, corpus, url):
    tree = page(client, url, status=404)
    assert tree.xpath("//h1/text()") == ["Page not found"]
    assert tree.xpath("//meta[@name='robots']/@content") == ["noindex"]
    assert tree.xpath("//form[@action='/projects']")


def test_unknown_shortcode_404_says_which(client, corpus):
    response = client.get("/projects/ZZZZ")
    assert response.status_code == 404
    assert b"No project with the shortcode" in response.content and b"ZZZZ" in response.content


def test_pages_answer_get_and_head_only(client, corpus):
    assert client.head("/projects/0803").status_code == 200
    assert client.post("/projects/0803").status_code == 405
    assert client.post("/projects").status_code == 405


def test_route_names_and_link_builders_agree():
    assert reverse("projects") == links.projects_path()
    assert reverse("project", args=["0803"]) == links.project_path("0803")
    assert reverse("project-records", args=["0803"]) == links.records_path("0803")
    pid = "https://ark.dasch.swiss/ark:/72163/1/0803/lklK7rVuVOmpBZYWrF8o=gh"
    assert reverse("record", args=["0803", "lklK7rVuVOmpBZYWrF8o=gh"]) == links.record_path("0803", pid)
    assert reverse("citation-bib", args=["0803"]) == links.citation_path("0803", "bib")
    assert reverse("citation-ris", args=["0803"]) == links.citation_path("0803", "ris")
    assert reverse("citation-csl-json", args=["0803"]) == links.citation_path("0803", "csl.json")
    assert reverse("person", args=["person-001"]) == links.person_path("person-001")
    assert reverse("organization", args=["organization-001"]) == links.organization_path("organization-001")
    assert reverse("cluster", args=["cluster-001"]) == links.cluster_path("cluster-001")
    assert reverse("collection", args=["collection-001"]) == links.collection_path("collection-001")
    assert reverse("about") == "/about"


def test_project_page_content(client, corpus):
    tree = page(client, "/projects/0803")
    assert tree.xpath("//h1/text()") == [corpus.get_project("0803").name]
    sidebar = tree.xpath("//aside[@class='sidebar']")[0]
    assert sidebar.xpath(".//a[@id='permalink']/@href") == ["https://ark.dasch.swiss/ark:/72163/1/0803"]
    assert sidebar.xpath(".//button[@data-copy='permalink']") and sidebar.xpath(".//button[@data-copy='citation']")
    assert sidebar.xpath(".//a[@href='/projects/0803/citation.bib']")
    assert "Full Open Access" in sidebar.text_content()
    assert sidebar.xpath(".//a[@rel='license'][@href='https://creativecommons.org/licenses/by/4.0/']")
    assert sidebar.xpath(".//span[@class='badge cc']")
    assert sidebar.xpath(".//a[@href='https://data.snf.ch/grants/grant/120378']")
    assert sidebar.xpath(".//a[@href='/organizations/organization-002']")
    assert "2008-06-01" in sidebar.text_content() and "2012-08-31" in sidebar.text_content()
    contributors = tree.xpath("//section[@id='panel-contributors']//li")
    assert len(contributors) == 5
    assert tree.xpath("//section[@id='panel-contributors']//a[@href='/persons/person-071']")
    assert len(tree.xpath("//section[@id='panel-publications']//li")) == 10
    assert tree.xpath("//a[@href='https://app.dasch.swiss/project/3ABR_2i8QYGSIDvmP9mlEw']")


def test_person_and_organization_pages_link_their_projects(client, corpus):
    person = page(client, "/persons/person-071")
    assert person.xpath("//h1/text()") == ["Barbara Schellewald"]
    assert person.xpath("//a[@href='/projects/0803']")
    assert "Applicant" in person.text_content()
    organization = page(client, "/organizations/organization-002")
    assert organization.xpath("//a[@href='http://www.snf.ch/']")
    assert "Funder" in organization.text_content()
    assert "Wildhainweg 3" in organization.text_content()
    cluster = page(client, "/clusters/cluster-001")
    assert cluster.xpath("//a[@href='/projects/0812']") and cluster.xpath("//a[@href='/projects/082A']")
