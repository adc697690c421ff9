"""The suite's run order (tests/run_order.py): the long tests first, and the file that says which they are."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from tests.run_order import DURATIONS_FILE, DurationRecorder, known_durations, longest_first


@dataclass
class Item:
    nodeid: str
    marks: tuple[str, ...] = ()

    def get_closest_marker(self, name: str) -> object | None:
        return name if name in self.marks else None


@dataclass
class Report:
    nodeid: str
    duration: float
    when: str = field(default="call")


def test_known_long_tests_go_first_longest_first_then_slow_ones_then_the_rest_in_their_order():
    items = [Item("a"), Item("b", ("slow",)), Item("c"), Item("d"), Item("e", ("slow",)), Item("f", ("browser",))]
    longest_first(items, {"c": 12.0, "e": 80.0, "gone": 100.0})  # type: ignore[arg-type]
    assert [item.nodeid for item in items] == ["e", "c", "b", "a", "d", "f"]


def test_the_recorder_keeps_each_test_of_five_seconds_or_more_with_all_its_phases(tmp_path: Path):
    path = tmp_path / "durations.json"
    recorder = DurationRecorder(path)
    for report in (Report("t::long", 3.0, "setup"), Report("t::long", 2.5), Report("t::short", 4.9)):
        recorder.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    recorder.pytest_sessionfinish()
    assert json.loads(path.read_text()) == {"t::long": 5.5}
    assert known_durations(path) == {"t::long": 5.5}


def test_a_missing_or_broken_file_orders_by_the_marks_alone(tmp_path: Path):
    assert known_durations(tmp_path / "missing.json") == {}
    (tmp_path / "broken.json").write_text("{")
    assert known_durations(tmp_path / "broken.json") == {}


def test_the_committed_file_names_only_tests_of_five_seconds_or_more():
    durations = known_durations(DURATIONS_FILE)
    assert durations and min(durations.values()) >= 5.0
