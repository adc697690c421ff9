#!/usr/bin/env python3
"""Benchmark `svc serve` under concurrent load, against baselines under the same gunicorn settings.

    python bench/run.py --data-dir DIR [--workers 2] [--duration 5] [--json FILE]

Starts `svc serve` on 127.0.0.1 (a free port) on the chosen data directory and
measures, with wrk, requests/s and p50/p99 latency of each scenario, the
start-up time (process start to the first 200 on /healthz), and the RSS and PSS
of the master and of each worker after the load. Beside it run the baselines,
under the same gunicorn settings: a minimal WSGI app for /healthz, and a Django
view returning as many bytes as the scenario's response for every other
scenario; each svc measurement is followed by its baseline's, ``--rounds``
times, and the medians are printed as absolute figures and as a ratio.
A scenario whose URL does not answer 200 (not built yet, no records…) is
reported as unavailable. See bench/README.md.
"""

from __future__ import annotations

import argparse
import calendar
import http.client
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit
from xml.sax.saxutils import unescape

BENCH_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = BENCH_DIR.parent
SVC = Path(sys.executable).with_name("svc")
DEFAULT_OAI_BASE_URL = "https://repository.dasch.swiss/dpe/oai"
DEFAULT_REPOSITORY_IDENTIFIER = "dasch.swiss"
BASELINE_BYTES_PATH = "/bench-baseline/bytes/{size}"
RECORDS_SUFFIX = "-records.json"
# Throttling would measure the rate limiter, not the service.
UNTHROTTLED = {
    "SVC_OAI_RATE_LIMIT_PER_SECOND": "1000000000",
    "SVC_OAI_RATE_LIMIT_BURST": "1000000000",
    "SVC_OAI_MAX_CONCURRENT": "1000000000",
}

# wrk reports through this script: exact percentiles in microseconds, as one JSON line.
WRK_REPORT_LUA = """
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH-JSON {"requests":%d,"duration_us":%d,"bytes":%d,"p50_us":%.0f,"p90_us":%.0f,"p99_us":%.0f,'
    .. '"mean_us":%.1f,"max_us":%.0f,"connect_errors":%d,"read_errors":%d,"write_errors":%d,'
    .. '"status_errors":%d,"timeouts":%d}\\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.mean, latency.max, e.connect, e.read, e.write, e.status, e.timeout))
end
"""


# -- what to measure --------------------------------------------------------------------------------


@dataclass
class Harvest:
    """A complete sequential ListRecords harvest, one client following the tokens."""

    records: int = 0
    pages: int = 0
    seconds: float = 0.0
    last_page_path: str | None = None
    error: str | None = None

    @property
    def records_per_second(self) -> float:
        return self.records / self.seconds if self.seconds else 0.0


class Targets:
    """The concrete URLs of a data directory: its largest project, one of its records, the OAI paths."""

    def __init__(self, data_dir: Path, oai_base_url: str, repository_identifier: str) -> None:
        self.oai_path = urlsplit(oai_base_url).path or "/"
        self.repository_identifier = repository_identifier
        self.project, self.record_pid = largest_project(data_dir)
        self.base_url = ""  # set once the server runs
        self.harvest: Harvest | None = None

    def oai(self, **arguments: str) -> str:
        return f"{self.oai_path}?{urlencode(arguments)}"

    @property
    def record_identifier(self) -> str | None:
        """``oai:<repository>:ark:/72163/1/<shortcode>/<record>``, derived from the record's ARK pid."""
        if not self.record_pid or "ark:/" not in self.record_pid:
            return None
        return f"oai:{self.repository_identifier}:{self.record_pid[self.record_pid.index('ark:/') :]}"

    def last_list_records_page(self) -> str | None:
        """The path of the last ListRecords page, found by harvesting every page once (done on first use)."""
        if self.harvest is None:
            self.harvest = harvest(self.base_url, self.oai(verb="ListRecords", metadataPrefix="oai_datacite"))
        return self.harvest.last_page_path


def _fixed_path(path: str) -> Callable[[Targets], str | None]:
    """A scenario path that does not depend on the data (``--path NAME=/path``)."""
    return lambda _targets: path


@dataclass(frozen=True)
class Scenario:
    name: str
    path: Callable[[Targets], str | None]  # None: this data has nothing to measure here
    baseline: str  # "wsgi" (the /healthz floor) or "django" (a Django view of the same size)


# The registry: adding a scenario is one line.
SCENARIOS: tuple[Scenario, ...] = (
    Scenario("healthz", lambda t: "/healthz", "wsgi"),
    Scenario("listing", lambda t: "/projects", "django"),
    Scenario("project", lambda t: t.project and f"/projects/{t.project}", "django"),
    Scenario("oai-identify", lambda t: t.oai(verb="Identify"), "django"),
    Scenario(
        "oai-getrecord",
        lambda t: (
            t.record_identifier
            and t.oai(verb="GetRecord", metadataPrefix="oai_datacite", identifier=t.record_identifier)
        ),
        "django",
    ),
    Scenario("oai-listrecords-first", lambda t: t.oai(verb="ListRecords", metadataPrefix="oai_datacite"), "django"),
    Scenario("oai-listrecords-last", Targets.last_list_records_page, "django"),
)


def largest_project(data_dir: Path) -> tuple[str | None, str | None]:
    """The shortcode of the project with the biggest record file, and the pid of its first record.

    File sizes and the head of one file are enough: the benchmark must not have
    to load a million records itself to know what to ask for.
    """
    record_files = sorted(
        (path for path in (data_dir / "records").glob(f"*{RECORDS_SUFFIX}") if path.is_file()),
        key=lambda path: (-path.stat().st_size, path.name),
    )
    if record_files:
        first = first_json_object(record_files[0])
        pid = first.get("pid") if isinstance(first, dict) else None
        return record_files[0].name[: -len(RECORDS_SUFFIX)], pid if isinstance(pid, str) else None
    for path in sorted((data_dir / "projects").glob("*.json")):
        project = first_json_object(path)
        if isinstance(project, dict) and isinstance(project.get("shortcode"), str):
            return project["shortcode"], None
    return None, None


def first_json_object(path: Path, chunk: int = 1 << 16) -> Any:
    """The first object of a JSON file (an array's first item), reading only as much as it needs."""
    decoder = json.JSONDecoder()
    text = ""
    with path.open(encoding="utf-8") as handle:
        while True:
            more = handle.read(chunk)
            text += more
            start = text.find("{")
            if start >= 0:
                try:
                    return decoder.raw_decode(text, start)[0]
                except ValueError:
                    pass
            if not more:
                return None


# -- servers ----------------------------------------------------------------------------------------


def activation_of(summary: str) -> int:
    """The activation time ``svc stamp`` prints at the end of its summary (``…; served from 2026-11-24T09:45:00Z``)."""
    return calendar.timegm(time.strptime(summary.rsplit(" ", 1)[1], "%Y-%m-%dT%H:%M:%SZ"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    name: str
    process: subprocess.Popen
    base_url: str
    log_path: Path
    startup_seconds: float = 0.0


@contextmanager
def running(name: str, command: list[str], port: int, env: dict[str, str], log_dir: Path) -> Iterator[Server]:
    """Start a server, wait for its first 200 on /healthz, stop it (and its workers) afterwards."""
    log_path = log_dir / f"{name}.log"
    with log_path.open("wb") as log:
        started = time.perf_counter()
        process = subprocess.Popen(
            command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=PROJECT_ROOT, start_new_session=True
        )
    server = Server(name, process, f"http://127.0.0.1:{port}", log_path)
    try:
        server.startup_seconds = wait_healthy(server, started)
        yield server
    finally:
        stop(process)


def wait_healthy(server: Server, started: float, deadline: float = 300) -> float:
    while time.perf_counter() - started < deadline:
        if server.process.poll() is not None:
            tail = server.log_path.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"{server.name} exited with {server.process.returncode}:\n{tail}")
        try:
            with urllib.request.urlopen(server.base_url + "/healthz", timeout=1) as response:
                if response.status == 200:
                    return time.perf_counter() - started
        except OSError:
            pass
        time.sleep(0.01)
    raise TimeoutError(f"{server.name}: no 200 on /healthz within {deadline} s")


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to the server's own process group (master and workers), SIGKILL if it lingers."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def memory(pid: int) -> dict[str, Any]:
    """RSS and PSS (MiB) of a gunicorn master and each of its workers, from /proc/<pid>/smaps_rollup."""

    def rollup(process_id: int) -> dict[str, float]:
        values = {}
        for line in Path(f"/proc/{process_id}/smaps_rollup").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in ("Rss", "Pss"):
                values[key.lower() + "_mib"] = round(int(rest.split()[0]) / 1024, 1)
        return values

    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    workers = [{"pid": int(child), **rollup(int(child))} for child in children]
    master = {"pid": pid, **rollup(pid)}
    total = round(master["pss_mib"] + sum(worker["pss_mib"] for worker in workers), 1)
    return {"master": master, "workers": workers, "total_pss_mib": total}


# -- HTTP -------------------------------------------------------------------------------------------


def fetch(url: str, timeout: float = 120) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError as error:
        return 0, str(error).encode()


RECORD = re.compile(rb"<(?:[\w.-]+:)?record>")
TOKEN = re.compile(rb"<(?:[\w.-]+:)?resumptionToken\b[^>]*?(?:/>|>([^<]*)<)")


def harvest(base_url: str, first_path: str) -> Harvest:
    """Follow the resumption tokens from the first page to the last, one request at a time, on one connection."""
    result = Harvest()
    host = urlsplit(base_url)
    connection = http.client.HTTPConnection(host.netloc, timeout=300)
    path = first_path
    started = time.perf_counter()
    try:
        while True:
            connection.request("GET", path)
            response = connection.getresponse()
            body = response.read()
            if response.status != 200:
                result.error = f"HTTP {response.status} on page {result.pages + 1}"
                return result
            result.pages += 1
            result.records += len(RECORD.findall(body))
            match = TOKEN.search(body)
            token = unescape(match.group(1).decode()).strip() if match and match.group(1) else ""
            if not token:
                result.last_page_path = path
                return result
            path = f"{first_path.split('?')[0]}?{urlencode({'verb': 'ListRecords', 'resumptionToken': token})}"
    finally:
        result.seconds = time.perf_counter() - started
        connection.close()


@dataclass
class Load:
    """One wrk run: requests/s and latency percentiles (ms)."""

    requests_per_second: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    requests: int
    errors: int

    @classmethod
    def from_wrk(cls, report: dict[str, Any]) -> Load:
        errors = sum(report[key] for key in ("connect_errors", "read_errors", "write_errors", "status_errors"))
        return cls(
            requests_per_second=round(report["requests"] / (report["duration_us"] / 1e6), 1),
            p50_ms=report["p50_us"] / 1000,
            p90_ms=report["p90_us"] / 1000,
            p99_ms=report["p99_us"] / 1000,
            requests=report["requests"],
            errors=errors + report["timeouts"],
        )

    @classmethod
    def median(cls, loads: list[Load]) -> Load:
        """Figure by figure, the median of several runs (the runs' errors add up)."""
        return cls(
            requests_per_second=statistics.median(load.requests_per_second for load in loads),
            p50_ms=statistics.median(load.p50_ms for load in loads),
            p90_ms=statistics.median(load.p90_ms for load in loads),
            p99_ms=statistics.median(load.p99_ms for load in loads),
            requests=sum(load.requests for load in loads),
            errors=sum(load.errors for load in loads),
        )


class Wrk:
    def __init__(self, threads: int, connections: int, duration: int, warmup: int, rounds: int, script: Path) -> None:
        self.threads = threads
        self.connections = connections
        self.duration = duration
        self.warmup = warmup
        self.rounds = rounds
        self.script = script

    def _run(self, url: str, seconds: int) -> dict[str, Any]:
        command = [
            "wrk",
            f"--threads={self.threads}",
            f"--connections={self.connections}",
            f"--duration={seconds}s",
            "--timeout=30s",
            f"--script={self.script}",
            url,
        ]
        completed = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 120)
        for line in completed.stdout.splitlines():
            if line.startswith("BENCH-JSON "):
                return json.loads(line.removeprefix("BENCH-JSON "))
        raise RuntimeError(f"wrk gave no report for {url}: {completed.stdout}{completed.stderr}")

    def warm(self, url: str) -> None:
        """Unmeasured load first: every worker imports, compiles and caches what the URL needs."""
        if self.warmup > 0:
            self._run(url, self.warmup)

    def measure(self, url: str) -> Load:
        return Load.from_wrk(self._run(url, self.duration))


# -- the run ----------------------------------------------------------------------------------------


@dataclass
class Result:
    name: str
    path: str | None
    status: str  # "ok" or "unavailable"
    detail: str = ""
    response_bytes: int = 0
    load: Load | None = None
    baseline: str = ""
    baseline_load: Load | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.load and self.baseline_load and self.baseline_load.requests_per_second:
            return round(self.load.requests_per_second / self.baseline_load.requests_per_second, 3)
        return None


def measure(args: argparse.Namespace, wrk: Wrk, log_dir: Path) -> dict[str, Any]:
    """Start svc, then the baselines; measure each scenario on svc and right after on its baseline.

    All servers run side by side and each svc measurement is paired with its
    baseline's (``--rounds`` times, medians reported), so that a busy neighbour
    on a shared machine slows both sides of a ratio alike.
    """
    oai_base_url = os.environ.get("SVC_OAI_BASE_URL") or DEFAULT_OAI_BASE_URL
    identifier = os.environ.get("SVC_OAI_REPOSITORY_IDENTIFIER") or DEFAULT_REPOSITORY_IDENTIFIER
    targets = Targets(args.data_dir, oai_base_url, identifier)
    port = free_port()
    env = {
        **os.environ,
        **UNTHROTTLED,
        "SVC_DATA_DIR": str(args.data_dir),
        "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{port}",
        "RUST_LOG": args.log_level,
    }
    command = [str(SVC), "serve", f"--workers={args.workers}"]
    with ExitStack() as servers:
        svc = servers.enter_context(running("svc", command, port, env, log_dir))
        print(f"svc serve: first 200 on /healthz after {svc.startup_seconds:.2f} s", file=sys.stderr)
        targets.base_url = svc.base_url
        baselines = Baselines(args, servers, log_dir)
        results = [measure_scenario(scenario, targets, svc, baselines, wrk) for scenario in args.selected]
        return {
            "startup_seconds": round(svc.startup_seconds, 3),
            "memory": memory(svc.process.pid),
            "baselines": {
                kind: {"startup_seconds": round(server.startup_seconds, 3), "memory": memory(server.process.pid)}
                for kind, server in baselines.started.items()
            },
            "results": results,
            "harvest": targets.harvest,
            "targets": {"project": targets.project, "record_pid": targets.record_pid},
        }


class Baselines:
    """The baseline apps, each started (under svc's gunicorn settings) the first time a scenario needs it."""

    def __init__(self, args: argparse.Namespace, servers: ExitStack, log_dir: Path) -> None:
        self.args = args
        self.servers = servers
        self.log_dir = log_dir
        self.started: dict[str, Server] = {}

    def get(self, kind: str) -> Server | None:
        if self.args.no_baseline:
            return None
        if kind not in self.started:
            port = free_port()
            command = [
                sys.executable,
                str(BENCH_DIR / "baseline.py"),
                kind,
                f"--bind=127.0.0.1:{port}",
                f"--workers={self.args.workers}",
            ]
            env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "RUST_LOG": self.args.log_level}
            server = running(f"baseline-{kind}", command, port, env, self.log_dir)
            self.started[kind] = self.servers.enter_context(server)
        return self.started[kind]


def measure_scenario(scenario: Scenario, targets: Targets, svc: Server, baselines: Baselines, wrk: Wrk) -> Result:
    path = scenario.path(targets)
    if not path:
        detail = "nothing to measure in this data"
        if targets.harvest and targets.harvest.error:
            detail = f"harvest failed: {targets.harvest.error}"
        return Result(scenario.name, None, "unavailable", detail)
    status, body = fetch(svc.base_url + path)
    if status != 200:
        return Result(scenario.name, path, "unavailable", f"HTTP {status}" if status else body.decode())
    result = Result(scenario.name, path, "ok", response_bytes=len(body), baseline=scenario.baseline)
    baseline = baselines.get(scenario.baseline)  # started now, before the load, if this is its first use
    baseline_url = baseline and baseline.base_url + (
        "/healthz" if scenario.baseline == "wsgi" else BASELINE_BYTES_PATH.format(size=len(body))
    )
    print(f"  {scenario.name}: {path}" + (f" (baseline {baseline_url})" if baseline_url else ""), file=sys.stderr)
    wrk.warm(svc.base_url + path)
    if baseline_url:
        wrk.warm(baseline_url)
    loads, baseline_loads = [], []
    for _ in range(wrk.rounds):
        loads.append(wrk.measure(svc.base_url + path))
        if baseline_url:
            baseline_loads.append(wrk.measure(baseline_url))
    result.load = Load.median(loads)
    result.baseline_load = Load.median(baseline_loads) if baseline_loads else None
    return result


def report(run: dict[str, Any]) -> str:
    lines = [
        f"svc serve on {run['data_dir']}: {run['workers']} gevent workers; "
        f"wrk {run['wrk_threads']} threads, {run['connections']} connections, {run['duration']} s per scenario"
        f" (median of {run['rounds']})",
        f"start-up (process start to first 200 on /healthz): {run['startup_seconds']:.2f} s",
        "",
        f"{'scenario':<24}{'bytes':>9}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}  |"
        f"{'baseline':>9}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}  |{'ratio':>7}",
    ]
    for result in run["results"]:
        if result.status != "ok":
            lines.append(f"{result.name:<24}unavailable ({result.detail})")
            continue
        load, base = result.load, result.baseline_load
        row = f"{result.name:<24}{result.response_bytes:>9}{load.requests_per_second:>10.1f}"
        row += f"{load.p50_ms:>9.2f}{load.p99_ms:>9.2f}  |"
        if base:
            row += f"{result.baseline:>9}{base.requests_per_second:>10.1f}{base.p50_ms:>9.2f}{base.p99_ms:>9.2f}  |"
            row += f"{result.ratio:>7.2f}"
        if load.errors:
            row += f"  ({load.errors} errors)"
        lines.append(row)
    by_name = {result.name: result for result in run["results"]}
    first, last = by_name.get("oai-listrecords-first"), by_name.get("oai-listrecords-last")
    if first and last and first.load and last.load:
        lines.append(
            f"\nListRecords last/first page latency: p50 {last.load.p50_ms / first.load.p50_ms:.2f}, "
            f"p99 {last.load.p99_ms / first.load.p99_ms:.2f}"
        )
    harvested = run["harvest"]
    if harvested:
        outcome = f", stopped: {harvested.error}" if harvested.error else ""
        lines.append(
            f"complete sequential harvest (oai_datacite): {harvested.records} records, {harvested.pages} pages "
            f"in {harvested.seconds:.1f} s = {harvested.records_per_second:.0f} records/s{outcome}"
        )
    mem = run["memory"]
    lines.append("\nmemory after the load (MiB):")
    lines.append(
        f"  master  pid {mem['master']['pid']}: RSS {mem['master']['rss_mib']}, PSS {mem['master']['pss_mib']}"
    )
    for number, worker in enumerate(mem["workers"], start=1):
        lines.append(f"  worker {number} pid {worker['pid']}: RSS {worker['rss_mib']}, PSS {worker['pss_mib']}")
    lines.append(f"  total PSS: {mem['total_pss_mib']}")
    for kind, baseline in run["baselines"].items():
        lines.append(
            f"baseline {kind}: start-up {baseline['startup_seconds']:.2f} s, "
            f"total PSS {baseline['memory']['total_pss_mib']} MiB"
        )
    return "\n".join(lines)


def as_json(run: dict[str, Any]) -> dict[str, Any]:
    def result_json(result: Result) -> dict[str, Any]:
        data = asdict(result)
        data["ratio"] = result.ratio
        return data

    harvested = run["harvest"]
    return {
        **run,
        "results": [result_json(result) for result in run["results"]],
        "harvest": harvested and {**asdict(harvested), "records_per_second": round(harvested.records_per_second, 1)},
    }


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    names = [scenario.name for scenario in SCENARIOS]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="data directory to serve")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2)")
    parser.add_argument("--duration", type=int, default=5, help="seconds of load per scenario (default 5)")
    parser.add_argument("--warmup", type=int, default=1, help="seconds of unmeasured load first (default 1; 0: none)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="alternate svc and baseline this many times, report medians (default 3)"
    )
    parser.add_argument("--connections", type=int, default=16, help="wrk connections (default 16)")
    parser.add_argument("--wrk-threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument(
        "--scenarios", default=",".join(names), help=f"comma-separated subset of: {', '.join(names)} (default all)"
    )
    parser.add_argument(
        "--path",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="also measure this path (Django baseline); repeatable",
    )
    parser.add_argument("--no-baseline", action="store_true", help="skip the baselines (absolute figures only)")
    parser.add_argument("--log-level", default="warn", help="RUST_LOG of the servers (default warn)")
    parser.add_argument("--json", type=Path, help="also write the results to this file as JSON")
    args = parser.parse_args(argv)

    chosen = [name.strip() for name in args.scenarios.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(names))
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(unknown)}; known: {', '.join(names)}")
    args.selected = [scenario for scenario in SCENARIOS if scenario.name in chosen]
    for extra in args.path:
        name, sep, path = extra.partition("=")
        if not sep or not name or not path.startswith("/"):
            parser.error(f"--path expects NAME=/path, got {extra!r}")
        args.selected.append(Scenario(name, _fixed_path(path), "django"))
    if not args.data_dir.is_dir():
        parser.error(f"--data-dir {args.data_dir}: not a directory")
    args.data_dir = args.data_dir.resolve()
    if shutil.which("wrk") is None:
        parser.error("wrk not found; install it (Debian: apt-get install -y wrk)")
    if not SVC.exists():
        parser.error(f"{SVC} not found; install svc into this environment (pip install -e .)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    with tempfile.TemporaryDirectory(prefix="svc-bench-") as scratch:
        scratch_dir = Path(scratch)
        script = scratch_dir / "report.lua"
        script.write_text(WRK_REPORT_LUA)
        wrk = Wrk(args.wrk_threads, args.connections, args.duration, args.warmup, args.rounds, script)
        run: dict[str, Any] = {
            "data_dir": str(args.data_dir),
            "workers": args.workers,
            "wrk_threads": args.wrk_threads,
            "connections": args.connections,
            "duration": args.duration,
            "rounds": args.rounds,
        }
        run.update(measure(args, wrk, scratch_dir))
    print(report(run))
    if args.json:
        args.json.write_text(json.dumps(as_json(run), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
