"""catalog.domain.progress: the progress line's words and numbers, and counts shared with forked processes."""

from __future__ import annotations

import multiprocessing

import pytest

from catalog.domain import snapshot
from catalog.domain.progress import CLEAR_LINE, Progress, SharedCounts, amount, duration, report


@pytest.mark.parametrize(
    ("size", "shown"), [(0, "0 B"), (999, "999 B"), (1000, "1 kB"), (812_400, "812 kB"), (3_420_000_000, "3.4 GB")]
)
def test_amounts_are_written_as_people_read_them(size, shown):
    assert amount(size) == shown


@pytest.mark.parametrize(("seconds", "shown"), [(0.4, "0 s"), (42, "42 s"), (185, "3 min 05 s"), (7620, "2 h 07 min")])
def test_durations(seconds, shown):
    assert duration(seconds) == shown


def test_the_line_says_what_is_done_of_what_the_rate_and_the_time_left():
    assert report("svc stamp", "records", 1_100_000_000, 3_400_000_000, 1_200_000, 10.0) == (
        "svc stamp: 1,200,000 records, 1.1 GB of 3.4 GB (32%), 120,000 records/s, 21 s left"
    )
    assert (
        report("svc stamp", "records", 3_400, 3_400, 12, 2.0)
        == "svc stamp: 12 records, 3 kB of 3 kB (100%), 6 records/s"
    )
    assert report("svc validate", "records", 0, 0, 0, 0.0) == "svc validate: 0 records, 0 B of 0 B (100%)"


def test_forked_processes_add_to_the_counts():
    counts = SharedCounts()
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=lambda: [counts.add(10, 1) for _ in range(1000)]) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert counts.read() == (20_000, 2_000)


def test_closing_leaves_the_last_count_on_its_line():
    written: list[str] = []
    clock = iter([0.0, 4.0])
    progress = Progress(written.append, "svc validate", every=3600, clock=lambda: next(clock))
    progress.start(200)
    progress.add(100, 50)
    progress.close()
    assert written[-1] == CLEAR_LINE + "svc validate: 50 records, 100 B of 200 B (50%), 12 records/s, 4 s left\n"
    assert Progress.when(None, False, written.append, "x") is None and Progress.when(True, False, print, "x")
    assert Progress.when(None, True, print, "x") and Progress.when(False, True, print, "x") is None


def test_a_reader_adds_its_file_in_proportion_to_its_records(monkeypatch):
    counts = SharedCounts()
    monkeypatch.setattr(snapshot, "_process_counts", counts)
    records = 3 * snapshot.COUNTED_EVERY + 5
    count = snapshot._counting(1_000_003, records)
    seen = []
    for position in range(records):
        count(position)
        seen.append(counts.read())
    assert seen[snapshot.COUNTED_EVERY - 2] == (0, 0) and seen[snapshot.COUNTED_EVERY - 1][1] == snapshot.COUNTED_EVERY
    assert counts.read() == (1_000_003, records)


def test_a_step_after_the_counted_part_keeps_its_rate_and_says_what_runs_and_for_how_long():
    written: list[str] = []
    clock = iter([0.0, 10.0, 12.0, 15.0, 75.0])
    progress = Progress(written.append, "svc stamp", every=3600, clock=lambda: next(clock))
    progress.start(300)
    progress.add(300, 1_000)
    progress.step("writing the snapshot")  # at 10 s: 100 records/s, whatever comes after
    progress.step("building the search index")  # at 12 s
    assert progress.line() == (
        "svc stamp: 1,000 records, 300 B of 300 B (100%), 100 records/s; building the search index: 3 s"
    )
    progress.close()
    assert written[-1] == CLEAR_LINE + (
        "svc stamp: 1,000 records, 300 B of 300 B (100%), 100 records/s; building the search index: 1 min 03 s\n"
    )
