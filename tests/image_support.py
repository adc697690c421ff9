"""The container image for the tests: built once by scripts/build-image --local-bases, run with podman."""

from __future__ import annotations

import dataclasses
import fcntl
import http.client
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT

BUILD_IMAGE = PROJECT_ROOT / "scripts" / "build-image"
# Where scripts/build-image keeps its containers.conf (the bases are kept by podman, tagged by recipe).
IMAGE_CACHE = Path(
    os.environ.get("SVC_IMAGE_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "svc-image"
)


@dataclasses.dataclass(frozen=True)
class Image:
    """A built image and the podman settings (containers.conf) it was built with."""

    ref: str
    env: dict[str, str]
    build_seconds: float

    def podman(self, *args: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["podman", *args], env=self.env, capture_output=True, text=True, check=check, timeout=timeout
        )

    def size_bytes(self) -> int:
        return int(self.podman("image", "inspect", "--format", "{{.Size}}", self.ref).stdout)


def podman_env(cache: Path) -> dict[str, str]:
    """The environment of podman as scripts/build-image runs it (its containers.conf)."""
    return {**os.environ, "SVC_IMAGE_CACHE": str(cache), "CONTAINERS_CONF": str(cache / "containers.conf")}


def build_image(cache: Path, ref: str) -> Image:
    """Build the image tagged ``ref``, or skip when no container engine can run on this machine (and say why)."""
    if shutil.which("podman") is None:
        pytest.skip("no container engine: podman is not installed (apt-get install -y podman runc mmdebstrap)")
    env = podman_env(cache)
    env.pop("CONTAINERS_CONF")  # scripts/build-image writes the one that works here
    started = time.monotonic()
    build = subprocess.run(
        [BUILD_IMAGE, "--local-bases", "--tag", ref], env=env, capture_output=True, text=True, timeout=1800
    )
    if build.returncode != 0 and "cannot run here" in build.stderr:
        pytest.skip(f"no container engine can run here: {build.stderr.strip()}")
    assert build.returncode == 0, build.stderr[-4000:]
    return Image(build.stdout.splitlines()[-1], podman_env(cache), time.monotonic() - started)


def image_of_the_run(cache: Path, ref: str, shared: Path) -> Image:
    """The image of this test run, built by the first worker that asks; the others wait for it (a file lock).

    ``shared`` is the run's own directory; the build's outcome (the image, or
    why none can be built here) is kept there for the other workers.
    """
    outcome = shared / "image.json"
    with (shared / "image.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if this process dies
        if not outcome.exists():
            try:
                built = build_image(cache, ref)
            except pytest.skip.Exception as skipped:
                outcome.write_text(json.dumps({"skip": skipped.msg}))
                raise
            outcome.write_text(json.dumps({"ref": built.ref, "build_seconds": built.build_seconds}))
            return built
        known = json.loads(outcome.read_text())
    if "skip" in known:
        pytest.skip(known["skip"])
    return Image(known["ref"], podman_env(cache), known["build_seconds"])


def remove_run_images_and_containers(cache: Path, shared: Path, container_prefix: str) -> None:
    """Untag the run's image (its layers stay in the cache for the next build) and remove the run's containers."""
    outcome = shared / "image.json"
    if shutil.which("podman") is None or not outcome.exists():
        return
    env = podman_env(cache)

    def podman(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["podman", *args], env=env, capture_output=True, text=True, timeout=120)

    names = podman("ps", "--all", "--format", "{{.Names}}", "--filter", f"name=^{container_prefix}").stdout.split()
    if names:
        podman("rm", "--force", "--time", "0", *names)
    ref = json.loads(outcome.read_text()).get("ref")
    if ref:
        podman("untag", ref)


@dataclasses.dataclass
class Container:
    """A detached container of the image, its port 8080 published on 127.0.0.1:port."""

    image: Image
    name: str
    port: int

    def get(self, path: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, path)
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def inspect(self, template: str) -> str:
        return self.image.podman("inspect", "--format", template, self.name).stdout.strip()

    def running(self) -> bool:
        return self.inspect("{{.State.Running}}") == "true"

    def wait_healthy(self, deadline: float = 120) -> None:
        """Until /healthz answers 200 (the catalogue is loaded before the port opens)."""
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            if not self.running():
                raise AssertionError(f"container stopped:\n{self.logs()}")
            try:
                if self.get("/healthz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.3)
        raise AssertionError(f"no answer on /healthz within {deadline} s:\n{self.logs()}")

    def logs(self) -> str:
        result = self.image.podman("logs", self.name, check=False)
        return result.stdout + result.stderr

    def pids(self) -> list[int]:
        """The container's processes on this host: its first process and all descendants."""
        pids = [int(self.inspect("{{.State.Pid}}"))]
        for pid in pids:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            pids += [int(child) for child in children]
        return pids

    def remove(self) -> None:
        self.image.podman("rm", "--force", "--time", "0", self.name, check=False)


def run_container(image: Image, name: str, port: int, *options: str) -> Container:
    """`podman run -d` with a read-only root and nothing writable but /dev/shm, as on Kubernetes."""
    image.podman("rm", "--force", "--time", "0", name, check=False)
    image.podman(
        "run", "--detach", "--name", name, "--read-only", "--read-only-tmpfs=false",
        "--publish", f"127.0.0.1:{port}:8080", *options, image.ref,
    )  # fmt: skip
    return Container(image, name, port)


def pss_mib(pids: list[int]) -> float:
    """The proportional set size of these processes, in MiB: what they cost in memory together."""
    total_kib = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                total_kib += int(line.split()[1])
    return total_kib / 1024


def image_config(image: Image) -> dict:
    return json.loads(image.podman("image", "inspect", image.ref).stdout)[0]["Config"]
