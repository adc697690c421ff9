"""The site's own origin (scheme and host) as a request names it.

Framework-free: any request object with ``scheme`` and ``get_host()`` (Django's
``HttpRequest`` has both, with the proxy settings applied), so that the pages'
canonical links, the JSON-LD ids and the sitemap all name one origin.
"""

from __future__ import annotations

from typing import Protocol


class _HostRequest(Protocol):
    @property
    def scheme(self) -> str | None: ...

    def get_host(self) -> str: ...


def base_url(request: _HostRequest) -> str:
    """``scheme://host`` of the request, without a trailing slash."""
    return f"{request.scheme}://{request.get_host()}"
