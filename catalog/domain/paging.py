"""Page arithmetic shared by every paged answer that is not a Django view.

One rule everywhere: an empty list still has one (empty) page, and page
``n`` (numbered from 1) holds items ``(n - 1) * size`` up to ``n * size``.
Django views use :class:`django.core.paginator.Paginator` instead, which
follows the same rule.
"""

from __future__ import annotations


def page_count(total: int, size: int) -> int:
    """How many pages ``total`` items fill at ``size`` per page (at least one)."""
    return max(1, -(-total // size))


def page_bounds(number: int, size: int) -> tuple[int, int]:
    """The ``start`` and ``stop`` item positions of page ``number`` (from 1)."""
    return (number - 1) * size, number * size
