"""`svc healthcheck`: a probe for container health checks and monitoring."""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

DEFAULT_URL = "http://localhost:8080/healthz"
TIMEOUT_SECONDS = 3.0


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer, not a hop: a probe that followed it would report another URL's health."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def probe(url: str, timeout: float = TIMEOUT_SECONDS) -> str | None:
    """None when ``url`` itself answers HTTP 200, else a one-line reason (a 3xx names its Location)."""
    location = None
    try:
        with _OPENER.open(url, timeout=timeout) as response:
            status = response.status
    except urllib.error.HTTPError as error:
        status, location = error.code, error.headers.get("Location")
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        return f"{url}: {reason}"
    if status == 200:
        return None
    return f"{url}: HTTP {status}" + (f" redirect to {location!r}" if 300 <= status < 400 else "")


class Command(BaseCommand):
    # Django's system checks import every URLconf and view (rdflib, numpy, the templates): half a second of
    # every run spent on the web site, which this offline command never serves.
    requires_system_checks = ()
    help = "GET a health URL without following redirects; exit 0 on HTTP 200, 1 otherwise with a one-line reason."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--url", default=DEFAULT_URL, help=f"URL to probe (default {DEFAULT_URL})")
        parser.add_argument("--timeout", type=float, default=TIMEOUT_SECONDS, help="seconds to wait")

    def handle(self, *args: Any, url: str, timeout: float, **options: Any) -> None:
        reason = probe(url, timeout)
        if reason:
            self.stderr.write(f"unhealthy: {reason}")
            sys.exit(1)
        self.stdout.write(f"healthy: {url}")
