"""The container image itself: built with scripts/build-image --local-bases, run with podman.

Every container runs with a read-only root and nothing writable but /dev/shm (no
tmpfs on /tmp either, as on Kubernetes), the data mounted read-only at /data.
Skipped only where no container engine can run (tests/image_support.py says why).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path
from urllib.parse import quote

import pytest
import yaml

from tests.conftest import CORPUS_DIR, PROJECT_ROOT, RUN, free_port
from tests.image_support import BUILD_IMAGE, Container, Image, image_config, pss_mib, run_container
from tests.oai_support import NS, OAI_PATH, parse_valid
from tests.ops_support import mapped_files, write_data_set

NOBODY = "65534"


@pytest.fixture(scope="module")
def corpus_container(svc_image: Image) -> Iterator[Container]:
    container = run_container(svc_image, RUN.name("corpus"), free_port(), "--volume", f"{CORPUS_DIR}:/data:ro")
    try:
        container.wait_healthy()
        yield container
    finally:
        container.remove()


def readable_by_all(root: Path) -> Path:
    root.chmod(0o755)
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


def test_image_runs_as_nobody_with_no_shell_nor_package_manager(
    svc_image: Image, corpus_container: Container, capsys: pytest.CaptureFixture[str]
):
    config = image_config(svc_image)
    assert config["User"] == f"{NOBODY}:{NOBODY}"
    assert "FRAMEWORK_ENV=PROD" in config["Env"]

    pids = corpus_container.pids()
    assert len(pids) >= 3  # the gunicorn master and its workers
    for pid in pids:
        status = dict(line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
        assert status["Uid"].split() == [NOBODY] * 4 and status["Gid"].split() == [NOBODY] * 4
    # No telemetry or profiler configured: their native libraries are not even loaded.
    assert not [path for pid in pids for path in mapped_files(pid) if "pyroscope" in path or "cygrpc" in path]
    with capsys.disabled():  # the figures for the run's log; bench/image.py measures them properly
        print(
            f"\nimage {svc_image.ref}: {svc_image.size_bytes() / 1e6:.0f} MB, built in {svc_image.build_seconds:.0f} s;"
        )
        print(f"PSS of its {len(pids)} processes serving the corpus: {pss_mib(pids):.0f} MiB")

    programs = ["/bin/sh", "/bin/bash", "/usr/bin/dpkg", "/usr/bin/apt-get", "/opt/svc/bin/pip"]
    present = svc_image.podman(
        "run", "--rm", "--read-only", "--entrypoint", "/opt/svc/bin/python", svc_image.ref,
        "-c", f"import os; print([p for p in {programs!r} if os.path.lexists(p)])",
    )  # fmt: skip
    assert present.stdout.strip() == "[]"
    no_shell = svc_image.podman("run", "--rm", "--entrypoint", "/bin/sh", svc_image.ref, "-c", "true", check=False)
    assert no_shell.returncode == 127  # podman: the command was not found in the image


def test_read_only_root_serves_the_corpus(corpus_container: Container):
    write = corpus_container.image.podman(
        "exec", corpus_container.name, "/opt/svc/bin/python", "-c", "open('/app/probe', 'w')", check=False
    )
    assert "Read-only file system" in write.stderr

    status, _, body = corpus_container.get("/healthz")
    assert (status, body) == (200, b"")

    project = json.loads(next((CORPUS_DIR / "projects").iterdir()).read_text())
    shortcode = project["shortcode"]
    status, headers, body = corpus_container.get(f"/projects/{quote(shortcode)}")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert shortcode in body.decode()

    status, headers, body = corpus_container.get(f"/api/v2/projects/{quote(shortcode)}")
    assert status == 200 and headers["Content-Type"] == "application/json"
    assert json.loads(body)["shortcode"] == shortcode

    status, _, body = corpus_container.get(f"{OAI_PATH}?verb=ListRecords&metadataPrefix=oai_dc")
    assert status == 200
    records = parse_valid(body).findall(".//o:record", NS)
    assert records and all(record.find("o:metadata/oai_dc:dc", NS) is not None for record in records)


def test_the_labels_name_svcs_version_the_commit_and_the_repository(svc_image: Image):
    labels = image_config(svc_image)["Labels"]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True)
    assert labels["org.opencontainers.image.version"] == version("svc")
    assert labels["org.opencontainers.image.revision"] == head.stdout.strip()
    assert labels["org.opencontainers.image.source"]  # SVC_IMAGE_SOURCE, else the git remote origin, else "unknown"


def test_image_healthcheck_passes(corpus_container: Container):
    assert corpus_container.inspect("{{json .Config.Healthcheck.Test}}") == '["CMD","/opt/svc/bin/svc","healthcheck"]'
    check = corpus_container.image.podman("healthcheck", "run", corpus_container.name, check=False)
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_compose_service_serves_and_passes_its_probe_in_the_image(svc_image: Image, tmp_path: Path):
    """deploy/compose.yaml's svc service as podman runs it: its data mount, its environment, its probe.

    A small data set takes the sample data's place, and SVC_CACHE_URL is left out
    (no Redis here: the OAI limits fail open); the root is read-only, as compose says.
    """
    service = yaml.safe_load((PROJECT_ROOT / "deploy" / "compose.yaml").read_text())["services"]["svc"]
    assert service["read_only"] is True  # as every container of this file runs
    (volume,) = service["volumes"]
    _, target, mode = volume.rsplit(":", 2)
    assert mode == "ro"
    data = readable_by_all(write_data_set(tmp_path / "data", ["0001"]))
    environment = [f"--env={name}={value}" for name, value in service["environment"].items() if name != "SVC_CACHE_URL"]
    container = run_container(
        svc_image, RUN.name("compose"), free_port(), "--volume", f"{data}:{target}:ro", *environment
    )
    try:
        container.wait_healthy()  # the image finds its data where compose mounts it
        status, _, body = container.get("/api/v2/projects/0001")
        assert status == 200 and json.loads(body)["shortcode"] == "0001"
        kind, *probe = service["healthcheck"]["test"]
        assert kind == "CMD"  # run as given, no shell (the image has none)
        check = svc_image.podman("exec", container.name, *probe, check=False)
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        container.remove()


def test_logs_are_json_lines_on_standard_output(corpus_container: Container):
    corpus_container.get("/about")
    logs = corpus_container.image.podman("logs", corpus_container.name)
    assert logs.stderr == ""
    lines = [json.loads(line) for line in logs.stdout.splitlines()]
    assert all({"level", "logger", "message", "time"} <= line.keys() for line in lines)
    assert [line for line in lines if line["logger"] == "svc.access" and line["path"] == "/about"]


def test_sighup_reloads_the_data_and_sigterm_stops_gracefully(svc_image: Image, tmp_path: Path):
    releases = tmp_path / "releases"
    write_data_set(releases / "r1", ["0001"])
    write_data_set(releases / "r2", ["0001", "0002"])
    readable_by_all(releases)  # the bind mount's own modes count for uid 65534, not its parents'
    (releases / "current").symlink_to("r1")
    container = run_container(
        svc_image, RUN.name("reload"), free_port(),
        "--volume", f"{releases}:/data:ro", "--env", "SVC_DATA_DIR=/data/current",
    )  # fmt: skip
    try:
        container.wait_healthy()
        status, headers, _ = container.get("/api/v2/projects/0002")
        assert status == 404
        before = headers["X-Data-Version"]

        (releases / "next").symlink_to("r2")
        os.replace(releases / "next", releases / "current")
        svc_image.podman("kill", "--signal", "HUP", container.name)
        for _ in range(600):  # until the new workers answer (each try is a real request)
            status, headers, _ = container.get("/api/v2/projects/0002")
            if status == 200:
                break
            time.sleep(0.1)
        assert status == 200 and headers["X-Data-Version"] != before

        # SIGTERM, and SIGKILL only after 5 s: exit code 0 means svc stopped by itself in time.
        svc_image.podman("stop", "--time", "5", container.name)
        assert container.inspect("{{.State.ExitCode}}") == "0", container.logs()
    finally:
        container.remove()


def test_without_data_it_stops_at_once_naming_the_directory(svc_image: Image):
    name = RUN.name("no-data")
    svc_image.podman("rm", "--force", name, check=False)
    svc_image.podman("run", "--detach", "--name", name, "--read-only", svc_image.ref)
    try:
        exit_code = svc_image.podman("wait", name).stdout.strip()
        logs = svc_image.podman("logs", name)
        assert exit_code != "0"
        assert (logs.stdout + logs.stderr).splitlines() == [
            "CommandError: SVC_DATA_DIR: data directory '/data' does not exist or is not a directory"
        ]
    finally:
        svc_image.podman("rm", "--force", name, check=False)


def test_a_rebuild_reuses_the_bases_and_every_layer(svc_image: Image):
    image_id = svc_image.podman("image", "inspect", "--format", "{{.Id}}", svc_image.ref).stdout
    env = {**svc_image.env}
    env.pop("CONTAINERS_CONF")
    rebuild = subprocess.run(
        [BUILD_IMAGE, "--local-bases", "--tag", svc_image.ref], env=env, capture_output=True, text=True, timeout=900
    )
    assert rebuild.returncode == 0, rebuild.stderr[-4000:]
    assert "mmdebstrap" not in rebuild.stderr  # no base made again
    assert rebuild.stdout.splitlines()[-1] == svc_image.ref
    assert svc_image.podman("image", "inspect", "--format", "{{.Id}}", svc_image.ref).stdout == image_id
