#!/usr/bin/env python3
"""Bytes on the wire: compressed vs plain, HEAD and 304 vs GET, harvest bytes, and svc behind the deploy/ nginx.

    python bench/wire.py --data-dir DIR [--duration 3] [--rounds 3] [--endpoints NAME,...] [--json FILE]

Starts `svc serve`, the Django baseline (bench/baseline.py, same gunicorn
settings and middleware) and Debian's nginx with deploy/nginx.conf in front of
svc, side by side, and measures with wrk:

1. each endpoint (listing, project page, 100-item ListRecords, API listing,
   sitemap) plain and gzip-coded, each followed by the Django view returning
   bytes of the same length (for gzip: the same length, already coded);
2. HEAD and a 304 (If-None-Match) against the GET of the same representation;
3. a complete harvest per metadata format with and without gzip (bytes of
   the bodies as they came off the wire);
4. through nginx: the warm gzip page (a cache hit) against nginx serving the
   very same bytes as a static file, in the same run.
See bench/README.md.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, suppress
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit
from xml.sax.saxutils import unescape

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.nginx_proxy import NGINX, Nginx
from bench.run import (
    BENCH_DIR,
    DEFAULT_OAI_BASE_URL,
    SVC,
    UNTHROTTLED,
    WRK_REPORT_LUA,
    Load,
    free_port,
    largest_project,
    running,
)

GZIP = {"Accept-Encoding": "gzip"}
TOKEN = re.compile(rb"<(?:[\w.-]+:)?resumptionToken\b[^>]*?(?:/>|>([^<]*)<)")
FORMAT = re.compile(rb"<metadataPrefix>([^<]+)</metadataPrefix>")


@dataclass
class Pair:
    """One svc measurement and what it is compared with, medians over the rounds."""

    name: str
    url: str
    bytes: int
    load: Load
    versus: str
    versus_load: Load
    cpu_us: float = 0.0  # server CPU (master + workers, user + system) per request, median
    versus_cpu_us: float = 0.0

    @property
    def ratio(self) -> float:
        return round(self.load.requests_per_second / self.versus_load.requests_per_second, 3)

    @property
    def cpu_ratio(self) -> float:
        """Requests per CPU second relative to the other side: steadier than req/s on a shared machine."""
        return round(self.versus_cpu_us / self.cpu_us, 3) if self.cpu_us else 0.0

    def line(self) -> str:
        return (
            f"  {self.name:<34}{self.load.requests_per_second:>8.0f} req/s {self.cpu_us:>7.0f} us CPU  vs "
            f"{self.versus:<14}{self.versus_load.requests_per_second:>8.0f} req/s {self.versus_cpu_us:>7.0f} us CPU"
            f"  ratio {self.ratio:.3f}  CPU ratio {self.cpu_ratio:.3f}"
        )


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a server: its master and every worker (children), from /proc."""
    total = 0.0
    pids = [pid]
    with suppress(OSError):
        pids += [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    for process in pids:
        try:
            fields = Path(f"/proc/{process}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return total


class Wrk:
    def __init__(self, args: argparse.Namespace, scratch: Path) -> None:
        self.args = args
        self.scratch = scratch

    def run(self, url: str, seconds: int, headers: dict[str, str], method: str = "GET") -> Load:
        script = self.scratch / f"{method}.lua"
        script.write_text(f'wrk.method = "{method}"\n{WRK_REPORT_LUA}')
        command = [
            "wrk",
            f"--threads={self.args.wrk_threads}",
            f"--connections={self.args.connections}",
            f"--duration={seconds}s",
            "--timeout=30s",
            f"--script={script}",
            *(f"--header={name}: {value}" for name, value in headers.items()),
            url,
        ]
        completed = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 120)
        for line in completed.stdout.splitlines():
            if line.startswith("BENCH-JSON "):
                return Load.from_wrk(json.loads(line.removeprefix("BENCH-JSON ")))
        raise RuntimeError(f"wrk gave no report for {url}: {completed.stdout}{completed.stderr}")

    def measured(self, target: tuple) -> tuple[Load, float]:
        """One run of ``target`` (url, headers, method, server pid): the load and the server's CPU µs per request."""
        url, headers, method, pid = target
        before = cpu_seconds(pid)
        load = self.run(url, self.args.duration, headers, method)
        return load, (cpu_seconds(pid) - before) * 1e6 / max(load.requests, 1)

    def pair(self, name: str, size: int, first: tuple, second: tuple, versus: str) -> Pair:
        """``first`` and ``second`` (url, headers, method, pid) warmed, then alternated ``--rounds`` times."""
        for url, headers, method, _ in (first, second):
            self.run(url, 1, headers, method)
        runs = [(self.measured(first), self.measured(second)) for _ in range(self.args.rounds)]
        pair = Pair(
            name,
            first[0],
            size,
            Load.median([mine[0] for mine, _ in runs]),
            versus,
            Load.median([theirs[0] for _, theirs in runs]),
            statistics.median(mine[1] for mine, _ in runs),
            statistics.median(theirs[1] for _, theirs in runs),
        )
        print(pair.line(), file=sys.stderr)
        return pair


def get(base_url: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=120)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def sequential_rate(base_url: str, path: str, method: str, headers: dict[str, str], seconds: float) -> Load:
    """Requests/s of one client on one kept-alive connection (wrk cannot send HEAD: it waits for the body)."""
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=60)
    latencies: list[float] = []
    started = time.perf_counter()
    try:
        while time.perf_counter() - started < seconds:
            sent = time.perf_counter()
            connection.request(method, path, headers=headers)
            response = connection.getresponse()
            response.read()
            latencies.append(time.perf_counter() - sent)
    finally:
        connection.close()
    latencies.sort()

    def percentile(share: float) -> float:
        return round(latencies[min(len(latencies) - 1, int(len(latencies) * share))] * 1000, 3)

    return Load(
        requests_per_second=round(len(latencies) / (time.perf_counter() - started), 1),
        p50_ms=percentile(0.5),
        p90_ms=percentile(0.9),
        p99_ms=percentile(0.99),
        requests=len(latencies),
        errors=0,
    )


def sequential_pair(
    name: str, base_url: str, path: str, method: str, headers: dict, pid: int, args: argparse.Namespace
) -> Pair:
    """``method`` with ``headers`` against the plain GET of the same representation, alternated, medians."""
    get_headers = {k: v for k, v in headers.items() if k != "If-None-Match"}

    def measured(run_method: str, run_headers: dict) -> tuple[Load, float]:
        before = cpu_seconds(pid)
        load = sequential_rate(base_url, path, run_method, run_headers, args.duration)
        return load, (cpu_seconds(pid) - before) * 1e6 / max(load.requests, 1)

    runs = [(measured(method, headers), measured("GET", get_headers)) for _ in range(args.rounds)]
    pair = Pair(
        name,
        base_url + path,
        0,
        Load.median([mine[0] for mine, _ in runs]),
        "GET (1 client)",
        Load.median([theirs[0] for _, theirs in runs]),
        statistics.median(mine[1] for mine, _ in runs),
        statistics.median(theirs[1] for _, theirs in runs),
    )
    print(pair.line(), file=sys.stderr)
    return pair


def harvest_bytes(base_url: str, oai_path: str, prefix: str, headers: dict[str, str]) -> dict[str, int]:
    """Follow every resumption token of ListRecords; bytes of the bodies as sent, and pages."""
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=300)
    path = f"{oai_path}?{urlencode({'verb': 'ListRecords', 'metadataPrefix': prefix})}"
    sent = pages = 0
    try:
        while True:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            body = response.read()
            if response.status != 200:
                raise RuntimeError(f"HTTP {response.status} on page {pages + 1} of the {prefix} harvest")
            sent += len(body)
            pages += 1
            if response.getheader("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            match = TOKEN.search(body)
            token = unescape(match.group(1).decode()).strip() if match and match.group(1) else ""
            if not token:
                return {"bytes": sent, "pages": pages}
            path = f"{oai_path}?{urlencode({'verb': 'ListRecords', 'resumptionToken': token})}"
    finally:
        connection.close()


def measure(args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    wrk = Wrk(args, scratch)
    oai_path = urlsplit(os.environ.get("SVC_OAI_BASE_URL") or DEFAULT_OAI_BASE_URL).path
    shortcode, _ = largest_project(args.data_dir)
    every_endpoint = {
        "listing": "/projects",
        "project": f"/projects/{shortcode}",
        "listrecords-100": f"{oai_path}?verb=ListRecords&metadataPrefix=oai_datacite",
        "api-listing": "/api/v2/projects",
        "sitemap": "/sitemap.xml",
    }
    endpoints = {name: path for name, path in every_endpoint.items() if not args.endpoints or name in args.endpoints}
    port, baseline_port = free_port(), free_port()
    env = {
        **os.environ,
        **UNTHROTTLED,
        "SVC_DATA_DIR": str(args.data_dir),
        "SVC_OAI_PAGE_SIZE": "100",
        "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{port}",
        "RUST_LOG": "warn",
    }
    gunicorn = [f"--workers={args.workers}"]
    baseline_command = [sys.executable, str(BENCH_DIR / "baseline.py"), "django", f"--bind=127.0.0.1:{baseline_port}"]
    baseline_env = {**os.environ, "PYTHONPATH": str(BENCH_DIR.parent), "RUST_LOG": "warn"}
    with ExitStack() as stack:
        svc = stack.enter_context(running("svc", [str(SVC), "serve", *gunicorn], port, env, scratch))
        django = stack.enter_context(
            running("baseline-django", [*baseline_command, *gunicorn], baseline_port, baseline_env, scratch)
        )
        pairs: list[Pair] = []
        print("svc vs the Django view returning the same bytes:", file=sys.stderr)
        for name, path in endpoints.items():
            url = svc.base_url + path
            for coding, headers, floor in (("plain", {}, "bytes"), ("gzip", GZIP, "gzip")):
                status, response_headers, body = get(svc.base_url, path, headers)
                if status != 200:
                    print(f"  {name}: HTTP {status}, skipped", file=sys.stderr)
                    break
                baseline = f"{django.base_url}/bench-baseline/{floor}/{len(body)}"
                pairs.append(
                    wrk.pair(
                        f"{name} {coding}",
                        len(body),
                        (url, headers, "GET", svc.process.pid),
                        (baseline, {}, "GET", django.process.pid),
                        "django",
                    )
                )
                if coding == "gzip":
                    conditional = {**headers, "If-None-Match": response_headers["etag"]}
                    for variant, method, variant_headers in (("HEAD", "HEAD", headers), ("304", "GET", conditional)):
                        pairs.append(
                            sequential_pair(
                                f"{name} gzip {variant}",
                                svc.base_url,
                                path,
                                method,
                                variant_headers,
                                svc.process.pid,
                                args,
                            )
                        )

        if args.endpoints:  # a look at some endpoints: no harvest, no nginx
            return {"pairs": pairs, "harvests": {}, "nginx": []}
        print("harvest bytes:", file=sys.stderr)
        _, _, formats_body = get(svc.base_url, f"{oai_path}?verb=ListMetadataFormats")
        harvests = {}
        for prefix in sorted({match.decode() for match in FORMAT.findall(formats_body)}):
            plain = harvest_bytes(svc.base_url, oai_path, prefix, {})
            coded = harvest_bytes(svc.base_url, oai_path, prefix, GZIP)
            harvests[prefix] = {"plain": plain, "gzip": coded, "ratio": round(coded["bytes"] / plain["bytes"], 4)}
            print(
                f"  {prefix:<14}{plain['bytes']:>12} B plain {coded['bytes']:>10} B gzip  "
                f"1/{plain['bytes'] / coded['bytes']:.1f} ({plain['pages']} pages)",
                file=sys.stderr,
            )

        nginx_pairs: list[Pair] = []
        if Path(NGINX).exists():
            page = every_endpoint["project"]
            static = scratch / "static"
            static.mkdir()
            extra = (
                f"    location = /bench-static/page.html {{\n        alias {static / 'page.html'};\n"
                '        default_type "text/html; charset=utf-8";\n        add_header Content-Encoding gzip;\n    }\n'
            )
            nginx = Nginx(scratch / "nginx", port, extra)
            stack.callback(nginx.stop)
            print("through the deploy/ nginx:", file=sys.stderr)
            # The page as nginx keeps it (its URLs name nginx's host), and the same bytes as a file.
            _, _, coded_page = get(nginx.base_url, page, GZIP)
            (static / "page.html").write_bytes(coded_page)
            _, hit_headers, static_bytes = get(nginx.base_url, "/bench-static/page.html", GZIP)
            assert static_bytes == coded_page
            nginx_pairs.append(
                wrk.pair(
                    "nginx warm page (gzip, cache hit)",
                    len(coded_page),
                    (nginx.base_url + page, GZIP, "GET", nginx.process.pid),
                    (nginx.base_url + "/bench-static/page.html", GZIP, "GET", nginx.process.pid),
                    "nginx static",
                )
            )
            _, hit_headers, _ = get(nginx.base_url, page, GZIP)
            print(f"  X-Cache-Status of the warm page: {hit_headers.get('x-cache-status')}", file=sys.stderr)
        return {"pairs": pairs, "harvests": harvests, "nginx": nginx_pairs}


def as_json(run: dict[str, Any]) -> dict[str, Any]:
    def pair(p: Pair) -> dict[str, Any]:
        return {
            **asdict(p),
            "load": asdict(p.load),
            "versus_load": asdict(p.versus_load),
            "ratio": p.ratio,
            "cpu_ratio": p.cpu_ratio,
        }

    return {**run, "pairs": [pair(p) for p in run["pairs"]], "nginx": [pair(p) for p in run["nginx"]]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--duration", type=int, default=3, help="seconds per measurement (default 3)")
    parser.add_argument("--rounds", type=int, default=3, help="alternations per pair, medians reported (default 3)")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument(
        "--endpoints",
        type=lambda names: set(names.split(",")),
        help="only these pairs (listing,project,listrecords-100,api-listing,sitemap); skips the harvest and nginx",
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    args.data_dir = args.data_dir.resolve()
    if shutil.which("wrk") is None:
        parser.error("wrk not found; install it (Debian: apt-get install -y wrk)")
    with tempfile.TemporaryDirectory(prefix="svc-wire-") as scratch:
        run = measure(args, Path(scratch))
    summary = {
        "min ratio, warm gzip endpoints vs Django (req/s)": min(
            p.ratio for p in run["pairs"] if p.name.endswith("gzip") and p.versus == "django"
        ),
        "min ratio, warm gzip endpoints vs Django (CPU per request)": min(
            p.cpu_ratio for p in run["pairs"] if p.name.endswith("gzip") and p.versus == "django"
        ),
        "HEAD and 304 vs GET (CPU per request)": {
            p.name: p.cpu_ratio for p in run["pairs"] if p.name.endswith(("HEAD", "304"))
        },
        "oai_datacite harvest with gzip / plain": run["harvests"].get("oai_datacite", {}).get("ratio"),
        "nginx warm page / nginx static (req/s)": run["nginx"][0].ratio if run["nginx"] else None,
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, **as_json(run)}, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
