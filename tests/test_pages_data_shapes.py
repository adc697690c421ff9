"""Placeholders hidden or shown in red, and the other data shapes the pages must handle."""

from __future__ import annotations

import dataclasses

import pytest
from django.conf import settings
from django.test import override_settings
from lxml import html

from tests import datadir

pytestmark = pytest.mark.usefixtures("static_assets")

PLACEHOLDER_PROJECT = datadir.project(
    "0B01",
    endDate="MISSING",
    url=["MISSING"],
    legalInfo=[
        {
            "license": {"licenseIdentifier": "MISSING", "licenseDate": "MISSING", "licenseURI": "MISSING"},
            "copyrightHolder": "Example University",
            "authorship": ["CALCULATED"],
        }
    ],
    spatialCoverage=[{"type": "Geonames", "url": "MISSING", "text": "Bielersee"}],
    funding="No funding",
    accessRights={"accessRights": "Embargoed Access", "embargoDate": "2030-01-01"},
    dataManagementPlan="MISSING",
)
LEGACY_URL_PROJECT = datadir.project(
    "0B02",
    url=["https://app.example.org/project/0B02", "https://lakes.example.org/"],
    secondaryUrl={"type": "URL", "url": "https://blog.example.org/lakes"},
    dataManagementPlan="https://doi.org/10.5281/zenodo.0000000",
)
REFERENCE_URL_PROJECT = datadir.project(
    "0B03", url={"type": "URL", "url": "https://data.example.org/0B03", "text": "Data"}
)


@pytest.fixture
def catalog(tmp_path, install_catalog):
    organizations = [datadir.organization(), datadir.organization("organization-002", "Lake Trust", url="MISSING")]
    return install_catalog(
        datadir.write_data_dir(
            tmp_path,
            projects=[PLACEHOLDER_PROJECT, LEGACY_URL_PROJECT, REFERENCE_URL_PROJECT],
            persons=[datadir.person(affiliations=["organization-001", "organization-002"])],
            organizations=organizations,
            records={"0B01": [datadir.record("0B01", "r1", label="MISSING", dateCreated="MISSING")]},
        )
    )


def show_placeholders(value: bool):
    return override_settings(SVC=dataclasses.replace(settings.SVC, show_placeholder_values=value))


PAGES = ["/projects/0B01", "/organizations/organization-002", "/projects/0B01/records/r1", "/projects/0B01/records"]


@pytest.mark.parametrize("url", PAGES)
def test_placeholders_are_hidden_by_default(client, catalog, url):
    response = client.get(url)
    assert response.status_code == 200
    assert b"MISSING" not in response.content and b"CALCULATED" not in response.content
    assert b'class="placeholder"' not in response.content


@pytest.mark.parametrize("url", PAGES)
def test_placeholders_are_shown_in_red_but_never_as_links(client, catalog, url):
    with show_placeholders(True):
        response = client.get(url)
    tree = html.fromstring(response.content)
    shown = tree.xpath("//span[@class='placeholder']/text()")
    assert set(shown) <= {"MISSING", "CALCULATED"}
    # The record list shows labels only as links, so its placeholder label gives way to the record id.
    assert bool(shown) == (url != "/projects/0B01/records")
    assert not [href for href in tree.xpath("//@href") if "MISSING" in href or "CALCULATED" in href]
    assert not tree.xpath("//a[contains(., 'MISSING') or contains(., 'CALCULATED')]")
    jsonld = "".join(tree.xpath("//script[@type='application/ld+json']/text()"))
    assert "MISSING" not in jsonld and "CALCULATED" not in jsonld


def test_placeholder_values_shown_on_the_project_page(client, catalog):
    with show_placeholders(True):
        tree = html.fromstring(client.get("/projects/0B01").content)
    sidebar = tree.xpath("//aside[@class='sidebar']")[0]
    timeline = sidebar.xpath(".//section[h2='Timeline']")[0]
    assert timeline.xpath(".//span[@class='placeholder']/text()") == ["MISSING"]
    assert sidebar.xpath(".//section[h2='Authorship']//span[@class='placeholder']/text()") == ["CALCULATED"]
    assert "Bielersee" in tree.xpath("//section[@id='panel-overview']")[0].text_content()


def test_the_red_style_is_in_the_stylesheet():
    from svc_site.assets import SOURCE_DIR

    css = (SOURCE_DIR / "site.css").read_text()
    assert ".placeholder { color: var(--placeholder)" in css and "--placeholder: #b00020" in css


def test_funding_string_embargo_and_access(client, catalog):
    tree = html.fromstring(client.get("/projects/0B01").content)
    sidebar = tree.xpath("//aside[@class='sidebar']")[0]
    assert sidebar.xpath(".//section[h2='Funding']/p/text()") == ["No funding"]
    assert sidebar.xpath(".//span[@class='badge access-embargoed-access']/text()") == ["Embargoed Access"]
    assert "Embargo until 2030-01-01" in sidebar.text_content()
    assert not tree.xpath("//ul[@class='header-links']")  # the only URL is a placeholder


def test_legacy_url_array_gives_data_and_website_links(client, catalog):
    tree = html.fromstring(client.get("/projects/0B02").content)
    links = dict(
        zip(
            (text.strip(": ") for text in tree.xpath("//ul[@class='header-links']/li/span/text()")),
            tree.xpath("//ul[@class='header-links']/li/a/@href"),
            strict=False,
        )
    )
    assert links["Data"] == "https://app.example.org/project/0B02"
    assert tree.xpath("//ul[@class='header-links']/li/a/@href")[1:] == [
        "https://lakes.example.org/",
        "https://blog.example.org/lakes",
    ]
    assert tree.xpath("//section[h2='Data management plan']//a/@href") == ["https://doi.org/10.5281/zenodo.0000000"]


def test_reference_url_object(client, catalog):
    tree = html.fromstring(client.get("/projects/0B03").content)
    assert tree.xpath("//ul[@class='header-links']/li/a/@href") == ["https://data.example.org/0B03"]


def test_a_project_without_publications_or_records_has_no_such_tabs(client, catalog):
    tree = html.fromstring(client.get("/projects/0B02").content)
    assert tree.xpath("//div[@data-tabs]/a/@data-tab") == ["overview", "contributors"]
    assert client.get("/projects/0B02?tab=records").status_code == 404
    assert client.get("/projects/0B02?tab=publications").status_code == 404
    with_records = html.fromstring(client.get("/projects/0B01").content)
    assert with_records.xpath("//div[@data-tabs]/a/@data-tab") == ["overview", "contributors", "records"]


def test_text_is_escaped(client, tmp_path, install_catalog):
    hostile = datadir.project("0C01", name="<script>alert(1)</script> & co", shortDescription="</script><b>bold</b>")
    install_catalog(datadir.write_data_dir(tmp_path, projects=[hostile]))
    body = client.get("/projects/0C01").content.decode()
    assert "<script>alert(1)" not in body and "<b>bold</b>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in body
    # Inside the JSON-LD block the markup is \u-escaped, so it cannot close the script element.
    assert "\\u003c/script\\u003e" in body


def test_facet_values_and_record_rows_are_escaped(client, tmp_path, install_catalog):
    hostile = datadir.project("0C02", name="<i>Lakes</i> & co")
    record = datadir.record(
        "0C02",
        "r1",
        label="<b>plan</b> of the lake",
        typeOfData='Image"><script>alert(1)</script>',
        legalInfo=[{"authorship": ["<em>Ada</em>"]}],
    )
    install_catalog(datadir.write_data_dir(tmp_path, projects=[hostile], records={"0C02": [record]}))
    body = client.get("/records?q=plan").content.decode()
    assert not any(markup in body for markup in ("<i>Lakes", "<b>plan", "<em>Ada", "<script>alert"))
    tree = html.fromstring(body)
    facets = tree.xpath("//aside[@class='facets']")[0]
    assert facets.xpath(".//input[@name='project']/following-sibling::label/text()") == ["<i>Lakes</i> & co "]
    assert facets.xpath(".//input[@name='creator']/following-sibling::label/text()") == ["<em>Ada</em> "]
    assert facets.xpath(".//input[@name='type']/@value") == ['Image"><script>alert(1)</script>']
    row = tree.xpath("//table[@class='records']/tbody/tr")[0]
    assert row.xpath("string(td[1]/a)") == "<b>plan</b> of the lake" and row.xpath("td[1]/a/mark/text()") == ["plan"]
    assert row.xpath("string(td[2]/a)") == "<i>Lakes</i> & co"
    assert row.xpath("string(td[3])") == 'Image"><script>alert(1)</script>'


def test_collections_nest_and_link_projects_and_records(client, tmp_path, install_catalog):
    record = datadir.record("0B05", "r7", label="Field notebook")
    collections = [
        {
            "id": "collection-001",
            "name": "Lake archives",
            "description": {"en": "Everything from the lakes."},
            "pid": "https://ark.example.org/ark:/99999/1/c1",
            "projects": ["0b05"],
            "records": [record["pid"], "https://ark.example.org/ark:/99999/1/0B05/gone"],
            "collections": ["collection-002"],
        },
        {"id": "collection-002", "name": "Notebooks", "description": "Field notebooks.", "projects": []},
    ]
    project = datadir.project("0B05", collections=["collection-002"])
    install_catalog(
        datadir.write_data_dir(tmp_path, projects=[project], collections=collections, records={"0B05": [record]})
    )
    parent = html.fromstring(client.get("/collections/collection-001").content)
    assert parent.xpath("//h1/text()") == ["Lake archives"]
    assert parent.xpath("//ul[@class='cards']//a/@href") == ["/projects/0B05"]
    assert parent.xpath("//a[@href='/collections/collection-002']/text()") == ["Notebooks"]
    assert parent.xpath("//a[@href='/projects/0B05/records/r7']")
    assert "https://ark.example.org/ark:/99999/1/0B05/gone" in parent.text_content()  # unresolved, shown as text
    child = html.fromstring(client.get("/collections/collection-002").content)
    assert child.xpath("//p[contains(., 'Part of')]/a/@href") == ["/collections/collection-001"]
    assert child.xpath("//ul[@class='cards']//a/@href") == ["/projects/0B05"]  # the project names the collection
    project_page = html.fromstring(client.get("/projects/0B05").content)
    assert project_page.xpath("//section[@id='panel-overview']//a[@href='/collections/collection-002']")
