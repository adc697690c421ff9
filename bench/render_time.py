"""Cold and warm render time of one project page, in-process.

Each run is a fresh Python process that loads the catalogue and does the
start-up work `svc serve` does before forking (URLconf imported, templates
compiled, listing index built, heap frozen out of the collector's reach),
then requests the project page through
Django's test client: the first request builds the page's view model and
renders it ("cold"), the next ones are served from the per-catalogue page
cache ("warm"). A second figure ("cold, templates not compiled") skips the
start-up template compilation, as a worker without that warm-up would.

    .venv/bin/python bench/render_time.py [--data-dir DIR] [--shortcode 0803] [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = PROJECT_ROOT.parent / "shared" / "corpus" / "dsp"


def measure_once(data_dir: str, shortcode: str, compile_templates: bool, warm_requests: int) -> dict[str, float]:
    """Runs inside the child process."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "svc_site.settings")
    os.environ["FRAMEWORK_SITE_ROOT"] = tempfile.mkdtemp(prefix="svc-bench-site-")
    os.environ["RUST_LOG"] = "error"
    import django

    django.setup()
    from django.test import Client
    from django.urls import get_resolver

    from catalog import store, views
    from catalog.assets import ensure_built
    from catalog.loader import load_catalog
    from svc_site.server import freeze_heap

    ensure_built()
    store.install(load_catalog(data_dir))
    if compile_templates:
        views.warm_up()
    else:
        get_resolver().url_patterns  # noqa: B018 (imports only, as a plain Django process would)
    client = Client()
    client.get("/about")  # builds the middleware chain; not part of the page's cost
    freeze_heap(None, None)  # as svc serve does before forking its workers
    url = f"/projects/{shortcode}"
    start = time.perf_counter()
    response = client.get(url)
    cold = time.perf_counter() - start
    assert response.status_code == 200, response.status_code
    warm = []
    for _ in range(warm_requests):
        start = time.perf_counter()
        client.get(url)
        warm.append(time.perf_counter() - start)
    return {"cold_ms": cold * 1000, "warm_ms": statistics.median(warm) * 1000, "bytes": len(response.content)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    parser.add_argument("--shortcode", default="0803")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--child", choices=["compiled", "uncompiled"], help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        result = measure_once(args.data_dir, args.shortcode, args.child == "compiled", warm_requests=200)
        print(json.dumps(result))
        return

    for mode, title in (("compiled", "after svc serve's start-up warm-up"), ("uncompiled", "templates not compiled")):
        results = []
        for _ in range(args.runs):
            output = subprocess.run(
                [sys.executable, __file__, "--child", mode, "--data-dir", args.data_dir, "--shortcode", args.shortcode],
                capture_output=True,
                text=True,
                check=True,
                cwd=PROJECT_ROOT,
            ).stdout
            results.append(json.loads(output.strip().splitlines()[-1]))
        cold = sorted(r["cold_ms"] for r in results)
        warm = sorted(r["warm_ms"] for r in results)
        print(
            f"/projects/{args.shortcode} ({results[0]['bytes']} bytes), {title}: "
            f"cold median {statistics.median(cold):.1f} ms (min {cold[0]:.1f}, max {cold[-1]:.1f}); "
            f"warm median {statistics.median(warm) * 1000:.0f} µs over {args.runs} processes"
        )


if __name__ == "__main__":
    sys.path.insert(0, str(PROJECT_ROOT))
    main()
