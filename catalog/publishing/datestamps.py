"""Datestamps (UTC, second granularity) and the ``from``/``until`` arguments (SPEC §5.3)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

GRANULARITY = "YYYY-MM-DDThh:mm:ssZ"
# Items without any date of their own (rare bad data) carry the epoch.
FALLBACK_DATESTAMP = 0

_DAY_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_SECOND_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
_DAY_SECONDS = 86_400

# Outside this range a datestamp cannot be written with a four-digit year.
MIN_STAMP = int(datetime(1, 1, 1, tzinfo=UTC).timestamp())
MAX_STAMP = int(datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp())


class DateArgumentError(ValueError):
    """``from``/``until`` that the protocol rejects with badArgument."""


def format_datestamp(stamp: int) -> str:
    """``YYYY-MM-DDThh:mm:ssZ`` of seconds since the epoch (UTC): the date part is cached, items share days."""
    day, second = divmod(min(max(stamp, MIN_STAMP), MAX_STAMP), _DAY_SECONDS)
    return f"{_date_part(day)}{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}Z"


@lru_cache(maxsize=4096)
def _date_part(day: int) -> str:
    """``YYYY-MM-DDT`` of the day ``day`` days after the epoch (UTC seconds have no leap seconds)."""
    t = time.gmtime(day * _DAY_SECONDS)
    return f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T"


def now_datestamp() -> str:
    return _datestamp_of_second(int(time.time()))


@lru_cache(maxsize=2)
def _datestamp_of_second(stamp: int) -> str:
    """Every response carries the time; within one second it is formatted once."""
    return format_datestamp(stamp)


@dataclass(frozen=True, slots=True)
class DateRange:
    """Inclusive bounds in seconds since the epoch; None is unbounded."""

    low: int | None = None
    high: int | None = None

    @property
    def unbounded(self) -> bool:
        return self.low is None and self.high is None

    def contains(self, stamp: int) -> bool:
        return (self.low is None or stamp >= self.low) and (self.high is None or stamp <= self.high)


def parse_range(from_value: str | None, until_value: str | None) -> DateRange:
    """Both bounds inclusive; a day-form ``until`` covers its whole day.

    Day and second granularity are both accepted, but not mixed in one request;
    ``from`` after ``until`` is an error (OAI-PMH 2.0 §3.3.1, §4.6).
    """
    low = _parse_bound("from", from_value, end_of_day=False)
    high = _parse_bound("until", until_value, end_of_day=True)
    if from_value is not None and until_value is not None:
        if len(from_value) != len(until_value):
            raise DateArgumentError("from and until must have the same granularity")
        if low is not None and high is not None and low > high:
            raise DateArgumentError("from is later than until")
    return DateRange(low, high)


def _parse_bound(name: str, value: str | None, *, end_of_day: bool) -> int | None:
    if value is None:
        return None
    if _SECOND_RE.fullmatch(value):
        pattern = "%Y-%m-%dT%H:%M:%SZ"
    elif _DAY_RE.fullmatch(value):
        pattern = "%Y-%m-%d"
    else:
        raise DateArgumentError(f"{name} must be YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ")
    try:
        moment = datetime.strptime(value, pattern).replace(tzinfo=UTC)
    except ValueError:
        raise DateArgumentError(f"{name} is not a valid date") from None
    stamp = int(moment.timestamp())
    return stamp + _DAY_SECONDS - 1 if end_of_day and pattern == "%Y-%m-%d" else stamp
