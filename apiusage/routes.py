"""Route shapes as regular expressions, HTTP methods and query parameters as code and access logs show them."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import unquote_plus

HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")

# An expression concatenated into a URL: a name or a call without nested parentheses, taken whole.
_CONCATENATED = r"[\w.$]+(?:\([^()]*\))?(?![\w.$(])"
# What code or a log puts where a route shape has a {placeholder}.
_PLACEHOLDER_VALUE = "|".join(
    (
        r"\$\{[^{}]*\}",  # JS template literal: ${encodeURIComponent(iri)}
        r"\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}",  # f-string, str.format, OpenAPI {iri}, Postman {{iri}}
        r"%\(\w+\)[sd]|%[sd]",  # printf style
        r"<[^<>/\s]+>",  # <iri>
        r":[A-Za-z_]\w*",  # :iri
        rf"[\"'`]\s*\+\s*{_CONCATENATED}(?:\s*\+\s*[\"'`])?",  # "/…/" + quote(iri) [+ "/…"]
        r"[^/\s?#\"'`<>{}()\[\],;|\\]+",  # a real value, percent-encoded IRIs included
    )
)
# A route ends where the path ends: not followed by more path, nor by a concatenated literal.
_ROUTE_END = r"/?(?![\w\-.~%/]|\s*\+\s*[\"'`])"
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
# A string literal ends where the last placeholder goes, and is not continued by `+ expression + "more path"`.
_LITERAL_ENDS_HERE = rf"(?=[\"'`](?!\s*\+\s*{_CONCATENATED}\s*\+\s*[\"'`]))"


def compile_route(path: str) -> re.Pattern[str]:
    """A regex finding `path` with real values (or code expressions) in place of its {placeholders}.

    A path whose last segment is a placeholder also matches a string literal ending right before it
    (`"/admin/lists/infos/" + iri`, or a constant used as a prefix).
    """
    parts = _PLACEHOLDER.split(path)  # literal, name, literal, name, …, literal
    regex = ""
    for index, part in enumerate(parts):
        if index % 2 == 0:
            regex += re.escape(part)
        elif index == len(parts) - 2 and not parts[-1]:
            regex += f"(?:{_PLACEHOLDER_VALUE}|{_LITERAL_ENDS_HERE})"
        else:
            regex += f"(?:{_PLACEHOLDER_VALUE})"
    return re.compile(regex + _ROUTE_END)


# --- HTTP methods -------------------------------------------------------------------------------------------

_METHOD_ON_LINE = re.compile(
    r"\b(?P<upper>GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\b"
    r"|(?:-X\s*|--request\s+)(?P<flag>[A-Za-z]+)"
    r"|(?i:\bmethod[\"']?\s*[:=]\s*[\"'`]?)(?P<key>[A-Za-z]+)"
    r"|\.(?P<call>(?i:get|post|put|patch|delete|head|options))\s*\(",
)
_METHOD_NEARBY = re.compile(
    r"(?i:\bmethod[\"']?\s*[:=]\s*[\"'`]?)(?P<key>[A-Za-z]+)|\b(?P<upper>GET|POST|PUT|PATCH|DELETE)\b",
)
_FETCH = re.compile(r"\bfetch\s*\(")
_CURL = re.compile(r"\bcurl\b")
_CURL_BODY = re.compile(r"\s(?:-d|--data(?:-\w+)?|-F|--form|--json)\b")


def _method_of(match: re.Match[str]) -> str | None:
    value = next(group for group in match.groups() if group).upper()
    return value if value in HTTP_METHODS else None


def method_in_code(lines: Sequence[str], index: int, window: Sequence[int]) -> str | None:
    """The HTTP method a code line uses: on the line itself or the line opening its call, in the call's options
    just below (in `window`, see `statement_window`), or by default (fetch and curl: GET).
    """
    line = lines[index]
    opening = [lines[index - 1]] if index and lines[index - 1].rstrip().endswith(("(", ",")) else []
    for text in (line, *opening):  # the URL's line, else the line opening the call it is an argument of
        for match in _METHOD_ON_LINE.finditer(text):
            method = _method_of(match)
            if method:
                return method
    for following in window:
        nearby = _METHOD_NEARBY.search(lines[following])
        method = _method_of(nearby) if nearby else None
        if method:
            return method
    if _FETCH.search(line):
        return "GET"
    if _CURL.search(line):
        return "POST" if _CURL_BODY.search(line) else "GET"
    return None


_OPENERS = str.maketrans("", "", "([{")
_CLOSERS = str.maketrans("", "", ")]}")


def _depth_change(text: str) -> int:
    return (len(text) - len(text.translate(_OPENERS))) - (len(text) - len(text.translate(_CLOSERS)))


def statement_window(lines: Sequence[str], index: int, size: int = 8) -> list[int]:
    """Indexes of the lines after `index` that continue its call: while the brackets open on it (or on the line
    opening the call it is an argument of) stay open; at most `size` lines."""
    start = index - 1 if index and lines[index - 1].rstrip().endswith(("(", ",")) else index
    depth = sum(_depth_change(lines[number]) for number in range(start, index + 1))
    window: list[int] = []
    following = index + 1
    while depth > 0 and following < len(lines) and len(window) < size:
        window.append(following)
        depth += _depth_change(lines[following])
        following += 1
    return window


# --- access logs ----------------------------------------------------------------------------------------------

# Common and combined log formats (Apache, nginx): host ident user [time] "METHOD target PROTOCOL" status size …
_ACCESS_LOG_LINE = re.compile(
    r'^\S+ \S+ (?P<user>\S+) \[[^\]]+\] "(?P<method>[A-Z]+) (?P<target>[^\s"]+)(?: [^"]*)?" (?:\d{3}|-) (?:\d+|-)'
)


@dataclass(frozen=True)
class LogRequest:
    method: str
    target: str
    user: str | None  # the authenticated user (%u) or None for "-"


def parse_access_log_line(line: str) -> LogRequest | None:
    match = _ACCESS_LOG_LINE.match(line)
    if not match:
        return None
    user = match["user"]
    return LogRequest(match["method"], match["target"], None if user == "-" else user)


# --- query parameters -----------------------------------------------------------------------------------------

_TEMPLATE = re.compile(r"\$\{|[{}]|%[sd(]|<|[\"'`]\s*\+")


def literal_value(value: str) -> str | None:
    """A parameter value as the server receives it, or None when code computes it (unknown here)."""
    return None if _TEMPLATE.search(value) else unquote_plus(value)


# A URL's query string: up to whitespace, a quote or a fragment; code expressions in braces/parentheses
# (`?x={quote(v, safe='')}`) are read whole.
_QUERY = re.compile(r"\?((?:[^\s\"'`#{}()]|\{[^{}]*\}|\([^()]*\))*)")


def query_after(text: str, position: int) -> str:
    """The query string starting at `position` (a "?"), up to the end of the URL; "" when there is none."""
    match = _QUERY.match(text, position)
    return match.group(1) if match else ""


def query_parameters(query: str) -> Iterator[tuple[str, str | None]]:
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        if name:
            yield unquote_plus(name), literal_value(value)


def parameters_in_code(names: Sequence[str]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Regexes for parameters `names` written in code: in a URL (`&name=value`) and as keys (`"name": "value"`)."""
    alternatives = "|".join(map(re.escape, names))
    in_url = re.compile(rf"[?&](?P<name>{alternatives})=(?P<value>[^&\s\"'`#]*)")
    as_key = re.compile(
        rf"(?<![\w$])(?P<q>[\"'`]?)(?P<name>{alternatives})(?P=q)\s*[:=,]\s*(?:(?P<v>[\"'`])(?P<value>[^\"'`\n]*)(?P=v))?"
    )
    return in_url, as_key


def parameter_problem(
    parameters: Mapping[str, str | None], required: Sequence[str], allowed: Mapping[str, Sequence[str]]
) -> str | None:
    """What is wrong with a request's query parameters, or None. Unknown (computed) values are given the benefit."""
    missing = [name for name in required if name not in parameters or parameters[name] == ""]
    if missing:
        return "without " + " and ".join(missing)
    for name, values in allowed.items():
        value = parameters.get(name)
        if value is not None and value not in values:
            return f"with {name}={value} (allowed: {', '.join(values)})"
    return None
