"""The container image's costs: build time, size, memory on a data set, stop time.

Builds with scripts/build-image (its own containers.conf, see docs/operations.md),
runs the image the way tests/test_image.py does (read-only root, data mounted
read-only), warms it with a project page and an OAI-PMH ListRecords page, and
reports the RSS/PSS of the master and each worker (from the host's /proc: podman
runs rootful here) and the cgroup's memory use; then times `podman stop`.

    .venv/bin/python bench/image.py --data-dir ../shared/corpus/dsp
    .venv/bin/python bench/image.py --data-dir /tmp/corpus-1m --workers 4 --json /tmp/image-1m.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from bench.run import fetch, free_port, memory  # noqa: E402

CACHE = Path(
    os.environ.get("SVC_IMAGE_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "svc-image"
)


def podman(*args: str, check: bool = True) -> str:
    env = {**os.environ, "CONTAINERS_CONF": os.environ.get("CONTAINERS_CONF") or str(CACHE / "containers.conf")}
    return subprocess.run(["podman", *args], env=env, check=check, capture_output=True, text=True).stdout.strip()


def measure(data_dir: Path, workers: int, local_bases: bool) -> dict[str, Any]:
    started = time.monotonic()
    build = [str(PROJECT_ROOT / "scripts" / "build-image"), *(["--local-bases"] if local_bases else [])]
    ref = subprocess.run(build, check=True, capture_output=True, text=True).stdout.splitlines()[-1]
    build_seconds = time.monotonic() - started

    name, port = f"svc-bench-{os.getpid()}", free_port()
    podman(
        "run", "--detach", "--name", name, "--read-only", "--read-only-tmpfs=false",
        "--publish", f"127.0.0.1:{port}:8080", "--volume", f"{data_dir.resolve()}:/data:ro",
        "--env", f"SVC_WORKERS={workers}", ref,
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        started = time.monotonic()
        while time.monotonic() - started < 600:  # the catalogue loads before the port opens
            if fetch(base + "/healthz", timeout=5)[0] == 200:
                break
            time.sleep(0.2)
        start_seconds = time.monotonic() - started
        shortcode = json.loads(next((data_dir / "projects").iterdir()).read_text())["shortcode"]
        for path in (f"/projects/{shortcode}", "/dpe/oai?verb=ListRecords&metadataPrefix=oai_dc", "/"):
            fetch(base + path)
        pid = int(podman("inspect", "--format", "{{.State.Pid}}", name))
        processes = memory(pid)
        cgroup = podman("stats", "--no-stream", "--format", "{{.MemUsage}}", name)
        started = time.monotonic()
        podman("stop", "--time", "35", name)
        stop_seconds = time.monotonic() - started
        exit_code = podman("inspect", "--format", "{{.State.ExitCode}}", name)
    finally:
        podman("rm", "--force", name, check=False)
    return {
        "image": ref,
        "image_size_mb": round(int(podman("image", "inspect", "--format", "{{.Size}}", ref)) / 1e6),
        "build_seconds": round(build_seconds, 1),
        "start_seconds": round(start_seconds, 1),
        "memory": processes,
        "cgroup_memory": cgroup,
        "stop_seconds": round(stop_seconds, 1),
        "stop_exit_code": int(exit_code),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--registry-bases", action="store_true", help="build from the Dockerfile's default bases")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    result = measure(args.data_dir, args.workers, not args.registry_bases)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
