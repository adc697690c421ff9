"""Page arithmetic shared by every paged answer: pages, API, sitemap, DCAT.

One rule everywhere: an empty list still has one (empty) page, and page
``n`` (numbered from 1) holds items ``(n - 1) * size`` up to ``n * size``.
"""

from __future__ import annotations

from typing import ClassVar


def page_count(total: int, size: int) -> int:
    """How many pages ``total`` items fill at ``size`` per page (at least one)."""
    return max(1, -(-total // size))


def page_bounds(number: int, size: int) -> tuple[int, int]:
    """The ``start`` and ``stop`` item positions of page ``number`` (from 1)."""
    return (number - 1) * size, number * size


class PagePositions:
    """Mixin for a page of results: the 1-based positions of its first and last item (0 and 0 when empty)."""

    page_size: ClassVar[int]
    total: int
    page: int

    @property
    def first_position(self) -> int:
        return page_bounds(self.page, self.page_size)[0] + 1 if self.total else 0

    @property
    def last_position(self) -> int:
        return min(page_bounds(self.page, self.page_size)[1], self.total)
