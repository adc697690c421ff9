"""Browse pages for persons, organizations, clusters and collections, on the real corpus."""

from __future__ import annotations

import pytest
from lxml import html

from catalog.domain import engine
from catalog.domain.browse import BrowseQuery, browse, build_entries
from catalog.domain.loader import load_catalog
from catalog.domain.search import normalise
from catalog.formats import links
from tests import datadir
from tests.conftest import CORPUS_DIR

pytestmark = pytest.mark.usefixtures("static_assets")


@pytest.fixture
def corpus(install_catalog):
    return install_catalog(CORPUS_DIR)


def get(client, url: str, status: int = 200):
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    return html.fromstring(response.content)


def listed(tree) -> list[str]:
    return [a.text for a in tree.xpath("//ul[@class='entity-list']/li/a")]


@pytest.mark.parametrize("kind", ["persons", "organizations", "clusters", "collections"])
def test_each_listing_shows_every_entity_in_name_order_and_is_in_the_header(client, corpus, kind):
    entities = getattr(corpus, kind)
    tree = get(client, f"/{kind}")
    assert tree.xpath(f"//header//nav//a[@href='/{kind}']")
    assert tree.xpath("//link[@rel='canonical']/@href") == [f"http://testserver/{kind}"]
    heading = tree.xpath("string(//h2[@id='results-heading'])")
    assert heading.startswith(str(len(entities))) if entities else heading == "None yet"
    names = listed(tree)
    assert len(names) == min(50, len(entities))
    assert names == sorted(names, key=normalise)


def test_person_search_is_accent_insensitive_and_needs_every_word(client, corpus):
    person = next(p for p in corpus.persons.values() if p.given_names and p.family_names)
    family = person.family_names[0]
    tree = get(client, f"/persons?q={family.upper()}")
    assert person.display_name in listed(tree)
    tree = get(client, f"/persons?q={family}+zzzznomatch")
    assert listed(tree) == []
    assert tree.xpath("string(//h2[@id='results-heading'])") == "Nothing matches"


@pytest.fixture(scope="module")
def accented_catalog(tmp_path_factory):
    """A small data directory with one organization whose name has accents and one without."""
    root = datadir.write_data_dir(
        tmp_path_factory.mktemp("accents"),
        organizations=[
            datadir.organization("organization-001", "Université de Genève"),
            datadir.organization("organization-002", "Example Institute"),
        ],
    )
    return load_catalog(root)


def test_accents_fold_like_the_project_listing(accented_catalog):
    entries = build_entries(accented_catalog, "organizations")
    accented = [e for e in entries if normalise(e.name) != e.name.casefold()]
    assert [e.name for e in accented] == ["Université de Genève"]
    plain_words = normalise(accented[0].name)
    assert plain_words == "universite de geneve"
    found = engine.build_temporary(accented_catalog).listing_scores("organizations", engine.parse(plain_words))
    assert list(browse(entries, BrowseQuery(plain_words), found).items) == [accented[0]]


def test_sort_by_projects_and_reverse_name_and_pages(client, corpus):
    tree = get(client, "/persons?sort=projects")
    counts = [int(s.text.split()[0]) for s in tree.xpath("//ul[@class='entity-list']/li/span[@class='count']")]
    assert counts == sorted(counts, reverse=True)
    reverse = listed(get(client, "/persons?sort=name-desc"))
    assert reverse == sorted(reverse, key=normalise, reverse=True)
    pages = -(-len(corpus.persons) // 50)
    tree = get(client, f"/persons?page={pages}")
    assert len(listed(tree)) == len(corpus.persons) - (pages - 1) * 50
    get(client, f"/persons?page={pages + 1}", status=404)
    get(client, "/persons?sort=nope", status=400)
    get(client, "/persons?page=x", status=400)


def test_entity_pages_have_breadcrumbs_back_to_their_listing(client, corpus):
    for kind, entities, path in (
        ("persons", corpus.persons, links.person_path),
        ("organizations", corpus.organizations, links.organization_path),
        ("clusters", corpus.clusters, links.cluster_path),
        ("collections", corpus.collections, links.collection_path),
    ):
        if not entities:
            continue  # the corpus has no collections
        entity_id = next(iter(entities))
        tree = get(client, path(entity_id))
        crumbs = tree.xpath("//nav[@aria-label='Breadcrumb']//a/@href")
        assert crumbs == [f"/{kind}"], kind
        assert tree.xpath("//nav[@aria-label='Breadcrumb']//span[@aria-current='page']")
