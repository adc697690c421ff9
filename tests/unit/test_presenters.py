"""catalog.pages.presenters: what the pages show, computed from stored values without a request."""

from __future__ import annotations

from catalog.domain.model import Project, freeze
from catalog.domain.values import Link, Placeholder, Values
from catalog.pages.presenters import (
    address_lines,
    identifier_links,
    license_views,
    meta_description,
    plain,
    project_badges,
    project_card,
    project_tabs,
    slug,
)

HIDDEN = Values(show_placeholders=False)
SHOWN = Values(show_placeholders=True)


def project(**fields) -> Project:
    return Project.from_raw(freeze({"id": "p-1", "shortcode": "0A0F", **fields}))


def test_slug_and_plain():
    assert slug("Open Access with Restrictions") == "open-access-with-restrictions"
    assert plain(Link("https://example.org", "Example")) == "Example"
    assert plain(Placeholder("MISSING")) == "" and plain(None) == "" and plain("text") == "text"


def test_badges_from_status_and_access_right():
    badges = project_badges(project(status="Ongoing", accessRights={"accessRights": "Full Open Access"}), HIDDEN)
    assert [(b.label, b.css) for b in badges] == [
        ("Ongoing", "status-ongoing"),
        ("Full Open Access", "access-full-open-access"),
    ]
    assert project_badges(project(status="MISSING"), SHOWN) == ()  # a placeholder is never a badge


def test_card_keeps_the_first_four_shown_keywords():
    card = project_card(
        project(name="Alpine", keywords=[{"en": "maps"}, "MISSING", "alps", "", "roads", "passes", "huts"]), HIDDEN
    )
    assert (card.name, card.url) == ("Alpine", "/projects/0A0F")
    assert card.keywords == ("maps", "alps", "roads", "passes")
    assert project_card(project(), HIDDEN).name == "0A0F"  # no name: the shortcode


def test_licenses_need_an_identifier_or_a_url():
    views = license_views(
        freeze(
            [
                {
                    "license": {
                        "licenseIdentifier": "CC BY 4.0",
                        "licenseURI": "https://creativecommons.org/licenses/by/4.0/",
                    }
                },
                {"license": {"licenseIdentifier": "Custom", "licenseDate": "2024-01-31"}},
                {"license": {"licenseIdentifier": "MISSING"}},
                {"license": "CC0"},
            ]
        ),
        HIDDEN,
    )
    assert [(v.label, v.url, v.is_creative_commons, v.date) for v in views] == [
        ("CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/", True, None),
        ("Custom", None, False, "2024-01-31"),
    ]


def test_identifier_links_grouped_by_kind():
    facts = identifier_links(
        freeze(
            [
                {"type": "ORCID", "url": "https://orcid.org/0000-0002-1825-0097"},
                {"type": "GND", "text": "118540238"},
                {"url": "https://viaf.org/viaf/1"},
                "https://example.org/other",
            ]
        ),
        HIDDEN,
    )
    assert [(fact.label, fact.values) for fact in facts] == [
        ("ORCID", (Link("https://orcid.org/0000-0002-1825-0097", "https://orcid.org/0000-0002-1825-0097"),)),
        ("GND", ("118540238",)),
        ("Identifier", (Link("https://viaf.org/viaf/1", "https://viaf.org/viaf/1"),)),
        ("Identifier", (Link("https://example.org/other", "https://example.org/other"),)),
    ]


def test_address_lines_leave_out_what_is_missing():
    address = {"street": "Petersgraben 51", "postalCode": "4051", "locality": "Basel", "canton": "MISSING"}
    assert address_lines(freeze(address), HIDDEN) == ("Petersgraben 51", "4051 Basel")
    assert address_lines("MISSING", HIDDEN) == ()


def test_meta_description_is_the_first_text_shortened():
    assert meta_description(None, Placeholder("MISSING"), "A project.") == "A project."
    long = meta_description("word " * 100)
    assert len(long) <= 160 and long.endswith("…")
    assert meta_description(None) == ""


def test_project_tabs_offer_publications_and_records_only_when_there_are_some():
    assert project_tabs("0A0F", has_publications=False, record_count=0) == (
        ("overview", "Overview", "/projects/0A0F"),
        ("contributors", "Contributors", "/projects/0A0F?tab=contributors"),
    )
    tabs = project_tabs("0A0F", has_publications=True, record_count=3)
    assert [tab_id for tab_id, _, _ in tabs] == ["overview", "publications", "contributors", "records"]
