"""`GET /healthz` answered in front of Django.

Load balancers probe often; the answer must not depend on middleware,
templates, rate limits or the catalogue, and must stay cheap under load, so it
is a plain WSGI wrapper that never enters Django for this one path.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

HEALTHZ_PATH = "/healthz"


def with_healthz(app: WSGIApplication) -> WSGIApplication:
    def application(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == HEALTHZ_PATH and environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
            start_response("200 OK", [("Content-Length", "0"), ("Cache-Control", "no-store")])
            return [b""]
        return app(environ, start_response)

    return application
