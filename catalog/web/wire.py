"""Bytes on the wire: content-coding negotiation, entity tags, conditional requests.

Framework-free (plain strings and bytes), so the rules are one implementation
that the site's middleware applies to every surface. The standards are RFC 9110
§12.5.3 (Accept-Encoding), §8.8.3 (ETag) and §13.1-13.2 (preconditions).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
from email.utils import parsedate_to_datetime

import brotli

# Codings served, best first: on equal q-values the smaller one wins.
CODINGS = ("br", "gzip")
IDENTITY = "identity"
# Below this a compressed body saves less than the coding costs (and may grow).
MIN_COMPRESS_BYTES = 1024
# Fixed levels: each body is compressed once and kept, so the middle levels pay.
GZIP_LEVEL = 6
BROTLI_QUALITY = 6

COMPRESSIBLE_TYPES = (
    "text/",
    "application/json",
    "application/xml",
    "application/x-bibtex",
    "application/x-research-info-systems",
    "image/svg+xml",
)
COMPRESSIBLE_SUFFIXES = ("+json", "+xml")


def _q_value(parameters: list[str]) -> float | None:
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "q":
            try:
                q = float(value.strip())
            except ValueError:
                return None
            return q if 0 <= q <= 1 else None
    return 1.0


@functools.lru_cache(maxsize=512)  # clients send few distinct headers; a warm response should not parse one
def negotiate(accept_encoding: str | None) -> str:
    """The coding to send: ``br``, ``gzip`` or ``identity``.

    No header means the client asked for nothing: identity (the safe reading
    of §12.5.3 that every server uses). ``*`` covers the codings not named;
    ``q=0`` refuses. If identity is refused too and nothing else is acceptable,
    identity is still sent (§12.5.3 allows it instead of a 415/406).
    """
    if accept_encoding is None:
        return IDENTITY
    weights: dict[str, float] = {}
    for item in accept_encoding.split(","):
        coding, *parameters = item.split(";")
        coding = coding.strip().lower()
        if not coding:
            continue
        q = _q_value(parameters)
        if q is not None:
            weights["gzip" if coding == "x-gzip" else coding] = q
    star = weights.get("*")
    best, best_q = IDENTITY, 0.0
    for coding in CODINGS:
        q = weights.get(coding, star if star is not None else 0.0)
        if q > best_q:
            best, best_q = coding, q
    return best


def is_compressible(content_type: str) -> bool:
    media_type = content_type.split(";", 1)[0].strip().lower()
    return media_type.startswith(COMPRESSIBLE_TYPES) or media_type.endswith(COMPRESSIBLE_SUFFIXES)


def encode(body: bytes, coding: str) -> bytes:
    """``body`` in ``coding``; deterministic (gzip's mtime is 0), so equal bodies give equal bytes."""
    if coding == "gzip":
        return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)
    if coding == "br":
        compressed: bytes = brotli.compress(body, quality=BROTLI_QUALITY)
        return compressed
    return body


def entity_tag(data_version: str, body: bytes, weak: bool = False) -> str:
    """An entity tag of ``body`` served from ``data_version``: equal bytes, equal tag, on every replica."""
    digest = hashlib.blake2b(body, digest_size=8).hexdigest()
    return f'{"W/" if weak else ""}"{data_version}-{digest}"'


def coded_tag(tag: str, coding: str) -> str:
    """The tag of the ``coding`` variant: another representation needs another strong tag (§8.8.3)."""
    return tag if coding == IDENTITY else f'{tag[:-1]}-{coding}"'


def _opaque(tag: str) -> str:
    tag = tag.strip()
    return tag[2:] if tag.startswith("W/") else tag


def none_match(if_none_match: str, tag: str) -> bool:
    """Whether ``If-None-Match`` names ``tag`` (weak comparison, §13.1.2), or is ``*``."""
    if if_none_match.strip() == "*":
        return True
    wanted = _opaque(tag)
    return any(_opaque(candidate) == wanted for candidate in if_none_match.split(","))


def not_modified_since(if_modified_since: str, last_modified: str) -> bool:
    """Whether ``Last-Modified`` is no later than ``If-Modified-Since``; an unreadable date never matches."""
    try:
        return parsedate_to_datetime(last_modified) <= parsedate_to_datetime(if_modified_since)
    except (TypeError, ValueError, IndexError, OverflowError):
        return False


def is_not_modified(
    if_none_match: str | None, if_modified_since: str | None, tag: str | None, last_modified: str | None
) -> bool:
    """Whether a GET or HEAD with these preconditions is answered 304 (§13.2.2).

    ``If-None-Match`` decides when present and the response has a tag;
    ``If-Modified-Since`` is only consulted without it.
    """
    if if_none_match is not None:
        return tag is not None and none_match(if_none_match, tag)
    if if_modified_since is not None and last_modified is not None:
        return not_modified_since(if_modified_since, last_modified)
    return False


def cache_control(max_age: int, stale_while_revalidate: int) -> str:
    """A shared cache may keep the response ``max_age`` s and serve it stale while it revalidates."""
    value = f"public, max-age={max_age}"
    return f"{value}, stale-while-revalidate={stale_while_revalidate}" if stale_while_revalidate else value
