"""Source code in any language and HTTP access logs, line by line.

Finds removed/deprecated routes (with the method the line shows), malformed cardinality checks, authentication
other than a bearer token, and payload fields written into requests to the routes that take those payloads.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from apiusage.findings import Hit
from apiusage.registry import Entry, Registry
from apiusage.routes import (
    LogRequest,
    compile_route,
    literal_value,
    method_in_code,
    parameter_problem,
    parameters_in_code,
    parse_access_log_line,
    query_after,
    query_parameters,
    statement_window,
)
from apiusage.source import SourceText

_URL_PASSWORD = re.compile(r"(://[^/\s:@]+:)[^/\s@]*@")
_QUERY_SECRET = re.compile(r"([?&](?:password|passwd|pwd|token|access_token)=)[^&\s\"'`#]*")


def _redacted(text: str) -> str:
    """A matched snippet without the passwords and tokens a URL may carry: reports end up in CI logs."""
    return _QUERY_SECRET.sub(r"\1***", _URL_PASSWORD.sub(r"\1***@", text.strip()))


@dataclass(frozen=True)
class _Route:
    entry: Entry
    regex: re.Pattern[str]
    anchor: str  # the path up to its first placeholder: a line without it cannot match (cheap pre-test)
    parameters_in_code: tuple[re.Pattern[str], re.Pattern[str]] | None


@dataclass(frozen=True)
class _RequestRoute:
    """A request whose body is the object of a payload entry (e.g. POST /admin/projects and project `status`)."""

    entry: Entry
    method: str
    regex: re.Pattern[str]
    field_as_key: re.Pattern[str]


@dataclass(frozen=True)
class _AuthRule:
    entry: Entry
    pattern: re.Pattern[str]  # the entry's patterns as one alternation

    def search(self, text: str) -> re.Match[str] | None:
        lowered = text.lower()
        if not any(keyword in lowered for keyword in self.entry.keywords):
            return None
        return self.pattern.search(text)


def _any_of(patterns: Sequence[str]) -> re.Pattern[str]:
    """One regex matching any of `patterns`; a leading global (?i) becomes a scoped group."""
    scoped = [f"(?i:{p.removeprefix('(?i)')})" if p.startswith("(?i)") else f"(?:{p})" for p in patterns]
    return re.compile("|".join(scoped))


def _field_as_key(field: str) -> re.Pattern[str]:
    """`field` written as a key: `"status": …`, `status: …` (JavaScript), `status=…` (keyword argument)."""
    name = re.escape(field)
    return re.compile(rf"(?<![\w$.])[\"'`]?{name}[\"'`]?\s*:(?!:)|(?<=[(,\s]){name}=(?!=)")


class LineScanner:
    def __init__(self, registry: Registry) -> None:
        self._routes = [
            _Route(
                entry,
                compile_route(entry.path or ""),
                (entry.path or "").split("{", 1)[0],
                parameters_in_code(entry.required_parameters) if entry.required_parameters else None,
            )
            for entry in registry.of_kind("route")
        ]
        self._request_routes = [
            _RequestRoute(entry, method, compile_route(path), _field_as_key(entry.payload_field or ""))
            for entry in registry.of_kind("payload-field")
            for method, path in (route.split(maxsplit=1) for route in entry.request_routes)
        ]
        self._auth_rules = [_AuthRule(entry, _any_of(entry.patterns)) for entry in registry.of_kind("authentication")]
        self._api_reference = re.compile("|".join(map(re.escape, registry.api_path_prefixes)) or r"(?!)")

    def scan(self, source: SourceText) -> Iterator[Hit]:
        lines = source.lines
        talks_to_api = bool(self._api_reference.search(source.text))
        in_request_body: dict[int, list[_RequestRoute]] = {}
        for index, line in enumerate(lines):
            request = parse_access_log_line(line)
            if request is not None:
                yield from self._log_line(index + 1, request)
                continue
            yield from self._code_routes(lines, index)
            self._mark_request_bodies(lines, index, in_request_body)
            for route in in_request_body.pop(index, ()):
                match = route.field_as_key.search(line)
                if match:
                    yield Hit(index + 1, route.entry, route.entry.title, match.group().strip())
            for rule in self._auth_rules:
                if rule.entry.needs_api_reference and not talks_to_api:
                    continue
                match = rule.search(line)
                if match:
                    yield Hit(index + 1, rule.entry, rule.entry.title, _redacted(match.group()))

    # --- code ---------------------------------------------------------------------------------------------

    def _code_routes(self, lines: Sequence[str], index: int) -> Iterator[Hit]:
        line = lines[index]
        for route in self._routes:
            if route.anchor not in line:
                continue
            for match in route.regex.finditer(line):
                window = statement_window(lines, index)
                method = method_in_code(lines, index, window)
                if not _method_fits(route.entry, method):
                    continue
                what = _route_what(route.entry, method)
                if route.parameters_in_code:
                    parameters = dict(query_parameters(query_after(line, match.end())))
                    in_url, as_key = route.parameters_in_code
                    for text in (line[match.end() :], *(lines[following] for following in window)):
                        for found in in_url.finditer(text):
                            parameters.setdefault(found["name"], literal_value(found["value"]))
                        for found in as_key.finditer(text):
                            parameters.setdefault(found["name"], found["value"])
                    problem = parameter_problem(parameters, route.entry.required_parameters, route.entry.allowed_values)
                    if problem is None:
                        continue
                    what = f"{what} {problem}"
                yield Hit(index + 1, route.entry, what, _redacted(match.group()), method)

    def _mark_request_bodies(
        self, lines: Sequence[str], index: int, in_request_body: dict[int, list[_RequestRoute]]
    ) -> None:
        """Remember the lines of a request to a payload's route (this one and its statement's next lines)."""
        for route in self._request_routes:
            if not route.regex.search(lines[index]):
                continue
            window = statement_window(lines, index)
            if method_in_code(lines, index, window) != route.method:
                continue
            for body_line in (index, *window):
                in_request_body.setdefault(body_line, []).append(route)

    # --- access logs --------------------------------------------------------------------------------------

    def _log_line(self, line_number: int, request: LogRequest) -> Iterator[Hit]:
        for route in self._routes:
            if route.anchor not in request.target:
                continue
            for match in route.regex.finditer(request.target):
                if not _method_fits(route.entry, request.method):
                    continue
                what = _route_what(route.entry, request.method)
                if route.entry.required_parameters:
                    parameters = dict(query_parameters(query_after(request.target, match.end())))
                    problem = parameter_problem(parameters, route.entry.required_parameters, route.entry.allowed_values)
                    if problem is None:
                        continue
                    what = f"{what} {problem}"
                match_text = _redacted(f"{request.method} {request.target}")
                yield Hit(line_number, route.entry, what, match_text, request.method)
        for rule in self._auth_rules:
            if rule.entry.log_user_field and request.user:
                yield Hit(line_number, rule.entry, rule.entry.title, f"authenticated user {request.user}")
                continue
            if rule.entry.needs_api_reference:  # cookies do not show in access logs
                continue
            found = rule.search(request.target)
            if found:
                yield Hit(line_number, rule.entry, rule.entry.title, _redacted(found.group()))


def _method_fits(entry: Entry, method: str | None) -> bool:
    """A use counts unless its method is shown and differs, or is not shown where only one method was removed."""
    if entry.method is None:
        return True
    if method is None:
        return not entry.method_required
    return method == entry.method


def _route_what(entry: Entry, method: str | None) -> str:
    return f"{method} {entry.title}" if method and entry.method is None else entry.title
