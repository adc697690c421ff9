"""The site's own origin (scheme and host) as a request names it.

Framework-free: any request object with ``scheme`` and ``get_host()`` (Django's
``HttpRequest`` has both, with the proxy settings applied), so that the pages'
canonical links, the JSON-LD ids and the sitemap all name one origin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class _HostRequest(Protocol):
    @property
    def scheme(self) -> str | None: ...

    def get_host(self) -> str: ...


def base_url(request: _HostRequest) -> str:
    """``scheme://host`` of the request, without a trailing slash."""
    return f"{request.scheme}://{request.get_host()}"


def origin_key(meta: Mapping[str, Any]) -> tuple[Any, ...]:
    """The request values absolute URLs in a body (canonical links, JSON-LD, sitemap) are built from.

    The scheme (the server has already turned a trusted ``X-Forwarded-Proto``
    into it) and the ``Host`` header, else the server's name and port: what
    the framework builds the origin from (``X-Forwarded-Host`` is not trusted,
    so a fresh one per request must not make a fresh entry). Raw values rather
    than a validated host: the framework has already validated it, and equal
    raw values give equal origins.
    """
    scheme, host = meta.get("wsgi.url_scheme"), meta.get("HTTP_HOST")
    return (scheme, host) if host else (scheme, None, meta.get("SERVER_NAME"), meta.get("SERVER_PORT"))
