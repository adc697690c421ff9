#!/usr/bin/env python3
"""Worker memory under many distinct long query strings, against the page caches' budget.

    python bench/cache_memory.py --data-dir DIR [--requests 100000] [--clients 4] [--json FILE]

Starts `svc serve --workers 1` (one worker, so every request lands in the
process measured; limits out of reach, as in run.py), sends ``--requests``
distinct URLs over keep-alive connections — half OAI ``GetRecord`` with a
1.9 KB identifier (well-formed, so cacheable), half ``/projects?q=`` with a
distinct 400-character search text — and reports the worker's RSS before and
after, and its growth against the budget of the response cache (the
application state's, 16 MiB, shared by OAI responses and pages).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.run import SVC, UNTHROTTLED, free_port, memory, running
from catalog.domain.memo import PAGE_CACHE_BYTES

CACHES = 1  # the application state's response cache: OAI responses and pages


def path(number: int) -> str:
    if number % 2:
        identifier = quote(f"oai:dasch.swiss:{number:09d}/" + "i" * 1900, safe="")
        return f"/dpe/oai?verb=GetRecord&metadataPrefix=oai_dc&identifier={identifier}"
    return "/projects?q=" + quote(f"{number:09d} " + "q" * 390, safe="")


def send(base_url: str, numbers: range, statuses: dict[int, int], lock: threading.Lock) -> None:
    host, port = base_url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    seen: dict[int, int] = {}
    for number in numbers:
        connection.request("GET", path(number))
        response = connection.getresponse()
        response.read()
        seen[response.status] = seen.get(response.status, 0) + 1
    connection.close()
    with lock:
        for status, count in seen.items():
            statuses[status] = statuses.get(status, 0) + count


def worker_rss(pid: int) -> float:
    return memory(pid)["workers"][0]["rss_mib"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    port = free_port()
    env = {
        **os.environ,
        **UNTHROTTLED,
        "SVC_OAI_MAX_CONCURRENT": "1000",
        "SVC_DATA_DIR": str(args.data_dir),
        "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{port}",
        "RUST_LOG": "warn",
    }
    with (
        tempfile.TemporaryDirectory() as log_dir,
        running("svc", [str(SVC), "serve", "--workers=1"], port, env, Path(log_dir)) as svc,
    ):
        for number in range(-200, 0):  # warm: first renders, templates, search index
            send(svc.base_url, range(number, number + 1), {}, threading.Lock())
        before = worker_rss(svc.process.pid)
        statuses: dict[int, int] = {}
        lock = threading.Lock()
        started = time.perf_counter()
        threads = [
            threading.Thread(target=send, args=(svc.base_url, range(n, args.requests, args.clients), statuses, lock))
            for n in range(args.clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - started
        after = worker_rss(svc.process.pid)
    budget_mib = CACHES * PAGE_CACHE_BYTES / 2**20
    result = {
        "requests": args.requests,
        "seconds": round(seconds, 1),
        "statuses": statuses,
        "worker_rss_before_mib": before,
        "worker_rss_after_mib": after,
        "growth_mib": round(after - before, 1),
        "cache_budget_mib": budget_mib,
    }
    print(
        f"{args.requests} distinct long URLs in {seconds:.1f} s (statuses {statuses}); worker RSS "
        f"{before:.1f} -> {after:.1f} MiB: +{after - before:.1f} MiB against a cache budget of {budget_mib:.0f} MiB"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
