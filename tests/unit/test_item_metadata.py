"""Pure mapping rules, without a server: roles, issue dates, identifiers, vocabularies, the XML writers."""

from __future__ import annotations

import pytest
from lxml import etree

from catalog.domain import dates, identifiers
from catalog.domain.model import Project, freeze
from catalog.domain.roles import creator_attributions, is_creator_role, project_credits
from catalog.formats import datacite_xml, dublin_core_xml, item_metadata, vocabularies
from catalog.formats.item_metadata import Agent, Funding, ItemMetadata, Text, free_text_agent


def project(**fields) -> Project:
    raw = {"id": "p", "shortcode": "0AAA", "name": "P", "status": "Finished", **fields}
    return Project.from_raw(freeze(raw))


@pytest.mark.parametrize(
    "role",
    [
        "Project Director",
        "Applicant",
        "Co-applicant",
        "1991-2012: Vollberuflicher Mitarbeiter der HKKA  Initiant des Projekts und Leiter des Herausgeberteams",
        "Projektleitung",
        "Principal Investigator (PI)",
        "PI of the project",
        "Head of project",
        "scientific direction",
        "CO-Author of Filmic Images",
        "Moi, un Afropéen/Director 2009-2017",
        "directrice du projet",
        "requérante",
        "Creator of the project",
    ],
)
def test_leading_roles_in_three_languages(role):
    assert is_creator_role(role)


@pytest.mark.parametrize(
    "role",
    [
        "Data Curator",
        "Project Member, Data Collector",
        "Moi, un Afropéen/Director of Photography 2017",
        "Project Coordinator, Field Director",
        "Student Assistant, Excavation Direction",
        "Präsident des Wissenschaftlichen Beirats",
    ],
)
def test_roles_that_do_not_lead(role):
    assert not is_creator_role(role)


def test_a_creator_keeps_the_roles_that_do_not_lead():
    attributions = [
        {"contributor": "a", "contributorType": ["Project Leader, Data Curator"]},
        {"contributor": "b", "contributorType": ["Data Collector"]},
        {"contributor": "a", "contributorType": ["Editor"]},
    ]
    credits = project_credits(project(attributions=attributions))
    assert [(c.contributor_id, c.is_creator, c.other_roles) for c in credits] == [
        ("a", True, ("Data Curator", "Editor")),
        ("b", False, ("Data Collector",)),
    ]
    assert [a.contributor_id for a in creator_attributions(project(attributions=attributions))] == ["a"]


class _NoRecords:
    """A catalogue stand-in: the issue rule reads only records_of (and memo_for its derived values)."""

    def __init__(self) -> None:
        self.derived = {}

    def records_of(self, project):
        return None


@pytest.mark.parametrize(
    "fields, issued",
    [
        ({"dataPublicationYear": "2020", "startDate": "2010-01-01"}, "2020"),
        ({"legalInfo": [{"license": {"licenseDate": "2021-09-02"}}], "startDate": "2016-08-01"}, "2021-09-02"),
        ({"endDate": "2019-07-31", "startDate": "2016-08-01"}, "2019-07-31"),
        ({"status": "Ongoing", "endDate": "2030-12-31", "startDate": "2016-08-01"}, "2016-08-01"),
        ({"dataPublicationYear": "MISSING"}, None),
    ],
)
def test_project_issue_date_rule(fields, issued):
    assert dates.project_issued(_NoRecords(), project(**fields)) == issued


def test_record_issue_date_is_a_date():
    assert dates.record_issued({"datePublished": "2012-06-19T14:33:33Z"}) == "2012-06-19"
    assert dates.record_issued({"datePublished": "CALCULATED"}) is None


def test_pid_types():
    assert identifiers.pid_type("https://ark.dasch.swiss/ark:/72163/1/0801") == "ARK"
    assert identifiers.pid_type("https://doi.org/10.1234/x") == "DOI"
    assert identifiers.pid_type("https://example.org/x") == "URL"


def test_vocabularies():
    assert vocabularies.dcmi_type("Project") == "Collection"
    assert vocabularies.dcmi_type("Audiovisual") == "MovingImage"
    assert vocabularies.dcmi_type("Other") == "Dataset"
    snsf = vocabularies.known_organisation("Swiss National Science Foundation (SNSF)")
    assert snsf and snsf.crossref_funder_id == "https://doi.org/10.13039/501100001711"
    assert snsf.ror == "https://ror.org/00yjd3n13"
    assert vocabularies.known_organisation("Example Fund") is None
    assert vocabularies.access_right("Embargoed Access").eu_repo_uri == "info:eu-repo/semantics/embargoedAccess"


def test_free_text_names_get_a_name_type():
    assert free_text_agent("Beispiel, Anna", frozenset({"Beispiel, Anna"})).name_type == "Personal"
    assert free_text_agent("DaSCH", frozenset()).name_type == "Organizational"


def item() -> ItemMetadata:
    return ItemMetadata(
        identifier="https://example.org/projects/0AAA",
        identifier_type="URL",
        publisher="DaSCH",
        publisher_identifier="https://ror.org/000000000",
        publication_year="2021",
        resource_type=("Project", "Research Project"),
        titles=[Text("P")],
        creators=[Agent("DaSCH", "Organizational")],
        contributors=[(Agent("DaSCH", "Organizational"), "RightsHolder"), (Agent("B, A", "Personal"), "Editor")],
        issued="2021-09-02",
        embargo_end="2029-08-31",
        access=vocabularies.access_right("Embargoed Access"),
        related_texts=["A. Author (2023), Letters."],
        funding=[Funding("SNSF", "https://doi.org/10.13039/501100001711", "Crossref Funder ID", None, None, "T")],
    )


def test_datacite_is_self_contained_and_has_no_empty_elements():
    root = etree.fromstring(datacite_xml.render(item()))  # parses alone: every prefix is declared on the root
    ns = {"d": "http://datacite.org/schema/kernel-4"}
    assert root.xpath("//d:publisher/@publisherIdentifier", namespaces=ns) == ["https://ror.org/000000000"]
    assert root.xpath("//d:rights/@rightsURI", namespaces=ns) == [
        "http://purl.org/coar/access_right/c_f1cf",
        "info:eu-repo/semantics/embargoedAccess",
    ]
    assert root.xpath("//d:relatedItem/d:titles/d:title/text()", namespaces=ns) == ["A. Author (2023), Letters."]
    assert root.xpath("//d:funderIdentifier/@funderIdentifierType", namespaces=ns) == ["Crossref Funder ID"]
    assert not root.xpath("//d:awardNumber", namespaces=ns)


def test_dublin_core_mapping():
    root = etree.fromstring(dublin_core_xml.render(item()))
    values = [(element.tag.rpartition("}")[2], element.text) for element in root]
    assert ("date", "2021-09-02") in values
    assert ("date", "info:eu-repo/date/embargoEnd/2029-08-31") in values
    assert ("type", "Collection") in values
    assert ("relation", "A. Author (2023), Letters.") in values
    # Rights holders are not contributors; creators are not repeated as contributors.
    assert [v for k, v in values if k == "contributor"] == ["B, A"]


def test_each_project_context_derives_the_shared_parts_of_its_records_itself():
    """The parts records share are derived per project context: a name is Personal only where a person has it."""
    legal = [{"authorship": ["Mira Sommer"]}]
    known = item_metadata.RecordSharing(frozenset({"Mira Sommer"}))
    unknown = item_metadata.RecordSharing(frozenset())
    for _ in range(2):  # derived, then found again
        assert [agent.name_type for agent in known.of(None, legal, None).creators] == ["Personal"]
        assert [agent.name_type for agent in unknown.of(None, legal, None).creators] == ["Organizational"]
