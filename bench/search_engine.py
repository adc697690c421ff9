"""Record search over HTTP on a stamped data directory: p95 per query class, the index's size and build time.

    .venv/bin/python -m bench.make_corpus --records 100000 /tmp/c100k
    .venv/bin/svc stamp /tmp/c100k --activate-in 0
    .venv/bin/python -m bench.search_engine /tmp/c100k --repeat 20
    .venv/bin/python -m bench.search_engine /tmp/c1m --repeat 10 --stamped   # no second build: the stamped index
    # another version's server (a checkout of it, stamped with it) under the same client, for a ratio:
    .venv/bin/python -m bench.search_engine /tmp/c1m-old --repeat 10 --stamped --server-code /tmp/old-checkout

Starts ``svc serve --workers 1`` on the directory and asks ``/records`` for one-word, two-word, phrase and typo
queries (facet counts included: the page computes them), after one unmeasured round of them all (warm-up); ``mix``
is the median and p95 over every measured request of the four classes (each class asked as often). The
response cache keys a page by its query parameters as sent, so each measured request spells its query with its own
number of trailing spaces (the search reads the same words): none is a replayed answer. Prints JSON: per class the
median and p95 in ms and each query's match count;
the search index's size on disk and the time to build it (what it adds to ``svc stamp``); with ``--stamped``, the
size of the index ``svc stamp`` wrote (no second build). Each class also gives the load average (1 min) before and
after it, and the server's CPU time per request (its processes' user and system time over the class's requests, at
the clock tick's resolution): on a busy machine the wall times mean little, the CPU time still does. ``memory``: the
PSS of master and worker after the warm-up and after the run (anonymous and file-backed apart: the snapshot's and
the index's pages are page cache, shared by every process).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from bench.scale import memory_split
from catalog.domain import engine
from catalog.domain.snapshot import open_catalog

CLASSES = {
    "one-word": ["folio", "holzschnitt", "photograph", "map", "recording"],
    "two-word": ["folio map", "holzschnitt seite", "letter fragment", "sheet register", "photograph entry"],
    "phrase": ['"folio 1"', '"letter 1"', '"map 2"', '"sheet 3"', '"fragment 4"'],
    "typo": ["holzscnitt", "fotograph", "fragmnet", "photogarph", "recordnig"],
}


def index_figures(data_dir: Path) -> dict[str, Any]:
    catalog = open_catalog(data_dir)
    with tempfile.TemporaryDirectory() as directory:
        began = time.perf_counter()
        engine.build_indexes(catalog, Path(directory), catalog.data_version)
        seconds = time.perf_counter() - began
        size = sum(path.stat().st_size for path in Path(directory).rglob("*") if path.is_file())
    return {"records": sum(len(t) for t in catalog.records.values()), "build_s": round(seconds, 1), "bytes": size}


def stamped_figures(data_dir: Path) -> dict[str, Any] | None:
    """The stamped index's size (None: there is none, as before the search engine)."""
    directory = engine.index_directory(data_dir).resolve()
    if not (directory / engine.META).is_file():
        return None
    meta = json.loads((directory / engine.META).read_text())
    size = sum(path.stat().st_size for path in directory.rglob("*") if path.is_file())
    return {"records": sum(n for _, n in meta["records"]), "bytes": size, "ordered": meta.get("ordered")}


def _tree_cpu_ms(pid: int) -> float:
    """User and system CPU time of ``pid`` and its descendants (the server's master and workers), in ms."""
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rpartition(")")[2].split()
            total += (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(child) for child in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return total


def _match_count(connection: http.client.HTTPConnection, query: str) -> int | None:
    """How many records the API finds for ``query`` (None: a version whose API does not search)."""
    connection.request("GET", "/api/v2/records?" + urlencode({"q": query}))
    response = connection.getresponse()
    body = response.read()
    count = json.loads(body).get("count") if response.status == 200 else None
    return count if isinstance(count, int) else None


def http_figures(data_dir: Path, repeat: int, server_code: Path | None = None) -> dict[str, Any]:
    """Each class's times; ``server_code``: the server runs that checkout's code (PYTHONPATH), not this one's."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "SVC_DATA_DIR": str(data_dir), "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{port}"}
    if server_code is not None:
        env["PYTHONPATH"] = str(server_code.resolve())
    svc = str(Path(sys.executable).with_name("svc"))
    server = subprocess.Popen([svc, "serve", "--workers", "1"], env=env, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 900  # ten million records from a cold page cache take minutes
        while True:
            try:
                probe_connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                probe_connection.request("GET", "/healthz")
                probe_connection.getresponse().read()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"svc serve on {data_dir} did not start (exit status {server.poll()})") from None
                time.sleep(0.2)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        figures: dict[str, Any] = {}
        for queries in CLASSES.values():  # warm-up: one unmeasured round (the index's pages into the page cache)
            for query in queries:
                connection.request("GET", "/records?" + urlencode({"q": query}))
                connection.getresponse().read()
        memory = {"after_warm_up": memory_split(server.pid)}
        every_time: list[float] = []
        for name, queries in CLASSES.items():
            load_before = os.getloadavg()[0]
            cpu_before = _tree_cpu_ms(server.pid)
            times = []
            for spaces in range(1, repeat + 1):
                for query in queries:
                    began = time.perf_counter()
                    connection.request("GET", "/records?" + urlencode({"q": query + " " * spaces}))
                    response = connection.getresponse()
                    response.read()
                    times.append((time.perf_counter() - began) * 1000)
                    assert response.status == 200, (query, response.status)
            cpu_ms = (_tree_cpu_ms(server.pid) - cpu_before) / len(times)
            every_time += times
            counts = {query: _match_count(connection, query) for query in queries}
            figures[name] = {
                "median_ms": round(statistics.median(times), 1),
                "p95_ms": _p95(times),
                "matches": counts,
                "server_cpu_ms_per_request": round(cpu_ms, 1),
                "load_1min": [round(load_before, 1), round(os.getloadavg()[0], 1)],
            }
        memory["after_run"] = memory_split(server.pid)
        mix = {"median_ms": round(statistics.median(every_time), 1), "p95_ms": _p95(every_time)}
        return {"classes": figures, "mix": mix, "memory": memory}
    finally:
        server.terminate()
        server.wait(30)


def _p95(times: list[float]) -> float:
    ordered = sorted(times)
    return round(ordered[max(0, int(len(ordered) * 0.95) - 1)], 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--stamped", action="store_true", help="the stamped index's size; build no other")
    parser.add_argument("--server-code", type=Path, help="serve with this checkout's code (stamped with it)")
    args = parser.parse_args(argv)
    index = stamped_figures(args.data_dir) if args.stamped else index_figures(args.data_dir)
    figures = http_figures(args.data_dir, args.repeat, args.server_code)
    print(json.dumps({"index": index, "http": figures}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
