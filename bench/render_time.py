"""Cold and warm render time of one project page, in-process, and warm speed against a baseline.

Each run is a fresh Python process that loads the catalogue and does the
start-up work `svc serve` does before forking (URLconf imported, templates
compiled, listing index built, heap frozen out of the collector's reach),
then requests the project page through
Django's test client: the first request builds the page's view model and
renders it ("cold"), the next ones are served from the per-catalogue page
cache ("warm"). A second figure ("cold, templates not compiled") skips the
start-up template compilation, as a worker without that warm-up would.

Then, in the same process, the warm project page and the first listing page
are compared with a baseline Django view that returns bytes of the same size
through the same middleware (interleaved rounds, best round per URL): the
ratio is baseline time / page time, i.e. the requests/s ratio.

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
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = PROJECT_ROOT.parent / "shared" / "corpus" / "dsp"


def add_baseline_route() -> None:
    """A view returning N bytes, in front of the real URLconf (bench process only)."""
    from django.http import HttpRequest, HttpResponse
    from django.urls import path

    import svc_site.urls

    bodies: dict[int, bytes] = {}

    def baseline(request: HttpRequest, size: int) -> HttpResponse:
        body = bodies.get(size) or bodies.setdefault(size, b"x" * size)
        return HttpResponse(body, content_type="text/html; charset=utf-8")

    svc_site.urls.urlpatterns.insert(0, path("bench-baseline/<int:size>", baseline))


def compare_with_baseline(client, urls: list[str], rounds: int = 10, requests: int = 200) -> dict[str, float]:
    """Best per-request time of each URL and of a same-size baseline, interleaved."""
    pairs = {url: f"/bench-baseline/{len(client.get(url).content)}" for url in urls}
    best = {url: float("inf") for pair in pairs.items() for url in pair}
    for _ in range(rounds):
        for url in best:
            start = time.perf_counter()
            for _ in range(requests):
                client.get(url)
            best[url] = min(best[url], (time.perf_counter() - start) / requests)
    return {url: best[baseline] / best[url] for url, baseline in pairs.items()} | {
        f"{url} µs": best[url] * 1e6 for url in best
    }


def measure_once(data_dir: str, shortcode: str, compile_templates: bool, warm_requests: int) -> dict[str, float]:
    """Runs inside the child process."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "svc_site.settings")
    os.environ["FRAMEWORK_SITE_ROOT"] = tempfile.mkdtemp(prefix="svc-bench-site-")
    os.environ["RUST_LOG"] = "error"
    import django

    django.setup()
    from django.test import Client
    from django.urls import get_resolver

    from catalog import runtime
    from catalog.domain.loader import load_catalog
    from catalog.pages import views
    from svc_site.assets import ensure_built
    from svc_site.server import freeze_heap

    ensure_built()
    add_baseline_route()
    runtime.install(load_catalog(data_dir))
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
    result: dict[str, Any] = {
        "cold_ms": cold * 1000,
        "warm_ms": statistics.median(warm) * 1000,
        "bytes": len(response.content),
    }
    if compile_templates:
        result["ratios"] = compare_with_baseline(client, [url, "/projects"])
    return result


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
        if mode == "compiled":
            for url in (f"/projects/{args.shortcode}", "/projects"):
                ratios = sorted(r["ratios"][url] for r in results)
                print(
                    f"  {url}: warm requests/s relative to a same-size baseline view: "
                    f"median {statistics.median(ratios):.2f} (min {ratios[0]:.2f}, max {ratios[-1]:.2f})"
                )


if __name__ == "__main__":
    sys.path.insert(0, str(PROJECT_ROOT))
    main()
