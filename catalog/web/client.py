"""Who sent a request: the client address behind trusted reverse proxies.

Framework-free: takes the WSGI/Django ``REMOTE_ADDR`` and ``X-Forwarded-For``
values, so that logging, tracing and rate limiting agree on one address.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any


def client_address(remote_addr: str, forwarded_for: str | None, trusted_hops: int) -> str:
    """The TCP peer, or the ``trusted_hops``-th ``X-Forwarded-For`` entry from the right.

    Each trusted proxy appends the address it received the request from, so
    the n-th entry from the right is the one the outermost trusted proxy saw;
    entries further left are whatever the client claimed. A header with fewer
    entries than trusted hops was written by trusted proxies only, so its
    leftmost entry is used. A missing or malformed entry falls back to the peer.
    """
    if trusted_hops <= 0 or not forwarded_for:
        return remote_addr
    entries = [entry.strip() for entry in forwarded_for.split(",")]
    candidate = entries[-min(trusted_hops, len(entries))]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return remote_addr


def request_client(environ: Mapping[str, Any], trusted_hops: int) -> str:
    """:func:`client_address` of a WSGI environ (Django's ``request.META``)."""
    return client_address(environ.get("REMOTE_ADDR", ""), environ.get("HTTP_X_FORWARDED_FOR"), trusted_hops)
