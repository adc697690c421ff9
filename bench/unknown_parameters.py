#!/usr/bin/env python3
"""What a parameter a view does not read costs (issue 39): as much as a kept response, not a rendering.

    python bench/unknown_parameters.py --data-dir DIR [--requests 200] [--json FILE]

Starts `svc serve --workers 1` (every request lands in the process measured)
and, for each expensive document (the DCAT catalogue negotiated and as
Turtle, the sitemap, the changes feed, the project listing), sends over one
keep-alive connection: the first request (a rendering), ``--requests`` repeats
of the same URL (kept responses), ``--requests`` URLs each with a fresh
unknown parameter (``?zz=N``, as the attack did), and ``--requests`` with a
fresh ``X-Forwarded-Host``; for the DCAT, ``--requests`` spellings of page 1
(``?page=01``, ``?page=001``…), which the response cache keys apart but the
view renders once. Reports the median wall time and the worker's CPU time per
request of each kind, and their ratio to the repeats measured in the same run.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.run import SVC, UNTHROTTLED, free_port, running

DOCUMENTS = ("/catalogue/dcat", "/catalogue/dcat.ttl", "/sitemap.xml", "/feeds/changes.atom", "/projects")
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def worker_pid(master: int) -> int:
    (child,) = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return int(child)


def timed(connection: http.client.HTTPConnection, requests: list[tuple[str, dict[str, str]]], worker: int) -> dict:
    """Median wall milliseconds and mean worker CPU milliseconds per request of ``requests``."""
    walls = []
    cpu_before = cpu_seconds(worker)
    for path, headers in requests:
        started = time.perf_counter()
        connection.request("GET", path, headers={"Accept-Encoding": "identity", **headers})
        response = connection.getresponse()
        response.read()
        walls.append(time.perf_counter() - started)
        if response.status != 200:
            raise SystemExit(f"{path}: {response.status}")
    cpu = cpu_seconds(worker) - cpu_before
    return {"median_ms": round(statistics.median(walls) * 1000, 2), "cpu_ms": round(cpu * 1000 / len(walls), 2)}


def measure(connection: http.client.HTTPConnection, path: str, count: int, worker: int) -> dict:
    first = timed(connection, [(path, {})], worker)
    kinds: dict[str, list[tuple[str, dict[str, str]]]] = {
        "repeated": [(path, {}) for _ in range(count)],
        "unknown_parameter": [(f"{path}?zz={number}", {}) for number in range(count)],
        "forwarded_host": [(path, {"X-Forwarded-Host": f"h{number}.example"}) for number in range(count)],
    }
    if path.startswith("/catalogue/dcat"):
        kinds["page_spellings"] = [(f"{path}?page={'0' * number}1", {}) for number in range(1, count + 1)]
    result = {"first": first, **{kind: timed(connection, requests, worker) for kind, requests in kinds.items()}}
    baseline = result["repeated"]
    for kind in kinds:
        if kind != "repeated":
            result[kind]["median_ratio"] = round(result[kind]["median_ms"] / baseline["median_ms"], 2)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--requests", type=int, default=200, help="requests of each kind per document")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    port = free_port()
    env = {
        **os.environ,
        **UNTHROTTLED,
        "SVC_DATA_DIR": str(args.data_dir),
        "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{port}",
        "RUST_LOG": "warn",
    }
    results = {}
    with (
        tempfile.TemporaryDirectory() as log_dir,
        running("svc", [str(SVC), "serve", "--workers=1"], port, env, Path(log_dir)) as svc,
    ):
        worker = worker_pid(svc.process.pid)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for path in DOCUMENTS:
            results[path] = measure(connection, path, args.requests, worker)
        connection.close()
    for path, result in results.items():
        kinds = ", ".join(
            f"{kind} {value['median_ms']} ms ({value['cpu_ms']} ms CPU)" for kind, value in result.items()
        )
        print(f"{path}: {kinds}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
