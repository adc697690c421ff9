"""Accept headers with media-type parameters (catalog.web.accept)."""

import pytest

from catalog.web.accept import parameter, preferred

OFFERED = ("text/html", "application/ld+json", "text/turtle", "text/x-bibliography")


@pytest.mark.parametrize(
    ("header", "chosen"),
    [
        ("text/x-bibliography; style=apa", "text/x-bibliography"),
        ('application/ld+json; profile="https://schema.org/"', "application/ld+json"),
        ("text/turtle;q=0.9, text/html ; level=1 ; q=0.1", "text/turtle"),
        ('application/ld+json; profile="a,b", */*;q=0.1', "application/ld+json"),
        ("*/*", "text/html"),  # a tie goes to the order of the offer
        ("text/*, application/ld+json;q=0.5", "text/html"),
        ("text/*;q=0.5, text/turtle", "text/turtle"),
        ("text/turtle;q=0.5, text/*;q=0.5, */*;q=0.5", "text/turtle"),  # equal q: the more specific range
        ("application/ld+json;q=0.8, text/turtle;q=0.8", "application/ld+json"),  # equal q: the range named first
        ("text/html;q=x", "text/html"),  # an unreadable q counts as 1
    ],
)
def test_the_preferred_type(header: str, chosen: str) -> None:
    assert preferred(header, OFFERED) == chosen


@pytest.mark.parametrize(
    ("header", "chosen"),
    [
        ("text/html;q=0, */*;q=0.1", "application/ld+json"),  # RFC 9110 §12.4.2: q=0 is "not acceptable"
        ("*/*;q=0.1, text/html;q=0", "application/ld+json"),  # whatever the order
        ("text/html;q=0.000, text/*", "text/turtle"),
        ("text/*;q=0, */*", "application/ld+json"),
        ("text/turtle;q=0, text/*", "text/html"),
        ("*/*;q=0", None),
        ("text/html;q=0", None),
        ("image/png", None),
        ("", None),
        ("html", None),
    ],
)
def test_a_type_refused_with_q_0_is_never_chosen(header: str, chosen: str | None) -> None:
    assert preferred(header, OFFERED) == chosen


def test_a_parameter_is_read_from_its_own_media_range() -> None:
    header = "application/json; style=x, text/x-bibliography; style=chicago-author-date; q=0.8"
    assert parameter(header, "text/x-bibliography", "style") == "chicago-author-date"
    assert parameter("text/x-bibliography", "text/x-bibliography", "style") is None
