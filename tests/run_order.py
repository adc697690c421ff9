"""The order the suite runs in: its longest tests first, so that no worker starts one when the others are done.

pytest-xdist hands tests to its workers in collection order; a test that takes minutes (a rollout waiting for
its activation time, a harvest across two releases) handed out last keeps the run going after every other
worker has finished. `tests/durations.json` holds how long the longest tests took in a whole run; they go
first, longest first, then the other tests marked slow, then the rest, each group in its collection order.
`scripts/test --store-durations` writes the file again from the run it makes (docs/testing.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DURATIONS_FILE = Path(__file__).with_name("durations.json")
LONG_TEST_SECONDS = 5.0  # the tests the file keeps: the ones whose place in the order matters


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--store-durations",
        action="store_true",
        help=f"write the tests of this run that took {LONG_TEST_SECONDS:g} s or more to tests/{DURATIONS_FILE.name}",
    )


def known_durations(path: Path = DURATIONS_FILE) -> dict[str, float]:
    """The seconds each long test took in the run that wrote the file (none when it is missing or unreadable)."""
    try:
        durations = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {str(test): float(seconds) for test, seconds in durations.items()}


@pytest.hookimpl(trylast=True)  # after the marks are given and pytest has grouped the tests by their fixtures
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    longest_first(items, known_durations())


def longest_first(items: list[pytest.Item], durations: dict[str, float]) -> None:
    """The known long tests first, longest first; then those marked slow; each group in collection order."""
    items.sort(key=lambda item: (-durations.get(item.nodeid, 0.0), item.get_closest_marker("slow") is None))


class DurationRecorder:
    """Adds up each test's setup, call and teardown (in the controller: xdist's workers report to it)."""

    def __init__(self, path: Path = DURATIONS_FILE) -> None:
        self.path = path
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self) -> None:
        long = {test: round(seconds, 1) for test, seconds in self.seconds.items() if seconds >= LONG_TEST_SECONDS}
        self.path.write_text(json.dumps(dict(sorted(long.items())), indent=1) + "\n")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("store_durations") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(DurationRecorder(), "svc-duration-recorder")
