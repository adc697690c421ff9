"""Object literals (JSON documents, and dict/object literals in code) with the positions of their keys.

Payload rules look at an object's own keys (is `status` next to `shortname`?), so the scan keeps one frame per
open brace. It is a tokenizer, not a parser: strings, braces and brackets are followed; everything else is
skipped, which is what makes it work on JSON, Python and JavaScript alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_TOKEN = re.compile(
    r"""(?P<open>\{)|(?P<array>\[)|(?P<close>[}\]])|(?P<quote>["'`])|(?P<ident>(?<![\w$])[A-Za-z_$][\w$]*)"""
)
_STRING_END = {
    '"': re.compile(r'(?:[^"\\\n]|\\.)*"'),
    "'": re.compile(r"(?:[^'\\\n]|\\.)*'"),
    "`": re.compile(r"(?:[^`\\]|\\.)*`", re.DOTALL),
}
_COLON = re.compile(r"\s*:(?!:)")


@dataclass(frozen=True)
class ObjectLiteral:
    keys: dict[str, int]  # key → offset of its first occurrence in the text


def object_literals(text: str, *, json_only: bool = False) -> Iterator[ObjectLiteral]:
    """Every object literal of `text` that has keys, innermost first.

    `json_only`: keys are double-quoted strings only (JSON); otherwise single quotes, backticks and bare
    identifiers (JavaScript) are keys too.
    """
    stack: list[dict[str, int] | None] = []  # a dict per open object, None per open array
    position = 0
    while match := _TOKEN.search(text, position):
        position = match.end()
        kind = match.lastgroup
        if kind == "open":
            stack.append({})
        elif kind == "array":
            stack.append(None)
        elif kind == "close":
            frame = stack.pop() if stack else None
            if frame:
                yield ObjectLiteral(frame)
        elif kind == "quote":
            quote = match.group()
            end = _STRING_END[quote].match(text, position)
            if end is None:  # an apostrophe in a comment, an unterminated string: not a string
                continue
            position = end.end()
            if stack and stack[-1] is not None and (quote == '"' or not json_only) and _COLON.match(text, position):
                stack[-1].setdefault(text[match.end() : position - 1], match.start())
        elif not json_only and stack and stack[-1] is not None and _COLON.match(text, position):
            stack[-1].setdefault(match.group(), match.start())
