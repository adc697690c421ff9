"""`svc healthcheck`: a probe for container health checks and monitoring."""

from __future__ import annotations

import argparse
import math
import sys
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

TIMEOUT_SECONDS = 3.0
# Listen addresses that mean "every address": the probe asks the local one.
_EVERY_ADDRESS = frozenset({"0.0.0.0", "::"})


def default_url() -> str:
    """/healthz of svc serve as configured (FRAMEWORK_SITE_ADDR): an operator who moves the port moves the probe."""
    host, port = settings.SVC.site_host, settings.SVC.site_port
    host = "localhost" if host in _EVERY_ADDRESS else host
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/healthz"


def health_url(value: str) -> str:
    """--url: an http:// or https:// URL with a host; a file, data or FTP URL is a mistake, never probed."""
    parts = urlsplit(value)
    try:
        has_port = parts.port != 0  # no port: the scheme's
    except ValueError:  # a port that is not a number from 0 to 65535
        has_port = False
    if parts.scheme not in {"http", "https"} or not parts.hostname or not has_port:
        raise argparse.ArgumentTypeError(f"{value!r} is not an http:// or https:// URL with a host")
    return value


def timeout_seconds(value: str) -> float:
    """--timeout: a finite number of seconds above 0 (0, negative, nan or inf would never wait as asked)."""
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds above 0")
    return seconds


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
        url = default_url()
        parser.add_argument(
            "--url",
            type=health_url,
            default=url,
            help=f"http(s) URL to probe (default {url}: /healthz on the port of FRAMEWORK_SITE_ADDR)",
        )
        parser.add_argument(
            "--timeout",
            type=timeout_seconds,
            default=TIMEOUT_SECONDS,
            metavar="SECONDS",
            help=f"seconds to wait, above 0 (default {TIMEOUT_SECONDS:g})",
        )

    def handle(self, *args: Any, url: str, timeout: float, **options: Any) -> None:
        reason = probe(url, timeout)
        if reason:
            self.stderr.write(f"unhealthy: {reason}")
            sys.exit(1)
        self.stdout.write(f"healthy: {url}")
