#!/usr/bin/env python3
"""How svc scales with the corpus: stamp, snapshot, start-up, memory, record search, harvest, tail latency.

    python bench/scale.py DIR [DIR ...] [--json FILE] [--plot FILE.png]

For each data directory (made by bench/make_corpus.py), smallest first:

1. ``svc stamp DIR``: wall and CPU time, peak RSS (the child's ``ru_maxrss``),
   and the size of the snapshot it writes (``--first-stamp``: from no ledger;
   ``--no-stamp``: skipped, the existing snapshot is served);
2. ``svc serve --workers 2``: process start to the first 200 on /healthz, and
   the master's CPU time by then (on a busy machine the wall time is mostly
   waiting for a CPU);
3. a warm-up (listing, largest project, its records, one OAI page), then the
   PSS of master and workers (anonymous and file-backed apart: the
   snapshot's pages are page cache, shared by every process and replica),
   and again at the end of the run, after the search, harvest and wrk steps
   have read a fifth of the snapshot;
4. record search in the largest project over HTTP: distinct queries (no
   replayed answer), p50/p95;
5. ListRecords harvest, one client following the tokens for ``--harvest-seconds``;
6. wrk ``-t2 -c16`` on the largest project's page and /healthz: p50/p99, and
   the share of the workers' time on a CPU and waiting in the run queue for
   one (``/proc/<pid>/schedstat``): where the tail comes from.

See bench/README.md and docs/benchmark.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from bench.record_search import QUERIES
from bench.run import (
    SVC,
    TOKEN,
    UNTHROTTLED,
    WRK_REPORT_LUA,
    Wrk,
    fetch,
    free_port,
    largest_project,
    running,
    unescape,
)
from catalog.domain.snapshot import SNAPSHOT_PATH, open_snapshot

OAI_PATH = "/dpe/oai"


def stamp(data_dir: Path) -> dict[str, Any]:
    """Run ``svc stamp`` and measure it (wall, CPU, peak RSS of the process)."""
    started = time.perf_counter()
    process = subprocess.Popen([str(SVC), "stamp", str(data_dir)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    output = (process.stdout.read() + process.stderr.read()).decode() if process.stdout and process.stderr else ""
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise RuntimeError(f"svc stamp {data_dir} exited {process.returncode}: {output}")
    return {
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
        "snapshot_mib": round((data_dir / SNAPSHOT_PATH).stat().st_size / 2**20, 1),
    }


def memory_split(pid: int) -> dict[str, float]:
    """Total PSS of master and workers (MiB), and its anonymous and file-backed parts."""
    pids = [pid, *map(int, Path(f"/proc/{pid}/task/{pid}/children").read_text().split())]
    totals = {"Pss": 0, "Pss_Anon": 0, "Pss_File": 0, "Rss": 0}
    for process_id in pids:
        for line in Path(f"/proc/{process_id}/smaps_rollup").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in totals:
                totals[key] += int(rest.split()[0])
    return {
        "processes": len(pids),
        "pss_mib": round(totals["Pss"] / 1024, 1),
        "pss_anon_mib": round(totals["Pss_Anon"] / 1024, 1),
        "pss_file_mib": round(totals["Pss_File"] / 1024, 1),
    }


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far: start-up work, apart from waiting for a CPU."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def scheduler_times(pids: list[int]) -> tuple[float, float]:
    """Seconds the processes ran on a CPU and waited in the run queue for one (``/proc/<pid>/schedstat``)."""
    on_cpu = waiting = 0
    for pid in pids:
        ran, waited, _ = map(int, Path(f"/proc/{pid}/schedstat").read_text().split())
        on_cpu, waiting = on_cpu + ran, waiting + waited
    return on_cpu / 1e9, waiting / 1e9


def record_search(base_url: str, shortcode: str) -> dict[str, float]:
    """p50/p95 (ms) of record-search pages of the largest project, each URL asked once (nothing replayed).

    The queries of bench/record_search.py, each on five consecutive pages;
    pages past the end of a narrow query (404) are left out.
    """
    samples = []
    for text, sort, first_page in QUERIES:
        for page in range(first_page, first_page + 5):
            query = urlencode({"q": text, "sort": sort, "page": page})
            started = time.perf_counter()
            status, _ = fetch(f"{base_url}/projects/{shortcode}/records?{query}")
            if status == 200:
                samples.append((time.perf_counter() - started) * 1000)
    ordered = sorted(samples)
    return {
        "queries": len(ordered),
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
    }


def harvest_rate(base_url: str, seconds: float) -> dict[str, float]:
    """Records/s of one client following ListRecords tokens (oai_datacite) for about ``seconds``."""
    path = f"{OAI_PATH}?{urlencode({'verb': 'ListRecords', 'metadataPrefix': 'oai_datacite'})}"
    records = pages = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        status, body = fetch(base_url + path)
        if status != 200:
            raise RuntimeError(f"harvest: HTTP {status} on page {pages + 1}")
        pages += 1
        # Byte searches: svc writes these elements without a prefix, and bench.run's regular expressions
        # (which allow one) cost the client 0.9 ms a page, a sixth of a page's round trip.
        records += body.count(b"<record>")
        match = TOKEN.search(body, max(0, body.rfind(b"<resumptionToken")))
        if not match or not match.group(1):
            break
        token = unescape(match.group(1).decode()).strip()
        path = f"{OAI_PATH}?{urlencode({'verb': 'ListRecords', 'resumptionToken': token})}"
    elapsed = time.perf_counter() - started
    return {"records": records, "pages": pages, "records_per_second": round(records / elapsed)}


def measure(data_dir: Path, args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    result: dict[str, Any] = {"data_dir": str(data_dir)}
    if args.first_stamp:  # what a first release, or a new svc that renders differently, costs
        shutil.rmtree(data_dir / ".svc", ignore_errors=True)
    if not args.no_stamp:
        print(f"{data_dir}: svc stamp …", file=sys.stderr)
        result["stamp"] = stamp(data_dir)
    shortcode, _ = largest_project(data_dir)
    port = free_port()
    env = {
        **os.environ,
        **UNTHROTTLED,
        "SVC_DATA_DIR": str(data_dir),
        "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{port}",
        "RUST_LOG": "warn",
    }
    print(f"{data_dir}: svc serve …", file=sys.stderr)
    with running(f"svc-{data_dir.name}", [str(SVC), "serve", "--workers=2"], port, env, scratch) as server:
        result["startup_seconds"] = round(server.startup_seconds, 2)
        result["startup_master_cpu_seconds"] = round(cpu_seconds(server.process.pid), 2)
        result["snapshot_warnings"] = server.log_path.read_text(errors="replace").count("snapshot not used")
        base = server.base_url
        for path in (
            "/projects",
            f"/projects/{shortcode}",
            f"/projects/{shortcode}/records",
            OAI_PATH + "?verb=Identify",
        ):
            fetch(base + path)
        result["memory_after_warm_up"] = memory_split(server.process.pid)
        result["record_search"] = record_search(base, str(shortcode))
        result["harvest"] = harvest_rate(base, args.harvest_seconds)
        wrk = Wrk(2, 16, args.duration, 1, 1, scratch / "report.lua")
        workers = [
            int(pid)
            for pid in Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read_text().split()
        ]
        tail = {}
        for name, path in (("project", f"/projects/{shortcode}"), ("healthz", "/healthz")):
            wrk.warm(base + path)
            before, started = scheduler_times(workers), time.perf_counter()
            loads = [wrk.measure(base + path) for _ in range(args.rounds)]
            elapsed = (time.perf_counter() - started) * len(workers)
            on_cpu, waiting = (now - then for now, then in zip(scheduler_times(workers), before, strict=True))
            tail[name] = {
                "requests_per_second": statistics.median(load.requests_per_second for load in loads),
                "p50_ms": statistics.median(load.p50_ms for load in loads),
                "p99_ms": statistics.median(load.p99_ms for load in loads),
                # Share of the workers' wall time on a CPU, and waiting in the run queue for one.
                "workers_on_cpu": round(on_cpu / elapsed, 2),
                "workers_waiting_for_cpu": round(waiting / elapsed, 2),
            }
        result["wrk_c16"] = tail
        result["memory_after_run"] = memory_split(server.process.pid)
    return result


def plot(runs: list[dict[str, Any]], path: Path) -> None:
    """Start-up time and PSS against the number of records (log scale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = [run["records"] for run in runs]
    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    left.plot(records, [run["startup_seconds"] for run in runs], "o-", label="svc serve to first 200 (wall)")
    left.plot(records, [run["startup_master_cpu_seconds"] for run in runs], "o--", label="svc serve, master CPU")
    stamped = [run for run in runs if "stamp" in run]
    stamped_records = [run["records"] for run in stamped]
    left.plot(stamped_records, [run["stamp"]["cpu_seconds"] for run in stamped], "s:", label="svc stamp CPU")
    left.set(xscale="log", yscale="log", xlabel="records", ylabel="seconds", title="Start-up and stamp")
    right.plot(records, [run["memory_after_warm_up"]["pss_mib"] for run in runs], "o-", label="PSS after warm-up")
    right.plot(records, [run["memory_after_warm_up"]["pss_anon_mib"] for run in runs], "s--", label="of it anonymous")
    right.plot(records, [run["memory_after_run"]["pss_mib"] for run in runs], "o:", label="PSS after the run")
    right.plot(stamped_records, [run["stamp"]["snapshot_mib"] for run in stamped], "^:", label="snapshot file")
    right.set(xscale="log", yscale="log", xlabel="records", ylabel="MiB", title="Master + 2 workers")
    for axes in (left, right):
        axes.grid(True, alpha=0.3)
        axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=100, metadata={"Software": None})


def count_records(data_dir: Path) -> int:
    return sum(len(table) for table in open_snapshot(data_dir).tables.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dirs", type=Path, nargs="*")
    parser.add_argument("--duration", type=int, default=4, help="seconds per wrk run (default 4)")
    parser.add_argument("--rounds", type=int, default=2, help="wrk runs per URL, median reported (default 2)")
    parser.add_argument("--harvest-seconds", type=float, default=20, help="length of the harvest (default 20)")
    stamping = parser.add_mutually_exclusive_group()
    stamping.add_argument("--first-stamp", action="store_true", help="delete each DIR/.svc first: a first stamp")
    stamping.add_argument("--no-stamp", action="store_true", help="serve each DIR's existing snapshot as it is")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--plot", type=Path, help="write the PNG plot here")
    parser.add_argument("--replot", type=Path, metavar="JSON", help="only plot the runs of an earlier --json")
    args = parser.parse_args(argv)
    if args.replot:
        plot(json.loads(args.replot.read_text()), args.plot or Path("scale.png"))
        return 0
    runs = []
    with tempfile.TemporaryDirectory(prefix="svc-scale-") as scratch:
        (Path(scratch) / "report.lua").write_text(WRK_REPORT_LUA)
        for data_dir in args.data_dirs:
            run = measure(data_dir.resolve(), args, Path(scratch))
            run["records"] = count_records(data_dir)
            runs.append(run)
            print(json.dumps(run), flush=True)
    if args.json:
        args.json.write_text(json.dumps(runs, indent=2) + "\n")
    if args.plot:
        plot(runs, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
