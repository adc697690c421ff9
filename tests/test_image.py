"""The container image, run the way the image runs it (no Docker engine here).

The Dockerfile's final stage is read for its environment, user, entry point
and health check; the project is installed like its build stage does (a
fresh virtual environment on Debian 12's Python 3.11, the distroless image's
interpreter, and an in-place install of a copy of the project filtered by
.dockerignore), then `svc serve` runs as uid 65534 with only the environment's
bin directory on PATH (no shell) against a read-only data directory.
"""

from __future__ import annotations

import fnmatch
import http.client
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT, free_port
from tests.ops_support import final_stage, image_environment, instruction, mapped_files, worker_pids, write_data_set

DEBIAN_PYTHON = Path("/usr/bin/python3.11")  # the interpreter of gcr.io/distroless/python3-debian12
NOBODY = 65534


def dockerignored(root: Path) -> list[str]:
    patterns = [line.strip() for line in (root / ".dockerignore").read_text().splitlines()]
    return [p.removeprefix("/").removeprefix("**/") for p in patterns if p and not p.startswith("#")]


def copy_build_context(source: Path, target: Path) -> None:
    patterns = dockerignored(source)

    def ignore(directory: str, names: list[str]) -> set[str]:
        relative = Path(directory).relative_to(source)
        return {
            name
            for name in names
            for pattern in patterns
            if fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch((relative / name).as_posix(), pattern)
        }

    shutil.copytree(source, target, ignore=ignore)


def runtime_distributions() -> list[metadata.Distribution]:
    """requirements.txt and what it pulls in, as installed here: what `pip install -r` gives the image."""
    pending = [requirement_name(line) for line in (PROJECT_ROOT / "requirements.txt").read_text().splitlines()]
    found: dict[str, metadata.Distribution] = {}
    while pending:
        name = pending.pop()
        if not name:
            continue
        try:
            distribution = metadata.distribution(name)
        except metadata.PackageNotFoundError:  # a dependency for another Python version or platform
            continue
        key = re.sub(r"[-_.]+", "-", distribution.metadata["Name"]).lower()
        if key not in found:
            found[key] = distribution
            pending += [requirement_name(r) for r in distribution.requires or () if "extra ==" not in r]
    return list(found.values())


def requirement_name(line: str) -> str:
    return re.split(r"[\s;<>=!~\[(]", line.split("#", 1)[0].strip(), maxsplit=1)[0]


def link_dependencies(venv: Path) -> None:
    """Hard-link the runtime distributions' files into the new environment (dev-only packages stay out)."""
    target = venv / "lib" / "python3.11" / "site-packages"
    for distribution in runtime_distributions():
        for file in distribution.files or ():
            if ".." in file.parts:  # console scripts outside site-packages: svc needs none of them
                continue
            destination = target / file
            if destination.exists():  # a RECORD may list a file twice (numpy's does)
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(file.locate(), destination)
            except OSError:
                shutil.copy2(file.locate(), destination)


@pytest.fixture(scope="module")
def image_root() -> Iterator[Path]:
    """A world-readable stand-in for the image's filesystem: /opt/svc, /app, /data."""
    if not DEBIAN_PYTHON.exists():
        pytest.fail(f"{DEBIAN_PYTHON} is needed (apt-get install -y python3.11 python3.11-venv)")
    root = Path(tempfile.mkdtemp(prefix="svc-image-"))
    root.chmod(0o755)
    app, venv = root / "app", root / "opt" / "svc"
    copy_build_context(PROJECT_ROOT, app)
    subprocess.run([DEBIAN_PYTHON, "-m", "venv", "--without-pip", venv], check=True)
    link_dependencies(venv)
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet", "--no-deps"]
    subprocess.run([*pip, "-e", str(app)], check=True, capture_output=True)
    subprocess.run(
        [venv / "bin" / "python", app / "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        check=True,
        env={"PATH": str(venv / "bin"), **image_environment(final_stage()) | {"PATH": str(venv / "bin")}},
    )
    data = write_data_set(root / "data", ["0001", "0002"])
    for path in [data, *data.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    yield root
    shutil.rmtree(root)


def as_nobody(command: list, env: dict[str, str], **kwargs) -> subprocess.Popen:
    return subprocess.Popen(command, env=env, user=NOBODY, group=NOBODY, extra_groups=[], cwd="/", **kwargs)


def test_dockerfile_runs_svc_serve_as_nobody_in_prod_with_a_healthcheck():
    stage = final_stage()
    env = image_environment(stage)
    assert stage[0].startswith("FROM gcr.io/distroless/python3-debian12")
    assert instruction(stage, "USER") == f"{NOBODY}:{NOBODY}"
    assert env["FRAMEWORK_ENV"] == "PROD" and env["FRAMEWORK_SITE_ADDR"].endswith(":8080")
    assert env["SVC_DATA_DIR"] == "/data"
    assert json.loads(instruction(stage, "ENTRYPOINT")) + json.loads(instruction(stage, "CMD")) == [
        "/opt/svc/bin/svc",
        "serve",
    ]
    healthcheck = instruction(stage, "HEALTHCHECK")
    assert json.loads(healthcheck[healthcheck.index("CMD ") + 4 :]) == ["/opt/svc/bin/svc", "healthcheck"]


def test_installed_service_runs_as_nobody_without_a_shell_on_read_only_data(image_root: Path):
    stage = final_stage()
    venv_bin = image_root / "opt" / "svc" / "bin"
    port = free_port()
    env = image_environment(stage) | {
        "PATH": str(venv_bin),  # the image's PATH, moved: no shell, no coreutils
        "SVC_DATA_DIR": str(image_root / "data"),
        "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{port}",
        "HOME": "/nonexistent",  # nobody's home in the image: not writable
    }
    assert not any((venv_bin / shell).exists() for shell in ("sh", "bash", "dash"))
    assert not stat.S_IMODE((image_root / "data" / "projects").stat().st_mode) & 0o222

    entrypoint = json.loads(instruction(stage, "ENTRYPOINT"))
    command = [str(venv_bin / Path(entrypoint[0]).name), *entrypoint[1:], *json.loads(instruction(stage, "CMD"))]
    server = as_nobody(command, env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        healthcheck = [str(venv_bin / "svc"), "healthcheck", "--url", f"http://127.0.0.1:{port}/healthz"]
        deadline = time.monotonic() + 60
        while True:
            probe = as_nobody(healthcheck, env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            out, err = probe.communicate(timeout=30)
            if probe.returncode == 0 or time.monotonic() > deadline or server.poll() is not None:
                break
            time.sleep(0.2)
        assert probe.returncode == 0, err
        assert out.strip() == f"healthy: http://127.0.0.1:{port}/healthz"

        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("HEAD", "/")
        assert connection.getresponse().status == 308
        connection.close()
        workers = worker_pids(server.pid)
        assert workers and all(os.stat(f"/proc/{pid}").st_uid == NOBODY for pid in [server.pid, *workers])
        # No telemetry or profiler configured: their native libraries are not even loaded.
        for pid in workers:
            assert not [path for path in mapped_files(pid) if "pyroscope" in path or "cygrpc" in path]
    finally:
        server.terminate()
        stdout, stderr = server.communicate(timeout=30)

    assert server.returncode == 0, stdout + stderr
    assert stderr == ""  # PROD: JSON lines on standard output only
    lines = [json.loads(line) for line in stdout.splitlines()]
    assert {"level", "logger", "message", "time"} <= lines[0].keys()
    assert any(line["logger"] == "gunicorn.error" and line["message"].startswith("Listening at") for line in lines)
    assert not [line for line in lines if "control socket" in line["message"].lower()]  # no ~/.gunicorn needed
    (access,) = [line for line in lines if line["logger"] == "svc.access"]
    assert access["method"] == "HEAD" and access["path"] == "/" and access["status"] == 308
    assert access["client"] == "127.0.0.0"
