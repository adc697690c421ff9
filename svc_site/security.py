"""Security headers on every response, computed once from the configuration.

Django's SecurityMiddleware already sends ``X-Content-Type-Options: nosniff``,
``Referrer-Policy`` and ``Cross-Origin-Opener-Policy``; this adds the
Content-Security-Policy and the framing ban. Scripts run only from our own
origin (and the analytics origin when analytics is on): no inline scripts, no
``eval``. JSON-LD blocks are data, not scripts, so the policy allows them.

``Strict-Transport-Security`` goes only on responses to requests svc knows
came over HTTPS: gunicorn sets the scheme from ``X-Forwarded-Proto`` only
when ``SVC_TRUSTED_PROXY_HOPS`` is above 0, and RFC 6797 (section 7.2) says a
host must not send it over plain HTTP.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from svc_site import analytics
from svc_site.config import Config


def content_security_policy(config: Config) -> str:
    extra = analytics.origin(config)
    scripts = "'self'" + (f" {extra}" if extra else "")
    directives = {
        "default-src": "'none'",
        "script-src": scripts,
        "connect-src": scripts,
        "style-src": "'self'",
        "img-src": "'self' data:",
        "font-src": "'self'",
        "manifest-src": "'self'",
        "base-uri": "'none'",
        "form-action": "'self'",
        "frame-ancestors": "'none'",
    }
    return "; ".join(f"{name} {value}" for name, value in directives.items())


class SecurityHeadersMiddleware:
    """Adds the headers of :func:`headers` to every response, and HSTS to those that came over HTTPS.

    Computed once, when the middleware chain is built from the configuration
    (start-up; a test client's first request): no cache keyed on a settings object.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        config = settings.SVC
        self.headers = headers(config)
        self.hsts = f"max-age={config.hsts_max_age}"

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        for name, value in self.headers:
            response.headers.setdefault(name, value)
        if request.is_secure():
            response.headers.setdefault("Strict-Transport-Security", self.hsts)
        return response


def headers(config: Config) -> tuple[tuple[str, str], ...]:
    """The security headers every response carries under ``config``."""
    return (
        ("Content-Security-Policy", content_security_policy(config)),
        ("X-Frame-Options", "DENY"),
        ("Permissions-Policy", "camera=(), microphone=(), geolocation=()"),
    )
