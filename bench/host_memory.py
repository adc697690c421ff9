#!/usr/bin/env python3
"""Worker memory under many distinct ``Host`` headers (issue 25): nothing a client picks may grow it without a bound.

    python bench/host_memory.py --data-dir DIR [--requests 10000] [--json FILE]

With the default ``SVC_ALLOWED_HOSTS=*`` any client picks the origin absolute
URLs are built from. Starts `svc serve --workers 1` (every request lands in
the process measured), sends ``--requests`` requests over a keep-alive
connection, each with a distinct host, in turn for the catalogue's JSON-LD,
the project listing and robots.txt, and reports the worker's PSS and RSS
before and after, against the response cache's budget.
tests/test_bounded_memory.py asserts the bound with 2,000 hosts; this
measures it at any number.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.run import SVC, UNTHROTTLED, free_port, memory, running
from catalog.domain.memo import PAGE_CACHE_BYTES

PATHS = ("/catalogue.jsonld", "/projects", "/robots.txt")
WARM_HOSTS = 60


def request_as(connection: http.client.HTTPConnection, number: int, prefix: str) -> None:
    host, path = f"{prefix}{number}.example", PATHS[number % len(PATHS)]
    connection.request("GET", path, headers={"Host": host})
    response = connection.getresponse()
    response.read()
    if response.status != 200:
        raise SystemExit(f"{path} as {host}: {response.status}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--requests", type=int, default=10_000, help="requests, each with its own Host")
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
    with (
        tempfile.TemporaryDirectory() as log_dir,
        running("svc", [str(SVC), "serve", "--workers=1"], port, env, Path(log_dir)) as svc,
    ):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for number in range(WARM_HOSTS):  # warm: code paths, first renders, allocator arenas
            request_as(connection, number, "warm-")
        before = memory(svc.process.pid)["workers"][0]
        started = time.perf_counter()
        for number in range(args.requests):
            request_as(connection, number, "h")
        seconds = time.perf_counter() - started
        after = memory(svc.process.pid)["workers"][0]
        connection.close()
    budget_mib = PAGE_CACHE_BYTES / 2**20
    result = {
        "requests": args.requests,
        "seconds": round(seconds, 1),
        "worker_before": before,
        "worker_after": after,
        "pss_growth_mib": round(after["pss_mib"] - before["pss_mib"], 1),
        "cache_budget_mib": budget_mib,
    }
    print(
        f"{args.requests} requests with distinct hosts in {seconds:.1f} s; worker PSS "
        f"{before['pss_mib']:.1f} -> {after['pss_mib']:.1f} MiB, RSS {before['rss_mib']:.1f} -> "
        f"{after['rss_mib']:.1f} MiB (response cache budget {budget_mib:.0f} MiB)"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
