"""Accept headers with media-type parameters (catalog.web.accept)."""

import pytest

from catalog.web.accept import parameter, without_parameters


@pytest.mark.parametrize(
    ("header", "plain"),
    [
        ("text/x-bibliography; style=apa", "text/x-bibliography"),
        ('application/ld+json; profile="https://schema.org/"', "application/ld+json"),
        ("application/json; charset=utf-8", "application/json"),
        ("text/turtle;q=0.9, text/html ; level=1 ; q=0.1", "text/turtle;q=0.9, text/html;q=0.1"),
        ('application/ld+json; profile="a,b", */*;q=0.1', "application/ld+json, */*;q=0.1"),
        ("", ""),
    ],
)
def test_parameters_other_than_q_are_dropped(header: str, plain: str) -> None:
    assert without_parameters(header) == plain


def test_a_parameter_is_read_from_its_own_media_range() -> None:
    header = "application/json; style=x, text/x-bibliography; style=chicago-author-date; q=0.8"
    assert parameter(header, "text/x-bibliography", "style") == "chicago-author-date"
    assert parameter("text/x-bibliography", "text/x-bibliography", "style") is None
