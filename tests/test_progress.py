"""`svc stamp` and `svc validate` show progress on standard error when it is a terminal, and only then (issue 38).

The commands run as subprocesses: in a pseudo-terminal (``pty.fork``), where the line is drawn and its
last state is left; with pipes, where standard error holds nothing of it; and with ``--progress`` /
``--no-progress``, which choose either way.
"""

from __future__ import annotations

import os
import pty
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import SAMPLE_DIR, SVC, run_svc

SAMPLE_RECORDS = "1,516"  # the records of the sample data
LINE = r"\r\x1b\[K{action}: {records} records, (\d+(?:\.\d)? [kMG]?B) of \1 \(100%\), [\d,]+ records/s{after}\r?\n"
# What the stamp does once every record is read and counted: the line says so, and for how long.
LAST_STEP = r"; building the search index: \d+ s"


def in_terminal(*args: str) -> tuple[int, str]:
    """Run `svc` with a pseudo-terminal as its standard input, output and error: exit status and all it wrote."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: svc, its streams on the terminal
        os.execv(SVC, [SVC, *args])
    output = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), output.decode()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    copy = tmp_path / "data"
    shutil.copytree(SAMPLE_DIR, copy)
    return copy


def test_the_stamp_shows_its_progress_in_a_terminal(data: Path):
    status, output = in_terminal("stamp", str(data))
    assert status == 0, output
    last = re.search(LINE.format(action="svc stamp", records=SAMPLE_RECORDS, after=LAST_STEP), output)
    assert last is not None, output
    assert output[last.end() :].startswith("added ")  # the summary follows on a line of its own
    assert "\x1b[31" not in output[: last.end()]  # not coloured like an error


def test_the_stamp_shows_nothing_more_without_a_terminal(data: Path):
    stamped = run_svc("stamp", str(data))
    assert stamped.returncode == 0 and stamped.stderr == ""
    assert stamped.stdout.startswith("added ")


@pytest.mark.slow
def test_progress_and_no_progress_choose_either_way(data: Path):
    asked = run_svc("stamp", str(data), "--dry-run", "--progress")
    # Read as text, the line's carriage returns are newlines; the last state of the line ends standard error.
    assert re.search(rf"\x1b\[Ksvc stamp: {SAMPLE_RECORDS} records, .* \(100%\), [\d,]+ records/s\n$", asked.stderr)
    status, output = in_terminal("stamp", str(data), "--no-progress")
    assert status == 0 and "svc stamp:" not in output and "\x1b[K" not in output


@pytest.mark.slow
def test_validate_shows_its_progress_in_a_terminal_and_nothing_more_without_one(data: Path):
    status, output = in_terminal("validate", str(data))
    assert status == 0, output
    assert re.search(LINE.format(action="svc validate", records=SAMPLE_RECORDS, after=""), output), output
    checked = run_svc("validate", str(data))
    assert checked.returncode == 0 and "svc validate:" not in checked.stderr and "\r" not in checked.stderr
    status, output = in_terminal("validate", str(data), "--no-progress")
    assert status == 0 and "svc validate:" not in output
