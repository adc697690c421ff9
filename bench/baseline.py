#!/usr/bin/env python3
"""Run a baseline app under exactly the gunicorn settings of `svc serve`.

    python bench/baseline.py {wsgi,django} --bind HOST:PORT [--workers N]

``wsgi``: a minimal WSGI app answering ``GET /healthz`` the way svc does (200,
empty body), the floor for svc's /healthz. ``django``: svc's Django settings
with a single view returning ``/bench-baseline/bytes/<size>`` bytes, the floor
for a page or an OAI response of that size.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from healthz.wsgi import with_healthz
from svc_site.server import GunicornServer, gunicorn_options

# The Django baseline's settings and URLs live in the `bench` package beside svc's.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def healthz_app(environ: dict, start_response: Callable) -> Iterable[bytes]:
    if environ.get("PATH_INFO") == "/healthz":
        start_response("200 OK", [("Content-Length", "0"), ("Cache-Control", "no-store")])
    else:
        start_response("404 Not Found", [("Content-Length", "0")])
    return [b""]


def django_app() -> Callable:
    """Wrapped like svc's own WSGI app, so it answers /healthz the same way (the readiness probe)."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.baseline_settings"
    from django.core.wsgi import get_wsgi_application

    return with_healthz(get_wsgi_application())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=("wsgi", "django"))
    parser.add_argument("--bind", required=True, help="HOST:PORT")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    app = healthz_app if args.kind == "wsgi" else django_app()
    GunicornServer(lambda: app, gunicorn_options(args.bind, args.workers)).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
