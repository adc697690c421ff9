"""catalog.formats.signposting: the Link header and the linkset carry the same typed links."""

from __future__ import annotations

from catalog.formats.signposting import HEADER_ITEMS, LINKSET_TYPE, TypedLink, link_header, linkset

PAGE = "https://meta.example.org/projects/0AA1"
LINKSET = PAGE + "/linkset"


def test_the_header_names_each_link_with_its_attributes_then_the_linkset():
    links = [
        TypedLink("https://ark.example.org/ark:/99999/1/0AA1", "cite-as"),
        TypedLink(PAGE + "/datacite.xml", "describedby", "application/vnd.datacite.datacite+xml"),
        TypedLink("https://schema.org/AboutPage", "type"),
        TypedLink(PAGE + "/metadata.jsonld", "describedby", "application/ld+json", "https://schema.org/"),
    ]
    assert link_header(links, LINKSET) == ", ".join(
        [
            '<https://ark.example.org/ark:/99999/1/0AA1> ; rel="cite-as"',
            f'<{PAGE}/datacite.xml> ; rel="describedby" ; type="application/vnd.datacite.datacite+xml"',
            '<https://schema.org/AboutPage> ; rel="type"',
            f'<{PAGE}/metadata.jsonld> ; rel="describedby" ; type="application/ld+json" ; profile="https://schema.org/"',
            f'<{LINKSET}> ; rel="linkset" ; type="{LINKSET_TYPE}"',
        ]
    )


def test_the_header_keeps_the_first_items_and_every_other_link():
    items = [TypedLink(f"{PAGE}/records/r{n}", "item") for n in range(HEADER_ITEMS + 5)]
    header = link_header([*items, TypedLink(PAGE + "/license", "license")], LINKSET)
    assert header.count('rel="item"') == HEADER_ITEMS
    assert f"<{PAGE}/records/r{HEADER_ITEMS - 1}>" in header and f"<{PAGE}/records/r{HEADER_ITEMS}>" not in header
    assert f'<{PAGE}/license> ; rel="license"' in header


def test_a_quote_or_backslash_in_a_parameter_is_escaped():
    header = link_header([TypedLink(PAGE, "describedby", 'text/x"y\\z')], LINKSET)
    assert header.startswith(f'<{PAGE}> ; rel="describedby" ; type="text/x\\"y\\\\z", ')


def test_the_linkset_groups_every_link_by_relation_in_order():
    items = [TypedLink(f"{PAGE}/records/r{n}", "item", "text/html") for n in range(HEADER_ITEMS + 1)]
    cite = TypedLink("https://ark.example.org/ark:/99999/1/0AA1", "cite-as")
    described = TypedLink(PAGE + "/metadata.jsonld", "describedby", "application/ld+json", "https://schema.org/")
    assert linkset(PAGE, [cite, *items, described]) == {
        "linkset": [
            {
                "anchor": PAGE,
                "cite-as": [{"href": cite.href}],
                "item": [{"href": item.href, "type": "text/html"} for item in items],  # all of them
                "describedby": [
                    {"href": described.href, "type": "application/ld+json", "profile": "https://schema.org/"}
                ],
            }
        ]
    }
