"""The escaping every text and attribute value of the XML responses goes through (:func:`esc`, :func:`attribute`).

Responses are built as strings, not element trees, for speed, so this is
where well-formedness is guaranteed: characters illegal in XML 1.0 (C0
controls other than tab/newline/carriage return, lone surrogates, U+FFFE and
U+FFFF) are removed and markup characters escaped. The metadata writers
(``oai_datacite``, ``oai_dc``) put every value into their f-strings through
:func:`esc` or :func:`attribute` (tests/unit/test_xmltext.py checks their source
for it), so no value reaches the output unescaped. It also holds the
checks of the few simple types the schemas constrain (language tags, URIs).
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import quote

_ILLEGAL = "\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff"
_ILLEGAL_RE = re.compile(f"[{_ILLEGAL}]")

_LANGUAGE_RE = re.compile(r"[a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*")

# RFC 3986 characters, with valid percent escapes and at most one fragment.
_URI_CHARS = "A-Za-z0-9\\-._~:/?@!$&'()*+,;="
_URI_UNIT = f"(?:[{_URI_CHARS}]|%[0-9A-Fa-f]{{2}})"
_URI_RE = re.compile(f"{_URI_UNIT}+(?:#{_URI_UNIT}*)?")
# The usual URI (no percent escape, no fragment) in one pass over a character class, ten times quicker.
_PLAIN_URI_RE = re.compile(f"[{_URI_CHARS}]+")
_BAD_PERCENT_RE = re.compile(r"%(?![0-9A-Fa-f]{2})")
URI_SAFE = "-._~:/?@!$&'()*+,;=%"


def esc(value: str) -> str:
    """Escape for text or a double-quoted attribute; drop characters XML cannot carry."""
    if value.isprintable():
        if "&" not in value and "<" not in value and ">" not in value and '"' not in value:
            return value
    elif _ILLEGAL_RE.search(value) is not None:
        value = _ILLEGAL_RE.sub("", value)
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


@lru_cache(maxsize=4096)
def attribute(name: str, value: str | None) -> str:
    """`` name="value"`` with the value escaped; nothing for an absent or empty value (the schemas want none).

    Cached: attribute values are mostly types, languages and relations, which every record repeats.
    """
    if not value:
        return ""
    if value.isprintable() and "&" not in value and "<" not in value and ">" not in value and '"' not in value:
        return f' {name}="{value}"'
    return f' {name}="{esc(value)}"'


def clean(value: str) -> str:
    """Only drop the characters XML cannot carry (for values that are compared, not emitted)."""
    return _ILLEGAL_RE.sub("", value)


def is_language_tag(value: object) -> bool:
    """True for a syntactically valid ``xs:language`` (BCP 47 shape)."""
    return isinstance(value, str) and _LANGUAGE_RE.fullmatch(value) is not None


def is_uri(value: str) -> bool:
    """True for a URI reference made of RFC 3986 characters, as strict ``xs:anyURI`` checks want."""
    return _PLAIN_URI_RE.fullmatch(value) is not None or _URI_RE.fullmatch(value) is not None


def to_uri(value: str) -> str:
    """``value`` as a valid URI: characters outside RFC 3986 and stray ``%`` percent-encoded."""
    value = value.strip()
    if is_uri(value):
        return value
    base, hash_sign, fragment = value.partition("#")
    encoded = quote(clean(base), safe=URI_SAFE)
    if hash_sign:
        encoded += "#" + quote(clean(fragment), safe=URI_SAFE)
    return _BAD_PERCENT_RE.sub("%25", encoded)
