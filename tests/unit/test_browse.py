"""catalog.domain.browse: a listing's entries, what finds them, their order and pages (pages: test_browse.py)."""

from __future__ import annotations

import pytest

from catalog.domain import engine
from catalog.domain.browse import PAGE_SIZE, BrowseQuery, browse, build_entries
from catalog.domain.loader import load_catalog
from catalog.domain.search import PageOutOfRange
from tests import datadir


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    lead = [{"contributor": "person-002", "contributorType": ["Project Leader"]}]
    root = datadir.write_data_dir(
        tmp_path_factory.mktemp("browse"),
        projects=[datadir.project("0AA1"), datadir.project("0AA2"), datadir.project("0AA3", attributions=lead)],
        persons=[
            datadir.person("person-001", "Mira", "Sommer"),
            datadir.person("person-002", "Élise", "Zürcher", jobTitles=["Archivist"], affiliations=[]),
            datadir.person("person-003", "Anna", "Aebi", jobTitles=["MISSING"]),
        ],
        organizations=[
            datadir.organization("organization-001", "Example University"),
            datadir.organization("organization-002", "Archives cantonales", address={"locality": "Sion"}),
        ],
        clusters=[
            {"id": "cluster-001", "name": "Lakes", "description": {"en": "Pile dwellings."}, "projects": ["0AA1"]}
        ],
    )
    return load_catalog(root)


@pytest.fixture(scope="module")
def listed(catalog):
    """The ids a listing shows for a query, its text searched by the engine's index of the listing."""
    found = engine.build_temporary(catalog)

    def ids(kind: str, query: BrowseQuery) -> list[str]:
        scores = found.listing_scores(kind, engine.parse(query.text)) if query.text else None
        return [entry.id for entry in browse(build_entries(catalog, kind), query, scores).items]

    return ids


def test_person_entries_in_name_order_with_affiliations_and_project_counts(catalog):
    entries = build_entries(catalog, "persons")
    assert [(e.id, e.details, e.project_count) for e in entries] == [
        ("person-003", ("Example University",), 0),  # Anna Aebi
        ("person-002", (), 1),  # Élise Zürcher: the accent does not sort her last
        ("person-001", ("Example University",), 2),  # Mira Sommer
    ]


def test_an_entry_is_found_by_its_details_and_job_title_but_not_by_a_placeholder(listed):
    assert listed("persons", BrowseQuery("archivist zurcher")) == ["person-002"]  # every word, accents ignored
    assert listed("persons", BrowseQuery("example university")) == ["person-003", "person-001"]  # equal: by name
    assert listed("persons", BrowseQuery("missing")) == []
    assert listed("organizations", BrowseQuery("sion")) == ["organization-002"]


def test_the_engine_finds_stems_typos_and_reads_the_syntax(listed):
    assert listed("persons", BrowseQuery("archivists")) == ["person-002"]  # a plural
    assert listed("persons", BrowseQuery("Zurcher")) == listed("persons", BrowseQuery("Zürcer")) == ["person-002"]
    assert listed("persons", BrowseQuery("university -sommer")) == ["person-003"]
    assert listed("persons", BrowseQuery("aebi OR sommer", sort="name")) == ["person-003", "person-001"]
    assert listed("clusters", BrowseQuery('"pile dwellings"')) == ["cluster-001"]
    assert listed("organizations", BrowseQuery('"unclosed -')) == []  # plain words: "unclosed" is nowhere


def test_best_match_first_with_a_search(listed):
    # Sommer's name holds the word; Aebi only through her affiliation's: the name weighs more.
    assert listed("persons", BrowseQuery("sommer OR example")) == ["person-001", "person-003"]
    assert listed("persons", BrowseQuery("sommer OR example", sort="name")) == ["person-003", "person-001"]


def test_group_entries_count_their_projects_and_show_their_description(catalog):
    (lakes,) = build_entries(catalog, "clusters")
    assert (lakes.name, lakes.details, lakes.project_count) == ("Lakes", ("Pile dwellings.",), 1)
    assert build_entries(catalog, "collections") == ()


def test_unknown_kind_is_an_error(catalog):
    with pytest.raises(KeyError):
        build_entries(catalog, "projects")


def test_sorts(listed):
    assert listed("persons", BrowseQuery()) == ["person-003", "person-002", "person-001"]
    assert listed("persons", BrowseQuery(sort="name-desc")) == ["person-001", "person-002", "person-003"]
    assert listed("persons", BrowseQuery(sort="projects")) == ["person-001", "person-002", "person-003"]


def test_pages_of_fifty(catalog):
    (entry,) = build_entries(catalog, "clusters")
    many = [entry] * (PAGE_SIZE + 1)
    first, second = browse(many, BrowseQuery(page=1), None), browse(many, BrowseQuery(page=2), None)
    assert (first.total, first.page_count, len(first.items), len(second.items)) == (PAGE_SIZE + 1, 2, PAGE_SIZE, 1)
    with pytest.raises(PageOutOfRange):
        browse(many, BrowseQuery(page=3), None)
    assert browse([], BrowseQuery(), None).page_count == 1  # an empty listing is one empty page
