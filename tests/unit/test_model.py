"""catalog.domain.model: entities read from their stored objects, one rule for every kind."""

from __future__ import annotations

from catalog.domain.model import Attribution, Cluster, Collection, Organization, Person, Project, freeze


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
