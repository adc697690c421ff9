"""catalog.domain.charts: where the bars of a chart go, its scale and ticks, and the filter each bar links to."""

from __future__ import annotations

import pytest

from catalog.domain.charts import (
    BOTTOM,
    MAX_ROWS,
    MAX_YEARS,
    MIN_HEIGHT,
    PLOT_HEIGHT,
    TOP,
    nice_step,
    row_chart,
    wrap,
    year_chart,
)


@pytest.mark.parametrize(
    ("largest", "most", "step"), [(1, 4, 1), (4, 4, 1), (5, 4, 2), (8, 4, 2), (9, 4, 5), (3952, 4, 1000), (61, 7, 10)]
)
def test_a_nice_step_reaches_the_largest_value_in_so_many_steps(largest, most, step):
    assert nice_step(largest, most) == step


def params(year: int) -> tuple[tuple[str, str], ...]:
    return (("year", str(year)),)


def test_years_get_a_slot_each_and_a_column_where_they_have_a_count():
    chart = year_chart({2011: 40, 2013: 10, 2014: 0}, {year: params(year) for year in (2011, 2013, 2014)})
    assert chart is not None and chart.continuous
    assert [(c.year, c.count, c.params) for c in chart.columns] == [(2011, 40, params(2011)), (2013, 10, params(2013))]
    # Three slots (2011-2013), each a third of the width; a column is 80 % of its slot, centred.
    assert [(c.x, c.width) for c in chart.columns] == [("3.333%", "26.667%"), ("70%", "26.667%")]
    assert chart.columns[0].height == PLOT_HEIGHT and chart.columns[0].y == TOP  # 40 is the top tick
    assert chart.columns[1].height == PLOT_HEIGHT / 4
    assert [tick.value for tick in chart.grid] == [0, 10, 20, 30, 40]
    assert chart.grid[0].position == str(float(TOP + PLOT_HEIGHT)) and chart.grid[-1].position == str(float(TOP))
    assert [label.value for label in chart.labels] == [2011, 2012, 2013]
    assert chart.height == TOP + PLOT_HEIGHT + BOTTOM and chart.total == 50


def test_a_small_count_keeps_a_visible_column_and_labels_thin_out():
    counts = {year: 1 for year in range(1980, 2041)}
    counts[2000] = 10_000
    chart = year_chart(counts, {year: params(year) for year in counts})
    assert chart is not None
    assert min(column.height for column in chart.columns) == MIN_HEIGHT
    assert [label.value for label in chart.labels] == [1980, 1990, 2000, 2010, 2020, 2030, 2040]


def test_a_span_past_a_century_draws_only_the_years_with_a_count():
    counts = {1650: 2, 2011: 5, 2012: 1}
    chart = year_chart(counts, {year: params(year) for year in counts})
    assert chart is not None and not chart.continuous and MAX_YEARS <= 2011 - 1650
    assert [(c.year, c.x) for c in chart.columns] == [(1650, "3.333%"), (2011, "36.667%"), (2012, "70%")]
    assert [label.value for label in chart.labels] == [1650, 2011, 2012]


def test_no_count_no_chart():
    assert year_chart({}, {}) is None and year_chart({2020: 0}, {2020: params(2020)}) is None
    assert row_chart([("a", "A", 0, ())]) is None


def test_labels_wrap_between_words():
    assert wrap("General history (without pre- and early history)") == (
        "General history (without pre-",
        "and early history)",
    )
    assert wrap("Supercalifragilisticexpialidociousness x", 10) == ("Supercalifragilisticexpialidociousness", "x")
    assert wrap("") == ("",)


def test_rows_scale_to_the_largest_and_stack_their_label_lines():
    chart = row_chart(
        [
            ("Text", "Text", 30, (("type", "Text"),)),
            ("Long", "General history (without pre- and early history)", 15, (("type", "Long"),)),
            ("None", "None", 0, (("type", "None"),)),
        ]
    )
    assert chart is not None
    assert [(row.value, row.count, row.length) for row in chart.rows] == [("Text", 30, "100%"), ("Long", 15, "50%")]
    first, second = chart.rows
    assert first.lines == (("Text", 14.0),) and first.bar_y == 20.0
    # Two lines; the first keeps a space at its end, so that the words of the text read out stay apart.
    assert second.lines == (("General history (without pre- ", 58.0), ("and early history)", 76.0))
    assert second.bar_y == 82.0 and chart.height == 96 and chart.total == 45


def test_the_drawing_shows_the_largest_rows_and_the_table_has_them_all():
    chart = row_chart([(str(n), str(n), 100 - n, ()) for n in range(MAX_ROWS + 5)])
    assert chart is not None and len(chart.rows) == MAX_ROWS + 5 and len(chart.drawn) == MAX_ROWS
    assert chart.height == int(chart.drawn[-1].bar_y + 12 + 2)
