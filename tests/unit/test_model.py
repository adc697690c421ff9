"""catalog.domain.model: entities read from their stored objects (one rule for every kind), and the helpers
every reader of the data shares (placeholders, frozen JSON, languages, times)."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from catalog.domain.model import (
    Attribution,
    Cluster,
    Collection,
    Organization,
    Person,
    Project,
    freeze,
    is_placeholder,
    language_items,
    parse_timestamp,
    pick_language,
    record_datestamp,
    thaw,
    to_json_bytes,
)


@pytest.mark.parametrize(
    "value, placeholder",
    [("MISSING", True), ("CALCULATED", True), ("missing", False), (" MISSING", False), (None, False), (0, False)],
)
def test_only_the_exact_placeholder_strings_are_placeholders(value, placeholder):
    assert is_placeholder(value) is placeholder


def test_frozen_json_is_read_only_and_thaws_back_to_the_same_document():
    document = {"name": {"en": "Lakes", "de": "Seen"}, "keywords": [{"en": "Jura"}, "x"], "count": 2, "gone": None}
    frozen = freeze(document)
    assert isinstance(frozen, MappingProxyType) and isinstance(frozen["keywords"], tuple)
    with pytest.raises(TypeError):
        frozen["name"]["en"] = "changed"
    assert thaw(frozen) == document
    assert to_json_bytes(frozen) == (
        b'{"name":{"en":"Lakes","de":"Seen"},"keywords":[{"en":"Jura"},"x"],"count":2,"gone":null}'
    )
    assert to_json_bytes(freeze({"place": "Neuchâtel"})) == '{"place":"Neuchâtel"}'.encode()  # UTF-8, not escaped


@pytest.mark.parametrize(
    "value, preferred, text",
    [
        ("Plain", ("en",), "Plain"),
        (freeze({"fr": "Lacs", "de": "Seen", "en": "Lakes"}), ("en", "de"), "Lakes"),
        (freeze({"fr": "Lacs", "de": "Seen", "en": ""}), ("en", "de"), "Seen"),  # an empty text is no text
        (freeze({"fr": "Lacs"}), ("en", "de"), "Lacs"),  # else the first text there is
        (freeze({"en": None}), ("en",), ""),
        (None, ("en",), ""),
        (freeze(["Lakes"]), ("en",), ""),
    ],
)
def test_pick_language(value, preferred, text):
    assert pick_language(value, preferred) == text


def test_language_items():
    assert language_items(freeze({"en": "Lakes", "de": "", "fr": None, "it": "Laghi"})) == (
        ("en", "Lakes"),
        ("it", "Laghi"),
    )
    assert language_items("Lakes") == ((None, "Lakes"),)
    assert language_items("") == () and language_items(None) == ()


@pytest.mark.parametrize(
    "value, stamp",
    [
        ("2012-06-19T14:33:33Z", 1340116413),
        ("2012-06-19T14:33:33z", 1340116413),
        ("2012-06-19T16:33:33+02:00", 1340116413),
        ("2012-06-19T14:33:33", 1340116413),  # no zone: UTC
        (" 2012-06-19 ", 1340064000),  # a date is its first second
        ("2012-06-19T14:33:33.9Z", 1340116413),  # whole seconds
        ("19.06.2012", None),
        ("MISSING", None),
        ("", None),
        (1340116413, None),  # numbers are not timestamps in the data
    ],
)
def test_parse_timestamp(value, stamp):
    assert parse_timestamp(value) == stamp


def test_a_records_datestamp_is_modified_then_published_then_created():
    created, published, modified = "2010-01-01", "2011-01-01", "2012-01-01"
    assert record_datestamp({"dateCreated": created, "datePublished": published, "dateModified": modified}) == (
        parse_timestamp(modified)
    )
    assert record_datestamp({"dateCreated": created, "datePublished": published, "dateModified": "MISSING"}) == (
        parse_timestamp(published)
    )
    assert record_datestamp({"dateCreated": created, "datePublished": "not a date"}) == parse_timestamp(created)
    assert record_datestamp({}) is None


def test_a_project_reads_its_attributes_and_leaves_the_rest_to_get():
    project = Project.from_raw(
        freeze(
            {
                "id": "p-1",
                "shortcode": "0A0F",
                "pid": "https://ark.example/0A0F",
                "name": {"de": "Leuchttürme", "en": "Lighthouses"},
                "status": 7,
                "attributions": [
                    {"contributor": "person-001", "contributorType": ["Editor", 3]},
                    {"contributorType": ["Author"]},
                ],
                "funding": [{"funders": ["organization-002", "organization-002"]}, "text"],
                "contactPoint": ["person-001"],
                "clusters": ["cluster-001"],
                "collections": ["collection-001", None],
                "datePublished": "2020-01-02T00:00:00Z",
                "startDate": "2019-01-01",
                "keywords": ["sea"],
            }
        )
    )
    assert (project.id, project.shortcode, project.key, project.pid) == (
        "p-1",
        "0A0F",
        "0a0f",
        "https://ark.example/0A0F",
    )
    assert (project.name, project.status) == ("Lighthouses", "")  # the preferred language; a non-text status is none
    assert project.attributions == (Attribution("person-001", ("Editor",)),)
    assert project.funder_ids == ("organization-002",)
    assert (project.contact_point_ids, project.cluster_ids, project.collection_ids) == (
        ("person-001",),
        ("cluster-001",),
        ("collection-001",),
    )
    assert project.datestamp == 1577923200  # datePublished: no dateModified
    assert project.get("keywords") == ("sea",) and project.get("absent", "none") == "none"


def test_every_other_kind_reads_its_id_and_its_own_attributes():
    person = Person.from_raw(freeze({"id": "person-001", "givenNames": ["Ada"], "familyNames": ["Byron"]}))
    assert (person.id, person.display_name, person.sort_name, person.affiliation_ids) == (
        "person-001",
        "Ada Byron",
        "Byron, Ada",
        (),
    )
    organization = Organization.from_raw(freeze({"id": "organization-001", "name": {"fr": "Archives"}}))
    assert (organization.id, organization.display_name) == ("organization-001", "Archives")
    cluster = Cluster.from_raw(freeze({"id": "cluster-001", "name": {"en": "Seas"}, "projects": ["0A0F"]}))
    assert (cluster.name, cluster.project_shortcodes) == ("Seas", ("0A0F",))
    collection = Collection.from_raw(
        freeze({"id": "collection-001", "projects": ["0A0F"], "records": ["r1"], "collections": ["collection-002"]})
    )
    assert (collection.name, collection.record_ids, collection.collection_ids) == ("", ("r1",), ("collection-002",))
    assert collection.get("projects") == ("0A0F",)
