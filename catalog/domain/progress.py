"""Progress of long work on a terminal: how much of how much is done, the rate, the time left.

The counts live in shared memory (:class:`SharedCounts`), so that the processes the work is
forked into (the stamp's readers) add to them as they go; a thread of the process that shows
them rewrites one line in place every :data:`REPORT_SECONDS`, and leaves the last one. The commands make a
:class:`Progress` only when standard error is a terminal (or ``--progress`` asks for it), so
logs and CI output stay as they were.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable

REPORT_SECONDS = 0.5
CLEAR_LINE = "\r\033[K"


class SharedCounts:
    """Bytes and items done, added to by any process forked after it was made."""

    def __init__(self) -> None:
        self._counts = multiprocessing.get_context("fork").Array("q", 2)  # with a lock

    def add(self, size: int, items: int = 0) -> None:
        with self._counts.get_lock():
            self._counts[0] += size
            self._counts[1] += items

    def read(self) -> tuple[int, int]:
        with self._counts.get_lock():
            return self._counts[0], self._counts[1]


def amount(size: float) -> str:
    """A number of bytes as people read it: 812 kB, 3.4 GB."""
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit in ("B", "kB") else f"{size:.1f} {unit}"
        size /= 1000
    raise AssertionError  # the loop returns at GB


def duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``, ``2 h 07 min``."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole // 60 % 60:02d} min"


def report(action: str, unit: str, done: int, total: int, items: int, elapsed: float) -> str:
    """One progress line: ``stamp: 1,200,000 records, 1.1 GB of 3.4 GB (32%), 95,000 records/s, 4 min 10 s left``."""
    share = min(done / total, 1.0) if total else 1.0
    line = f"{action}: {items:,} {unit}, {amount(done)} of {amount(total)} ({share:.0%})"
    if elapsed > 0:
        line += f", {items / elapsed:,.0f} {unit}/s"
    if 0 < share < 1:
        line += f", {duration(elapsed * (1 - share) / share)} left"
    return line


class Progress:
    """A progress line for ``action`` (e.g. "stamp"), counted in bytes of ``total`` and in ``unit``."""

    def __init__(
        self,
        write: Callable[[str], None],
        action: str,
        unit: str = "records",
        every: float = REPORT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.counts = SharedCounts()
        self._write, self.action, self.unit, self._every, self._clock = write, action, unit, every, clock
        self._total = 0
        self._started = 0.0
        self._counted_for: float | None = None  # seconds the counted part took, once a step follows it
        self._step: tuple[str, float] | None = None  # the work after it, and when that began
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def when(cls, asked: bool | None, on_terminal: bool, write: Callable[[str], None], action: str) -> Progress | None:
        """A progress line if asked for (``--progress``), or by default when standard error is a terminal."""
        return cls(write, action) if (on_terminal if asked is None else asked) else None

    def start(self, total: int) -> None:
        """Count from now towards ``total`` bytes; the line is written from now on."""
        self._total, self._started = total, self._clock()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="progress", daemon=True)
            self._thread.start()

    def add(self, size: int, items: int = 0) -> None:
        self.counts.add(size, items)

    def step(self, what: str) -> None:
        """Name the work that follows the counted part (building an index): the counts and their rate stay as
        they ended, and the line says what runs now and for how long, instead of a rate falling for nothing."""
        now = self._clock()
        if self._counted_for is None:
            self._counted_for = now - self._started
        self._step = (what, now)

    def line(self) -> str:
        done, items = self.counts.read()
        now = self._clock()
        counted_for = now - self._started if self._counted_for is None else self._counted_for
        text = report(self.action, self.unit, done, self._total, items, counted_for)
        step = self._step
        return text if step is None else f"{text}; {step[0]}: {duration(now - step[1])}"

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            self._write(CLEAR_LINE + self.line())

    def close(self) -> None:
        """Stop, and leave the last count on its line (what the command prints next starts on the next one)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._write(CLEAR_LINE + self.line() + "\n")
