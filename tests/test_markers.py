"""The resource markers stay honest (tests/conftest.py): `scripts/test --quick` can only leave out what is marked.

A few tests of their own, run by a pytest of their own with the suite's
conftest as a plugin, stand for tests that start a resource: a program named
redis-server (a script that exits at once) and a fixture named like one that
brings a resource.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT

TESTS = """
import subprocess

import pytest

REDIS = {redis!r}


def test_starts_redis_unmarked():
    subprocess.run([REDIS], check=True)


@pytest.mark.redis
def test_starts_redis_marked():
    subprocess.run([REDIS], check=True)


@pytest.fixture
def svc_image():
    return "an image"


def test_uses_the_image_fixture(svc_image):
    assert svc_image


def test_needs_nothing():
    pass
"""


def run_pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    program = tmp_path / "bin" / "redis-server"
    program.parent.mkdir(exist_ok=True)
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    (tmp_path / "test_fake.py").write_text(TESTS.format(redis=str(program)))
    command = [sys.executable, "-m", "pytest", "-c", str(PROJECT_ROOT / "pyproject.toml"), "--rootdir", str(tmp_path)]
    command += ["-p", "tests.conftest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q", str(tmp_path), *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=120)


@pytest.mark.slow
def test_a_test_that_starts_a_resource_without_its_marker_fails_naming_the_marker(tmp_path: Path):
    result = run_pytest(tmp_path, "-k", "starts_redis")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 failed, 1 passed" in result.stdout
    assert "FAILED " in result.stdout and "test_fake.py::test_starts_redis_unmarked" in result.stdout
    assert "Failed: this test starts redis but is not marked @pytest.mark.redis" in result.stdout


@pytest.mark.slow
def test_a_test_using_a_resource_fixture_is_marked_and_quick_leaves_it_out(tmp_path: Path):
    quick = run_pytest(tmp_path, "-m", "not (browser or container or nginx or redis or slow)", "--collect-only")
    assert quick.returncode == 0, quick.stdout + quick.stderr
    assert "2/4 tests collected (2 deselected)" in quick.stdout
    container = run_pytest(tmp_path, "-m", "container", "--collect-only")
    assert "1/4 tests collected (3 deselected)" in container.stdout, container.stdout
