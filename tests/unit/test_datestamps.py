"""catalog.publishing.datestamps: second-granularity datestamps and inclusive ranges (parsing: test_oai_datestamps)."""

from __future__ import annotations

import re
import time

import pytest

from catalog.publishing.datestamps import MAX_STAMP, MIN_STAMP, DateRange, format_datestamp, now_datestamp, parse_range


def test_stamps_beyond_four_digit_years_are_clamped_to_the_writable_range():
    assert format_datestamp(MIN_STAMP - 1) == format_datestamp(MIN_STAMP) == "0001-01-01T00:00:00Z"
    assert format_datestamp(MAX_STAMP + 1) == format_datestamp(MAX_STAMP) == "9999-12-31T23:59:59Z"


@pytest.mark.parametrize(
    "stamp, expected",
    [
        (0, "1970-01-01T00:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),  # before the epoch: the day before, the day's last second
        (86_399, "1970-01-01T23:59:59Z"),
        (86_400, "1970-01-02T00:00:00Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (1_764_159_133, "2025-11-26T12:12:13Z"),
        (-62_135_596_800 + 3_661, "0001-01-01T01:01:01Z"),
    ],
)
def test_datestamps_are_utc_seconds(stamp: int, expected: str):
    assert format_datestamp(stamp) == expected


def test_now_is_the_current_second():
    before = int(time.time())
    now = now_datestamp()
    after = int(time.time())
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", now)
    assert format_datestamp(before) <= now <= format_datestamp(after)


@pytest.mark.parametrize(
    "low, high, inside, outside",
    [
        (10, 20, [10, 15, 20], [9, 21]),  # both bounds inclusive
        (10, None, [10, 10**12], [9]),
        (None, 20, [-(10**12), 20], [21]),
        (None, None, [-(10**12), 0, 10**12], []),
    ],
)
def test_a_range_contains_its_bounds(low, high, inside, outside):
    bounds = DateRange(low, high)
    assert [bounds.contains(stamp) for stamp in inside + outside] == [True] * len(inside) + [False] * len(outside)
    assert bounds.unbounded is (low is None and high is None)


def test_a_day_until_holds_the_days_last_second_and_not_the_next_days_first():
    day = parse_range(None, "2012-06-19")
    assert day.contains(1340150399)  # 2012-06-19T23:59:59Z
    assert not day.contains(1340150400)  # 2012-06-20T00:00:00Z
