"""What a reader, a crawler or a link preview meets in the head and the sidebars of the pages (issue 27).

Result pages are kept out of search engines, `/` redirects once, the head carries
the link-preview tags, the meta description is in the page's language, the
citation box wraps identifiers at their separators, the citation year and the
schema.org document agree with one source, records are cited as what they are,
and a licence is named by one URI everywhere.
"""

from __future__ import annotations

import json
import re

import pytest
from lxml import html

from catalog.formats import links
from tests.conftest import CORPUS_DIR, tree_of

pytestmark = pytest.mark.usefixtures("static_assets")

RECORD = "/projects/0803/records/00bnHlmDVIq_Blb4DvKGiQU"


@pytest.fixture
def corpus(install_catalog):
    return install_catalog(CORPUS_DIR)


def jsonld(tree) -> dict:
    return json.loads(tree.xpath("//script[@type='application/ld+json']/text()")[0])


def robots(tree) -> list[str]:
    return tree.xpath("//meta[@name='robots']/@content")


@pytest.mark.parametrize(
    "path",
    [
        "/projects?q=basel",
        "/projects?status=Finished",
        "/projects?sort=newest",
        "/de/projects?q=basel&type=Text",
        "/persons?q=anna",
        "/organizations?sort=projects",
        "/projects/0803/records?q=recto",
        "/projects/0803/records?sort=newest",
    ],
)
def test_search_filter_and_sort_results_are_not_indexed(client, corpus, path):
    assert robots(tree_of(client.get(path))) == ["noindex, follow"]


@pytest.mark.parametrize("path", ["/projects", "/projects?page=2", "/persons", "/projects/0803/records", "/about"])
def test_listings_and_their_numbered_pages_stay_indexable(client, corpus, path):
    assert robots(tree_of(client.get(path))) == []


@pytest.mark.parametrize(("header", "location"), [("de-CH,de;q=0.9", "/de/projects"), ("fr", "/fr/projects")])
def test_a_reader_preferring_another_language_is_redirected_once_from_the_root(client, corpus, header, location):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE=header)
    assert response.status_code == 302 and response["Location"] == location
    assert client.get(location).status_code == 200


@pytest.mark.parametrize(("language", "locale"), [("en", "en_GB"), ("de", "de_CH"), ("fr", "fr_CH"), ("it", "it_CH")])
@pytest.mark.parametrize("path", ["/projects", "/projects/0803", "/persons"])
def test_link_previews_have_an_image_a_locale_and_a_card(client, corpus, path, language, locale):
    tree = tree_of(client.get(path if language == "en" else f"/{language}{path}"))
    image = tree.xpath("//meta[@property='og:image']/@content")
    assert len(image) == 1 and re.fullmatch(r"http://testserver/.+\.png", image[0])
    assert client.get(image[0].removeprefix("http://testserver")).status_code == 200
    assert tree.xpath("//meta[@property='og:locale']/@content") == [locale]
    assert len(tree.xpath("//meta[@property='og:locale:alternate']/@content")) == 3
    assert tree.xpath("//meta[@name='twitter:card']/@content") == ["summary"]


def test_the_meta_description_prefers_the_page_language(client, corpus):
    english = tree_of(client.get("/projects/0803")).xpath("//meta[@name='description']/@content")[0]
    german = tree_of(client.get("/de/projects/0803"))
    description = german.xpath("//meta[@name='description']/@content")[0]
    assert description.startswith("Eine kunstwissenschaftliche Monographie")
    assert german.xpath("//meta[@property='og:description']/@content") == [description]
    assert english.startswith("An art-scientific monograph")


def test_the_citation_box_breaks_the_ark_only_after_its_separators(client, corpus):
    tree = tree_of(client.get("/projects/0803"))
    citation = html.tostring(tree.xpath("//p[@id='citation']")[0], encoding="unicode")
    assert "https://<wbr>ark.dasch.swiss/<wbr>ark:/<wbr>72163/<wbr>1/<wbr>0803" in citation
    assert tree.xpath("string(//p[@id='citation'])").endswith("https://ark.dasch.swiss/ark:/72163/1/0803")


def test_the_citation_year_has_one_source_and_the_cite_as_text_is_credit_not_citation(client, corpus):
    tree = tree_of(client.get("/projects/0803"))
    document = jsonld(tree)
    year = tree.xpath("//meta[@name='citation_publication_date']/@content")[0]
    assert document["datePublished"][:4] == year
    assert f"({year})" in tree.xpath("string(//p[@id='citation'])")
    assert re.search(rf"\b{year}\b", client.get("/projects/0803/citation.bib").content.decode())
    assert "citation" not in document
    assert document["creditText"].startswith("Die Bilderfolgen der Basler Frühdrucke")


def test_a_record_is_cited_as_what_its_data_says(client, corpus):
    tree = tree_of(client.get(RECORD))
    citation = tree.xpath("string(//p[@id='citation'])")
    assert "[Data set]" not in citation and "DaSCH" in citation  # the data names DaSCH as the author
    box = tree.xpath("string(//section[@class='citation-box'])")
    assert "The project asks" not in box
    label = tree.xpath("string(//h1)")
    assert f"cited as: {label}" not in box  # a "cite as" that repeats the label says nothing
    creators = jsonld(tree)["creator"]
    assert {"@type": "Organization", "name": "DaSCH"} in creators


def test_a_record_whose_own_citation_differs_says_it_is_the_records(client, install_catalog, tmp_path):
    from tests import datadir

    data_dir = datadir.write_data_dir(
        tmp_path,
        projects=[datadir.project("0AA1")],
        records={"0AA1": [datadir.record("0AA1", "abc", label="Plan", howToCite="Plan of the site (1900)")]},
    )
    install_catalog(data_dir)
    tree = tree_of(client.get("/projects/0AA1/records/abc"))
    box = tree.xpath("string(//section[@class='citation-box'])")
    assert "The record asks to be cited as: Plan of the site (1900)" in box


@pytest.mark.slow
def test_one_uri_per_licence(client, corpus):
    seen: dict[str, set[str]] = {}
    for project in corpus.projects:
        tree = tree_of(client.get(links.project_path(project.shortcode)))
        licences = jsonld(tree).get("license") or []
        for uri in licences if isinstance(licences, list) else [licences]:
            if "creativecommons.org" in uri:
                assert re.fullmatch(
                    r"https://creativecommons\.org/(licenses/[a-z-]+|publicdomain/zero)/\d\.\d/(ch/)?", uri
                )
                seen.setdefault(uri.split("/")[4], set()).add(uri)
        for href in tree.xpath("//a[@rel='license']/@href"):
            if "creativecommons.org" in href:
                assert href in licences
    assert seen["by"] == {
        "https://creativecommons.org/licenses/by/4.0/",
        "https://creativecommons.org/licenses/by/3.0/",
    }


def test_period_names_show_the_years_they_resolve_to(client, corpus):
    facts = tree_of(client.get("/projects/0803")).xpath("//dt[.='Temporal coverage']/following-sibling::dd[1]")
    assert facts[0].text_content() == "Late Middle Ages (1250\u20131500)"
    german = tree_of(client.get("/de/projects/0105")).xpath("//dt[.='Zeitliche Abdeckung']/following-sibling::dd[1]")
    assert german[0].text_content() == "1987-2018"  # a name that already says its years stays as it is


@pytest.mark.parametrize(
    ("date", "shown"),
    [
        ("1250/1500", "1250\u20131500"),
        ("-0945/-0500", "945 BCE\u2013500 BCE"),
        ("1914/..", "1914\u2013"),
        ("0098", "98"),
    ],
)
def test_period_years_are_written_as_readers_say_them(date, shown):
    from catalog.pages.presenters import period_years

    assert period_years(date) == shown


def test_the_about_page_links_the_configured_policies_terms_contact_and_registries(client, corpus):
    import dataclasses

    from django.conf import settings
    from django.test.utils import override_settings

    from svc_site.config import ConfigError, load_config

    configured = load_config(
        {
            "SVC_POLICIES_URL": "https://example.org/policies",
            "SVC_TERMS_URL": "https://example.org/terms",
            "SVC_CONTACT_URL": "https://example.org/contact",
            "SVC_REGISTRY_LINKS": "re3data=https://www.re3data.org/repository/r3d0,CoreTrustSeal=https://example.org/cts",
        }
    )[0]
    changes = {
        name: getattr(configured, name) for name in ("policies_url", "terms_url", "contact_url", "registry_links")
    }
    with override_settings(SVC=dataclasses.replace(settings.SVC, **changes)):
        tree = tree_of(client.get("/de/about"))
    section = tree.xpath("//h2[@id='trust']/following-sibling::ul[1]")[0]
    links = dict(zip(section.xpath(".//a/text()"), section.xpath(".//a/@href"), strict=True))
    assert links["Richtlinien des Repositoriums"] == "https://example.org/policies"
    assert links["Nutzungsbedingungen"] == "https://example.org/terms"
    assert links["Kontaktseite"] == "https://example.org/contact"
    assert links["re3data"] == "https://www.re3data.org/repository/r3d0"
    assert links["CoreTrustSeal"] == "https://example.org/cts"
    assert links[settings.SVC.oai_admin_email] == f"mailto:{settings.SVC.oai_admin_email}"
    with pytest.raises(ConfigError, match="SVC_REGISTRY_LINKS"):
        load_config({"SVC_REGISTRY_LINKS": "re3data"})


def test_listing_facets_for_licence_funder_organization_and_a_year_range(client, corpus):
    def ran_in(project, low, high):
        start, end = project.get("startDate"), project.get("endDate")
        first = int(start[:4]) if isinstance(start, str) and start[:4].isdigit() else None
        last = int(end[:4]) if isinstance(end, str) and end[:4].isdigit() else 9999
        return first is not None and first <= high and last >= low

    expected = sum(ran_in(project, 1990, 2000) for project in corpus.projects)
    tree = tree_of(client.get("/projects?from=1990&to=2000"))
    heading = tree.xpath("string(//h2[@id='results-heading'])")
    assert heading.startswith(f"{expected} project"), heading
    assert tree.xpath("//input[@id='from-year']/@value") == ["1990"]
    assert tree.xpath("//div[@class='active-filters']//a[contains(., '1990')]/@href") == ["/projects"]

    listing = tree_of(client.get("/projects"))
    for key in ("licence", "funder", "organization"):
        assert listing.xpath(f"//input[@name='{key}']"), key
    snsf = "Swiss National Science Foundation (SNSF)"
    funded = tree_of(client.get("/projects", {"funder": snsf}))
    count = listing.xpath(f"string(//input[@name='funder'][@value='{snsf}']/following-sibling::label/span)")
    assert funded.xpath("string(//h2[@id='results-heading'])").startswith(count.strip("()") + " project")
    assert tree_of(client.get("/projects?q=holzschnitt")).xpath("//p[@class='snippet']/mark/text()")
