"""The interface in English, German, French and Italian, and multilingual texts said plainly (docs/languages.md)."""

from __future__ import annotations

import ast
import re

import polib
import pytest
from django.conf import settings
from django.template import Template
from django.templatetags.i18n import BlockTranslateNode, TranslateNode
from lxml import html

from catalog.domain import model, search
from catalog.pages import vocabulary
from tests.conftest import CORPUS_DIR, PROJECT_ROOT

pytestmark = pytest.mark.usefixtures("static_assets")

LANGUAGES = ("en", "de", "fr", "it")
TRANSLATED = ("de", "fr", "it")
LOCALE = PROJECT_ROOT / "locale"
GETTEXT_CALLS = {"_", "gettext", "gettext_lazy", "gettext_noop", "ngettext", "ngettext_lazy"}

PAGES = [
    "/projects",
    "/projects/0803",
    "/projects/0803/records",
    "/projects/0803/records/00bnHlmDVIq_Blb4DvKGiQU",
    "/persons",
    "/persons/person-071",
    "/organizations",
    "/organizations/organization-002",
    "/clusters",
    "/collections",
    "/about",
]


@pytest.fixture
def corpus(install_catalog):
    return install_catalog(CORPUS_DIR)


def prefixed(path: str, language: str) -> str:
    return path if language == "en" else f"/{language}{path}"


def tree_of(response):
    return html.fromstring(response.content)


# The catalogues -------------------------------------------------------------


def _template_messages() -> set[str]:
    """Every msgid the project's templates mark ({% translate %}, {% blocktranslate %}, _("…"))."""
    messages: set[str] = set()
    for path in sorted((PROJECT_ROOT / "templates").glob("*.html")):
        source = path.read_text()
        template = Template(source)
        for node in template.nodelist.get_nodes_by_type(TranslateNode):
            literal = node.filter_expression.var.literal
            if isinstance(literal, str):
                messages.add(literal)
        for node in template.nodelist.get_nodes_by_type(BlockTranslateNode):
            messages.add(node.render_token_list(node.singular)[0])
        messages.update(re.findall(r'\b_\("([^"]+)"\)', source))
    return messages


def _python_messages() -> set[str]:
    """Every string literal passed to a gettext function in the project's Python code."""
    messages: set[str] = set()
    for folder in ("catalog", "svc_site"):
        for path in (PROJECT_ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) in GETTEXT_CALLS and node.args:
                    first = node.args[0]
                    if isinstance(first, ast.Constant) and isinstance(first.value, str):
                        messages.add(first.value)
    return messages


def test_the_scan_finds_the_marked_strings():
    assert {"Skip to main content", "Search projects", "%(shown)s project"} <= _template_messages()
    assert {"Overview", "No project with the shortcode {shortcode}.", "Best match"} <= _python_messages()


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_marked_string_has_a_translation(language):
    catalogue = polib.pofile(str(LOCALE / language / "LC_MESSAGES" / "django.po"))
    entries = {entry.msgid: entry for entry in catalogue if not entry.obsolete}
    missing = sorted((_template_messages() | _python_messages()) - set(entries))
    assert missing == []
    fuzzy = [entry.msgid for entry in entries.values() if "fuzzy" in entry.flags]
    assert fuzzy == []
    empty = [
        entry.msgid
        for entry in entries.values()
        if (not all(entry.msgstr_plural.values()) if entry.msgid_plural else not entry.msgstr)
    ]
    assert empty == []
    # Placeholders survive translation: a lost %(count)s would show a wrong sentence.
    for entry in entries.values():
        for source, translated in (
            [(entry.msgid, entry.msgstr)]
            if not entry.msgid_plural
            else [(entry.msgid_plural, text) for text in entry.msgstr_plural.values()]
        ):
            placeholders = set(re.findall(r"%\(\w+\)s|\{\w+\}", source)) - {"%(counter)s"}
            assert placeholders <= set(re.findall(r"%\(\w+\)s|\{\w+\}", translated)), (language, entry.msgid)


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_compiled_catalogue_matches_its_source(language):
    """The committed .mo is what the .po says (no gettext tools are needed to run the service)."""
    source = polib.pofile(str(LOCALE / language / "LC_MESSAGES" / "django.po"))
    compiled = polib.mofile(str(LOCALE / language / "LC_MESSAGES" / "django.mo"))

    def pairs(catalogue) -> set:
        return {
            (entry.msgid, entry.msgstr or tuple(sorted(entry.msgstr_plural.items())))
            for entry in catalogue
            if not entry.obsolete
        }

    assert pairs(source) == pairs(compiled)


def test_the_domain_labels_are_marked_for_translation():
    labels = {*search.SORTS.values(), *(facet.label for facet in search.FACETS)}
    labels |= {*model.PROJECT_STATUSES, *model.ACCESS_RIGHTS}
    assert labels == set(vocabulary.DOMAIN_LABELS)


# Pages in each language -----------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("path", PAGES)
def test_each_page_answers_in_each_language_with_lang_and_hreflang(client, corpus, path, language):
    response = client.get(prefixed(path, language))
    assert response.status_code == 200
    tree = tree_of(response)
    assert tree.xpath("/html/@lang") == [language]
    canonical = tree.xpath("//link[@rel='canonical']/@href")
    assert canonical == [f"http://testserver{prefixed(path, language)}"]
    alternates = dict(
        zip(tree.xpath("//link[@hreflang]/@hreflang"), tree.xpath("//link[@hreflang]/@href"), strict=True)
    )
    assert alternates == {
        **{code: f"http://testserver{prefixed(path, code)}" for code in LANGUAGES},
        "x-default": f"http://testserver{path}",
    }
    assert response["Content-Language"] == language


@pytest.mark.parametrize(
    ("language", "projects", "search_label"),
    [
        ("en", "Projects", "Search projects"),
        ("de", "Projekte", "Projekte durchsuchen"),
        ("fr", "Projets", "Chercher des projets"),
        ("it", "Progetti", "Cerca progetti"),
    ],
)
def test_the_interface_speaks_the_language(client, corpus, language, projects, search_label):
    tree = tree_of(client.get(prefixed("/projects", language)))
    assert tree.xpath("string(//h1)") == projects
    assert tree.xpath("string(//label[@for='q'])") == search_label
    assert tree.xpath("string(//header//nav[1]//li[1]/a)") == projects


def test_links_stay_in_the_language_and_machine_files_keep_their_urls(client, corpus):
    tree = tree_of(client.get("/de/projects/0803"))
    hrefs = [href for href in tree.xpath("//body//a/@href") if href.startswith("/")]
    switch = set(tree.xpath("//nav[contains(@class,'language-switch')]//a/@href"))
    pages = [href for href in hrefs if href not in switch]
    exports = [href for href in pages if re.search(r"\.(bib|ris|txt|xml|jsonld|json|ttl|rdf)$|/linkset$|^/api/", href)]
    assert exports and all(not href.startswith("/de/") for href in exports)
    assert set(pages) - set(exports) and all(href.startswith("/de/") for href in set(pages) - set(exports))
    assert client.get("/projects/0803/citation.bib", HTTP_ACCEPT_LANGUAGE="de").status_code == 200
    assert client.get("/de/projects/0803/citation.bib").status_code == 404
    assert client.get("/de/api/v2/projects").status_code == 404


def test_the_switch_keeps_the_page_and_its_state(client, corpus):
    path = "/projects/0803/records?q=recto&sort=newest"
    tree = tree_of(client.get("/de" + path))
    switch = dict(
        zip(
            tree.xpath("//nav[contains(@class,'language-switch')]//a/@hreflang"),
            tree.xpath("//nav[contains(@class,'language-switch')]//a/@href"),
            strict=True,
        )
    )
    assert switch == {"en": "/en" + path, "de": "/de" + path, "fr": "/fr" + path, "it": "/it" + path}
    assert tree.xpath("//nav[contains(@class,'language-switch')]//a[@aria-current]/@hreflang") == ["de"]

    # English is chosen through /en/: remembered, then the unprefixed page, even for a German browser.
    chosen = client.get("/en" + path, HTTP_ACCEPT_LANGUAGE="de")
    assert chosen.status_code == 302 and chosen["Location"] == path
    assert chosen.cookies["svc_language"].value == "en"
    english = client.get(path, HTTP_ACCEPT_LANGUAGE="de")
    assert english.status_code == 200 and tree_of(english).xpath("/html/@lang") == ["en"]


@pytest.mark.parametrize("path", ["/en//example.org/projects", "/en/\\example.org", "/en"])
def test_choosing_english_never_leaves_the_site(client, corpus, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/") and not response["Location"].startswith(("//", "/\\"))


@pytest.mark.parametrize(
    ("header", "location"),
    [
        ("de-CH,de;q=0.9,en;q=0.8", "/de/projects/0803"),
        ("fr", "/fr/projects/0803"),
        ("it-IT", "/it/projects/0803"),
        ("rm,it;q=0.5", "/it/projects/0803"),
    ],
)
def test_accept_language_redirects_an_unprefixed_page(client, corpus, header, location):
    response = client.get("/projects/0803?tab=contributors", HTTP_ACCEPT_LANGUAGE=header)
    assert response.status_code == 302
    assert response["Location"] == location + "?tab=contributors"
    assert {"Accept-Language", "Cookie"} <= {v.strip() for v in response["Vary"].split(",")}


@pytest.mark.parametrize("header", [None, "en-GB,de;q=0.5", "ja", "*"])
def test_english_is_served_unprefixed_and_says_it_varies(client, corpus, header):
    extra = {"HTTP_ACCEPT_LANGUAGE": header} if header else {}
    response = client.get("/projects", **extra)
    assert response.status_code == 200
    assert tree_of(response).xpath("/html/@lang") == ["en"]
    assert "Accept-Language" in response["Vary"]


def test_machine_surfaces_ignore_the_language(client, corpus):
    api = client.get("/api/v2/projects/0803", HTTP_ACCEPT_LANGUAGE="de")
    assert api.status_code == 200 and api["Content-Type"].startswith("application/json")
    oai = client.get("/" + settings.SVC.oai_path.lstrip("/") + "?verb=Identify", HTTP_ACCEPT_LANGUAGE="fr")
    assert oai.status_code == 200 and b"<Identify>" in oai.content
    negotiated = client.get("/de/projects/0803", HTTP_ACCEPT="application/ld+json")
    assert negotiated.status_code == 303 and negotiated["Location"].endswith("/projects/0803/metadata.jsonld")
    assert "/de/" not in negotiated["Location"]


def test_the_page_cache_keeps_each_language_apart(client, corpus):
    for _ in range(2):  # the second round is served from the page cache
        for language in LANGUAGES:
            tree = tree_of(client.get(prefixed("/about", language)))
            assert tree.xpath("/html/@lang") == [language]


def test_dates_and_numbers_follow_the_language(client, corpus):
    record = "/projects/0803/records/00bnHlmDVIq_Blb4DvKGiQU"
    created = {"en": "2012-11-20", "de": "20.11.2012", "fr": "20/11/2012", "it": "20/11/2012"}
    for language, shown in created.items():
        tree = tree_of(client.get(prefixed(record, language)))
        assert shown in tree.xpath("//dl[@class='facts']/dd/text()"), language
    records = {"en": "4198 records", "de": "4.198 Datensätze", "fr": "4\xa0198 enregistrements", "it": "4.198 record"}
    for language, shown in records.items():
        heading = tree_of(client.get(prefixed("/projects/0803/records", language))).xpath("string(//h2)")
        assert heading.startswith(shown), (language, heading)


@pytest.mark.parametrize(
    ("language", "persons", "organizations"),
    [
        ("fr", "416 personnes, résultats 1\u2013", "142 organisations, résultats 1\u2013"),
        ("it", "416 persone, risultati 1\u2013", "142 organizzazioni, risultati 1\u2013"),
    ],
)
def test_the_range_shown_agrees_with_what_is_counted(client, corpus, language, persons, organizations):
    """One wording after every count: "affichés", "mostrati" agreed with projects and records, not with persons."""
    for path, shown in (("/persons", persons), ("/organizations", organizations)):
        heading = tree_of(client.get(prefixed(path, language))).xpath("string(//h2[@id='results-heading'])")
        assert heading.startswith(shown), (path, heading)


def test_sitemap_names_every_language_of_each_page(client, corpus):
    root = html.etree.fromstring(client.get("/sitemap.xml").content)
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    url = root.xpath("//s:url[s:loc='http://testserver/projects/0803']", namespaces=ns)[0]
    alternates = {link.get("hreflang"): link.get("href") for link in url.xpath("x:link", namespaces=ns)}
    assert alternates == {
        "en": "http://testserver/projects/0803",
        "de": "http://testserver/de/projects/0803",
        "fr": "http://testserver/fr/projects/0803",
        "it": "http://testserver/it/projects/0803",
        "x-default": "http://testserver/projects/0803",
    }


# Multilingual texts ---------------------------------------------------------


def _descriptions(tree):
    first = tree.xpath("//div[@id='description']/p")
    others = tree.xpath("//div[@id='description']/details[@class='other-languages']")
    return first, others


@pytest.mark.parametrize(
    ("language", "first", "others", "summary", "other_name"),
    [
        ("it", "it", ["en"], "Descrizione in un\u2019altra lingua", "Inglese:"),
        ("en", "en", ["it"], "Description in another language", "Italian:"),
        ("de", "en", ["it"], "Beschreibung in einer anderen Sprache", "Italienisch:"),
    ],
)
def test_the_reader_language_comes_first_and_the_others_behind_a_switch(
    client, corpus, language, first, others, summary, other_name
):
    tree = tree_of(client.get(prefixed("/projects/0108", language)))
    shown, folded = _descriptions(tree)
    assert [p.get("lang") for p in shown] == [first]
    assert len(folded) == 1
    assert folded[0].xpath("string(summary)") == summary
    assert folded[0].get("open") is None  # closed: works without JavaScript, one click away
    assert [p.get("lang") for p in folded[0].xpath("p")] == others
    name = folded[0].xpath("p/span[@class='language-name']")[0]
    assert name.text == other_name and name.get("lang") == language


def test_without_the_reader_language_or_english_the_first_stored_comes_first(client, corpus):
    tree = tree_of(client.get("/it/projects/0807"))
    shown, folded = _descriptions(tree)
    assert [p.get("lang") for p in shown] == ["de"]
    assert [p.get("lang") for p in folded[0].xpath("p")] == ["fr"]
    tree = tree_of(client.get("/fr/projects/0807"))
    shown, folded = _descriptions(tree)
    assert [p.get("lang") for p in shown] == ["fr"]


def test_language_codes_are_named_in_the_interface_language(client, corpus):
    """0108's data are in Italian (`it`): the fact names it in the reader's language."""
    labels = {"en": "Data languages", "de": "Sprachen der Daten", "fr": "Langues des données", "it": "Lingue dei dati"}
    names = {"en": "Italian", "de": "Italienisch", "fr": "Italien", "it": "Italiano"}
    for language in LANGUAGES:
        tree = tree_of(client.get(prefixed("/projects/0108", language)))
        shown = tree.xpath("//dt[.=$label]/following-sibling::dd[1]/text()", label=labels[language])
        assert shown == [names[language]], language


def test_data_language_facet_is_named_in_the_interface_language(client, corpus):
    labels = tree_of(client.get("/fr/projects")).xpath("//input[@name='language']/following-sibling::label/text()")
    assert "Allemand " in labels and "Anglais " in labels
