"""Page arithmetic shared by every paged answer: pages, API, sitemap, DCAT; and the one parser of a number in a URL.

One rule everywhere: an empty list still has one (empty) page, and page
``n`` (numbered from 1) holds items ``(n - 1) * size`` up to ``n * size``.
Every whole number a query parameter carries (``page``, ``page_size``,
``from``/``to``) is read by :func:`whole_number`, so that no view meets a
number ``int()`` refuses.
"""

from __future__ import annotations

from typing import ClassVar

# A number with more digits than this is past every list and year: its exact value is never needed.
MAX_DIGITS = 15
BEYOND = 10**MAX_DIGITS


def whole_number(text: str) -> int | None:
    """``text`` as a whole number if it is written in ASCII digits only, else None.

    ``str.isdigit`` also accepts "²" or an Arabic-Indic one (which ``int`` refuses or reads as
    another script's digit); a sign, a space, a point or an exponent is not a
    whole number either. A number of more than :data:`MAX_DIGITS` digits reads
    as :data:`BEYOND`, past any page, without converting the text.
    """
    if not text or not text.isascii() or not text.isdigit():
        return None
    digits = text.lstrip("0") or "0"
    return int(digits) if len(digits) <= MAX_DIGITS else BEYOND


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
