"""catalog.domain.paging agrees with Django's Paginator, which the Django views use."""

from __future__ import annotations

import pytest
from django.core.paginator import Paginator

from catalog.domain.paging import page_bounds, page_count


@pytest.mark.parametrize("total", [0, 1, 19, 20, 21, 100, 1001])
@pytest.mark.parametrize("size", [1, 20, 50])
def test_same_pages_as_djangos_paginator(total, size):
    paginator = Paginator(range(total), size)
    assert page_count(total, size) == paginator.num_pages
    for number in paginator.page_range:
        start, stop = page_bounds(number, size)
        assert list(range(total))[start:stop] == list(paginator.page(number).object_list)
