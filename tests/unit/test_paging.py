"""catalog.domain.paging agrees with Django's Paginator, which the Django views use."""

from __future__ import annotations

import pytest
from django.core.paginator import Paginator

from catalog.domain.paging import BEYOND, page_bounds, page_count, whole_number


@pytest.mark.parametrize("total", [0, 1, 19, 20, 21, 100, 1001])
@pytest.mark.parametrize("size", [1, 20, 50])
def test_same_pages_as_djangos_paginator(total, size):
    paginator = Paginator(range(total), size)
    assert page_count(total, size) == paginator.num_pages
    for number in paginator.page_range:
        start, stop = page_bounds(number, size)
        assert list(range(total))[start:stop] == list(paginator.page(number).object_list)


@pytest.mark.parametrize(
    ("text", "number"),
    [("0", 0), ("1", 1), ("007", 7), ("1000000000", 1000000000), ("9" * 15, int("9" * 15)), ("1" + "0" * 400, BEYOND)],
)
def test_a_whole_number_in_ascii_digits(text: str, number: int) -> None:
    assert whole_number(text) == number


# str.isdigit() takes the superscript two and other scripts' digits; int() refuses the one and reads the others.
@pytest.mark.parametrize(
    "text", ["", "²", "\u0661", "\u0663", "\uff11", "+1", "-1", " 1", "1 ", "1.0", "1e3", "0x1", "1_000"]
)
def test_anything_else_is_no_whole_number(text: str) -> None:
    assert whole_number(text) is None
