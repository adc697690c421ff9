"""scripts/test on machines that lack something: it names what is missing and stops before running anything.

The commands it looks for are found through a PATH built here, so a machine
with everything installed still shows what another machine without it gets.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.conftest import PROJECT_ROOT

# What the script itself runs before it looks for packages.
BASICS = ["bash", "dirname", "id", "dpkg", "dpkg-query"]
PACKAGE_COMMANDS = ["redis-server", "wrk", "chromium", "nginx", "podman", "runc", "mmdebstrap"]


def run_test_command(tmp_path: Path, commands: list[str], *args: str) -> subprocess.CompletedProcess:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for command in commands:
        found = shutil.which(command)
        if found:
            (bin_dir / command).symlink_to(found)
    env = {key: value for key, value in os.environ.items() if key != "PYTHON"} | {"PATH": str(bin_dir)}
    return subprocess.run(
        [shutil.which("bash") or "/bin/bash", str(PROJECT_ROOT / "scripts" / "test"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=tmp_path,
    )


def test_no_apt_with_a_missing_package_names_it_and_stops(tmp_path: Path):
    present = [command for command in PACKAGE_COMMANDS if command != "wrk"]
    result = run_test_command(tmp_path, [*BASICS, *present, "python3"], "--no-apt", "-k", "nothing")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "scripts/test: missing system packages: wrk; apt is not used (--no-apt): install them, then run again"
    ]


def test_without_a_python_of_3_11_or_later_it_says_so(tmp_path: Path):
    result = run_test_command(tmp_path, [*BASICS, *PACKAGE_COMMANDS], "--no-apt")
    assert result.returncode == 1
    assert result.stderr.startswith("scripts/test: no Python >= 3.11 found")
    assert len(result.stderr.splitlines()) == 1
