"""Lone UTF-16 surrogates in parsed JSON: where they are, and the same value with U+FFFD instead.

JSON may escape a lone surrogate (``"\\ud800"``); Python's parser then gives a
str that no UTF-8 encoder accepts, so one such string fails every page, API
answer and the packing of the records. UTF-8 text cannot carry a surrogate
(decoding refuses it), so only such an escape brings one in: a text without
one (:func:`may_hold_surrogates`, nearly free) is never walked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

REPLACEMENT = "\ufffd"

# The escape of a code point U+D800..U+DFFF; a valid pair parses to one character and is repaired to nothing.
_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")

JsonPath = tuple[str | int, ...]  # keys and positions from the root


def may_hold_surrogates(text: str) -> bool:
    """Whether ``text`` (raw JSON) has an escape of a surrogate, paired or not (else nothing to repair).

    Most data files hold no backslash at all, and looking for one character is
    a memchr; the regular expression runs only over a text that has one.
    """
    return "\\" in text and _ESCAPE.search(text) is not None


def repair_text(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (the same object when it has none)."""
    return _SURROGATE.sub(REPLACEMENT, text) if _SURROGATE.search(text) else text


def repair_surrogates(value: Any) -> Any:
    """Parsed JSON with every lone surrogate in its strings and keys replaced by U+FFFD.

    What holds none is returned as it is (the very object), so a caller can
    tell a repaired value by identity.
    """
    if isinstance(value, str):
        return repair_text(value)
    if isinstance(value, dict):
        pairs = [(key, item, repair_text(key), repair_surrogates(item)) for key, item in value.items()]
        if all(new_key is key and new is item for key, item, new_key, new in pairs):
            return value
        return {new_key: new for _, _, new_key, new in pairs}
    if isinstance(value, list):
        items = [repair_surrogates(item) for item in value]
        return value if all(new is old for new, old in zip(items, value, strict=True)) else items
    return value


def surrogate_paths(value: Any, path: JsonPath = ()) -> Iterator[tuple[JsonPath, bool]]:
    """(path, is a key) of each string or object key in parsed JSON that holds a lone surrogate.

    Keys in a path are given repaired, so that the path can be printed.
    """
    if isinstance(value, str):
        if _SURROGATE.search(value):
            yield path, False
    elif isinstance(value, dict):
        for key, item in value.items():
            step = (*path, repair_text(key))
            if _SURROGATE.search(key):
                yield step, True
            yield from surrogate_paths(item, step)
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from surrogate_paths(item, (*path, position))
