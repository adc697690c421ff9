"""Bar charts of counts the listings compute: where each bar goes, the scale, its ticks and the filter it links to.

The counts are never counted here: they come from the listings' own facet
functions (:mod:`catalog.domain.search`, :mod:`catalog.domain.all_records`),
so a bar counts exactly what its link lists. This module only lays them out
for an inline SVG (``templates/_chart.html``) that needs no script: horizontal
positions in percent of the drawing's width, so that it fills any width from a
320 px phone to a desktop while its text keeps its size; vertical ones in
pixels. Labels come in already in the page's language (wrapping depends on them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Params = tuple[tuple[str, str], ...]  # the URL parameters of the listing a bar counts

PLOT_HEIGHT = 160  # px: the height of the tallest column
TOP = 14  # px above the plot: room for the top tick's label
BOTTOM = 26  # px below the plot: the year labels
MIN_HEIGHT = 2  # px: a column of one among thousands stays visible and clickable
MAX_LABELS = 7  # year labels at most: they fit side by side at 320 px
MAX_TICKS = 4  # grid lines above zero at most
MAX_YEARS = 100  # a year axis spans a century at most; wider, only the years with a count are drawn
LINE_CHARACTERS = 32  # a row's label wraps before this many characters (room for the count at 320 px)
LINE_HEIGHT = 18  # px per label line of a row
BAR_HEIGHT = 12  # px: a row's bar
ROW_GAP = 12  # px between rows
MAX_ROWS = 12  # rows drawn at most (the largest); the table beside the drawing has every one
NICE_STEPS = (1, 2, 5)


def nice_step(largest: int, most: int) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50 … with which ``most`` steps reach ``largest``."""
    magnitude = 1
    while True:
        for step in NICE_STEPS:
            if step * magnitude * most >= largest:
                return step * magnitude
        magnitude *= 10


def _percent(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") + "%"


@dataclass(frozen=True, slots=True)
class Column:
    """One year's column: its count, the filter of its listing, and where it is drawn."""

    year: int
    count: int
    params: Params
    x: str  # left edge, percent of the width
    width: str  # percent of the width
    y: float  # px from the top
    height: float  # px


@dataclass(frozen=True, slots=True)
class Tick:
    """A grid line of the value axis, or a year label under the columns."""

    value: int
    position: str  # y in px (grid lines), or x in percent (year labels)


@dataclass(frozen=True, slots=True)
class YearChart:
    columns: tuple[Column, ...]  # the years with a count, oldest first
    grid: tuple[Tick, ...]  # value ticks from 0 up
    labels: tuple[Tick, ...]  # the years named under the columns
    height: int  # px
    baseline: float  # px: the y of the zero line
    label_y: float  # px: the baseline of the year labels
    continuous: bool  # every year of the span has its slot (else only the years with a count)

    @property
    def total(self) -> int:
        return sum(column.count for column in self.columns)


def year_chart(counts: Mapping[int, int], params: Mapping[int, Params]) -> YearChart | None:
    """Columns for ``{year: count}`` (years without a count have none), each linking to ``params[year]``.

    None when no year has a count. The years run from the first to the last with a count, one slot
    each, unless that spans more than :data:`MAX_YEARS`: then only the years with a count get a slot.
    """
    years = sorted(year for year, count in counts.items() if count > 0)
    if not years:
        return None
    continuous = years[-1] - years[0] < MAX_YEARS
    slots = list(range(years[0], years[-1] + 1)) if continuous else years
    slot = 100 / len(slots)
    place = {year: number for number, year in enumerate(slots)}
    step = nice_step(max(counts[year] for year in years), MAX_TICKS)
    top = step * -(-max(counts[year] for year in years) // step)  # the first tick at or above the largest count
    baseline = TOP + PLOT_HEIGHT
    columns = tuple(
        Column(
            year=year,
            count=counts[year],
            params=params[year],
            x=_percent((place[year] + 0.1) * slot),
            width=_percent(slot * 0.8),
            y=round(baseline - (height := max(MIN_HEIGHT, counts[year] / top * PLOT_HEIGHT)), 1),
            height=round(height, 1),
        )
        for year in years
    )
    grid = tuple(Tick(value, str(round(baseline - value / top * PLOT_HEIGHT, 1))) for value in range(0, top + 1, step))
    every = nice_step(len(slots), MAX_LABELS)
    labelled = [year for year in slots if year % every == 0] if continuous else slots[::every]
    labels = tuple(Tick(year, _percent((place[year] + 0.5) * slot)) for year in labelled)
    return YearChart(columns, grid, labels, baseline + BOTTOM, baseline, baseline + BOTTOM - 8, continuous)


@dataclass(frozen=True, slots=True)
class Row:
    """One category's bar: its label (in lines), count, the filter of its listing, and where it is drawn."""

    value: str
    label: str
    lines: tuple[tuple[str, float], ...]  # (text, baseline y in px) of each line of the label
    count: int
    params: Params
    length: str  # percent of the width
    bar_y: float  # px


@dataclass(frozen=True, slots=True)
class RowChart:
    rows: tuple[Row, ...]
    height: int  # px: of the rows drawn
    bar_height: int = BAR_HEIGHT  # px

    @property
    def total(self) -> int:
        return sum(row.count for row in self.rows)

    @property
    def drawn(self) -> tuple[Row, ...]:
        return self.rows[:MAX_ROWS]


def wrap(text: str, width: int = LINE_CHARACTERS) -> tuple[str, ...]:
    """``text`` in lines of at most ``width`` characters, broken between words (a longer word stands alone)."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return tuple(lines) or ("",)


def row_chart(bars: Sequence[tuple[str, str, int, Params]]) -> RowChart | None:
    """Rows for ``(value, label, count, params)`` in the order given (those with a count); None when none has one.

    Every row is laid out; the drawing shows the first :data:`MAX_ROWS` (:attr:`RowChart.drawn`).
    """
    rows = []
    y = 0.0
    counted = [bar for bar in bars if bar[2] > 0]
    if not counted:
        return None
    largest = max(count for _, _, count, _ in counted)
    for value, label, count, params in counted:
        lines = wrap(label)
        # Each line but the last keeps a trailing space, so that the text read out has its words apart.
        placed = tuple(
            (line + " " * (n < len(lines) - 1), y + LINE_HEIGHT * (n + 1) - 4) for n, line in enumerate(lines)
        )
        bar_y = y + LINE_HEIGHT * len(lines) + 2
        rows.append(Row(value, label, placed, count, params, _percent(count / largest * 100), bar_y))
        y = bar_y + BAR_HEIGHT + ROW_GAP
    last = rows[:MAX_ROWS][-1]
    return RowChart(tuple(rows), int(last.bar_y + BAR_HEIGHT + 2))
