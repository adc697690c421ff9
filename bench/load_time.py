#!/usr/bin/env python3
"""Time ``load_catalog`` on a data directory, in-process, and report the memory it takes.

    python bench/load_time.py DIR [--repeat N] [--json FILE]

Prints the counts, the wall time of each load (the first one reads from the page
cache like every later one once the files were read once), the resident set
after the load and the peak resident set of the process.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

from catalog.domain.loader import load_catalog


def current_rss_kib() -> int:
    """VmRSS of this process, from /proc (kB as the kernel reports them)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--repeat", type=int, default=1, help="load this many times (default 1), report each")
    parser.add_argument("--json", type=Path, help="also write the figures to this file as JSON")
    args = parser.parse_args(argv)

    rss_before = current_rss_kib()
    timings = []
    catalog = None
    for _ in range(max(1, args.repeat)):
        catalog = None
        gc.collect()
        started = time.perf_counter()
        catalog = load_catalog(args.data_dir)
        timings.append(time.perf_counter() - started)
    assert catalog is not None
    gc.collect()
    result: dict[str, Any] = {
        "data_dir": str(args.data_dir),
        "counts": catalog.counts(),
        "problems": len(catalog.problems),
        "load_seconds": [round(t, 3) for t in timings],
        "rss_before_mib": round(rss_before / 1024, 1),
        "rss_after_mib": round(current_rss_kib() / 1024, 1),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    counts = ", ".join(f"{n} {kind}" for kind, n in result["counts"].items())
    print(f"{args.data_dir}: {counts}; {result['problems']} problems")
    print("load: " + ", ".join(f"{t:.3f} s" for t in timings))
    print(
        f"RSS before {result['rss_before_mib']} MiB, after load {result['rss_after_mib']} MiB, "
        f"peak {result['peak_rss_mib']} MiB"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
