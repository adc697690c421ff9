"""The one place that reads the environment.

Every variable svc understands is read here, typed and validated strictly: a
value is either exactly what the variable allows or refused. An invalid value
raises :class:`ConfigError` naming the variable, the value and what is allowed,
so every command stops with one clear line instead of misreading it (``10/min``
as 10) or failing later in a request. An empty value counts as unset.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, overload
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = "modules/svc/server/data"
DEFAULT_SITE_ROOT = "site"
# The top of the OAI limits: a limit this high never applies (benchmarks run unthrottled so).
UNLIMITED = 1_000_000_000
# Worker processes of `svc serve`: SVC_WORKERS and its --workers option.
WORKER_BOUNDS = (1, 64)

# Rust's `tracing` level names, as used by RUST_LOG, mapped to Python levels.
LOG_LEVELS: dict[str, int] = {
    "trace": logging.DEBUG,
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "off": logging.CRITICAL + 10,
}


class ConfigError(ValueError):
    """An environment variable holds a value svc cannot use."""


@dataclass(frozen=True)
class LogFilter:
    """A parsed RUST_LOG: a default level plus per-logger levels."""

    default_level: int
    logger_levels: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Config:
    log_filter: LogFilter
    data_dir: Path
    analytics_site_id: str | None
    analytics_url: str
    show_placeholder_values: bool
    oai_base_url: str
    oai_path: str
    oai_page_size: int
    oai_rate_limit_per_second: float
    oai_rate_limit_burst: int
    oai_max_concurrent: int
    oai_lease_seconds: int
    oai_repository_name: str
    oai_admin_email: str
    oai_repository_identifier: str
    trusted_proxy_hops: int
    cache_url: str | None
    otel_exporter_otlp_endpoint: str | None
    otel_service_name: str | None
    otel_resource_attributes: str | None
    profiler_endpoint: str | None
    site_host: str
    site_port: int
    site_root: Path
    site_pkg_dir: str
    output_name: str
    env: str
    workers: int
    reload_max_shrink: float
    accept_shrink: bool
    allowed_hosts: tuple[str, ...]
    http_max_age: int
    http_stale_while_revalidate: int
    hsts_max_age: int
    metadata_license: str
    allow_empty_data: bool = False
    policies_url: str | None = None  # the About page's trust information (docs/configuration.md)
    terms_url: str | None = None
    contact_url: str | None = None
    registry_links: tuple[tuple[str, str], ...] | None = None  # (name, URL): re3data, CoreTrustSeal, …


T = TypeVar("T")

_WHOLE = re.compile(r"[0-9]+")
# Plain decimal notation only: no sign, exponent, nan or inf.
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]+)?|\.[0-9]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_HOST_PATTERN = re.compile(r"\*|\.?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]")
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
_LOGGER = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
# A host name or an IPv4 address to listen on (dot-separated labels; `_` for container and service names).
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?"
_LISTEN_HOST = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
# OAI-PMH 2.0's emailType (OAI-PMH.xsd), which adminEmail must match besides being an addr-spec.
_OAI_EMAIL_TYPE = re.compile(r"\S+@(\S+\.)+\S+")
# RFC 5322 addr-spec with a dotted domain: no `localhost` (Django's default allowlist), no URL.
_ADDR_SPEC = EmailValidator(allowlist=[])


def whole_number(value: str, minimum: int, maximum: int) -> int:
    """``value`` as a whole number from ``minimum`` to ``maximum``, written in plain digits; else ValueError."""
    if not _WHOLE.fullmatch(value) or not minimum <= int(value) <= maximum:
        raise ValueError(value)
    return int(value)


def _decimal(value: str, minimum: float, maximum: float) -> float:
    if not _DECIMAL.fullmatch(value) or not minimum <= float(value) <= maximum:
        raise ValueError(value)
    return float(value)


def _plain(number: float) -> str:
    """A number as the table writes it: plain decimals, no exponent, no trailing zeros."""
    return format(number, "f").rstrip("0").rstrip(".")


def _text(value: str) -> str:
    if _CONTROL.search(value):
        raise ValueError(value)
    return value


def _members(value: str) -> list[str]:
    """Comma-separated members, each stripped; an empty member (``a,,b``, ``,``) is an error, not skipped."""
    members = [member.strip() for member in value.split(",")]
    if not all(members):
        raise ValueError(value)
    return members


def _registry_links(value: str) -> tuple[tuple[str, str], ...]:
    """``Name=https://…`` pairs: the registries and certifications that list the repository."""
    links = []
    for member in _members(value):
        name, _, url = member.partition("=")
        if not name.strip() or not url.strip():
            raise ValueError(value)
        links.append((name.strip(), _base_url(url.strip())))
    return tuple(links)


def parse_log_filter(value: str) -> LogFilter:
    """Parse `info` or `catalog=debug,django.request=warning` (RUST_LOG syntax)."""
    default_level = logging.INFO
    logger_levels: list[tuple[str, int]] = []
    for directive in _members(value):
        target, _, level_name = directive.rpartition("=")
        level = LOG_LEVELS[level_name.strip().lower()]  # an unknown level: KeyError, refused as invalid
        if target and not _LOGGER.fullmatch(target.strip()):
            raise ValueError(directive)
        if target:
            logger_levels.append((target.strip(), level))
        else:
            default_level = level
    return LogFilter(default_level, tuple(logger_levels))


def parse_site_addr(value: str) -> tuple[str, int]:
    """``HOST:PORT``: a host name or IPv4 address, or an IPv6 address in brackets (``[::1]:8080``)."""
    host, _, port = value.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
        ipaddress.IPv6Address(host)  # raises ValueError for anything else
    elif not _LISTEN_HOST.fullmatch(host):
        raise ValueError(value)
    return host, whole_number(port, 1, 65535)


def parse_resource_attributes(value: str | None) -> dict[str, str]:
    """OTEL_RESOURCE_ATTRIBUTES: ``key=value,…``, values percent-decoded (the OpenTelemetry syntax)."""
    attributes: dict[str, str] = {}
    for item in _members(value) if value else []:
        key, sep, raw_value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(item)
        attributes[key.strip()] = unquote(raw_value.strip())
    return attributes


def _url(value: str, schemes: frozenset[str], *, base: bool) -> str:
    """An absolute URL with one of ``schemes`` and a host; a base URL also has no query, fragment or user."""
    parts = urlsplit(value)
    if parts.scheme not in schemes or not parts.hostname or _CONTROL.search(value) or " " in value:
        raise ValueError(value)
    parts.port  # noqa: B018 -- raises ValueError for a port that is not a number from 0 to 65535
    if base and (parts.query or parts.fragment or "?" in value or "#" in value or parts.username is not None):
        raise ValueError(value)
    return value


_HTTP = frozenset({"http", "https"})


def _base_url(value: str) -> str:
    return _url(value, _HTTP, base=True)


def _oai_base_url(value: str) -> str:
    """OAI-PMH 2.0 §3.1.1: the base URL is host, port and optionally a path; svc needs the path for its endpoint."""
    if not urlsplit(_base_url(value)).path.strip("/"):
        raise ValueError(value)
    return value


def _cache_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme == "unix" and parts.path and not _CONTROL.search(value):
        return value
    return _url(value, frozenset({"redis", "rediss"}), base=False)


def _matching(pattern: str) -> Callable[[str], str]:
    def parse(value: str) -> str:
        if not re.fullmatch(pattern, value):
            raise ValueError(value)
        return value

    return parse


# A domain name, as OAI identifiers and the oai-identifier description require.
_domain = _matching(r"[a-zA-Z][a-zA-Z0-9\-]*(\.[a-zA-Z][a-zA-Z0-9\-]*)+")


def _email(value: str) -> str:
    """An e-mail address: an RFC 5322 addr-spec (Django's validator) that OAI-PMH's emailType also accepts."""
    try:
        _ADDR_SPEC(value)
    except ValidationError:
        raise ValueError(value) from None
    if not _OAI_EMAIL_TYPE.fullmatch(value):
        raise ValueError(value)
    return value


def _resource_attributes(value: str) -> str:
    parse_resource_attributes(value)
    return value


def _host_patterns(value: str) -> tuple[str, ...]:
    members = _members(value)
    if not all(_HOST_PATTERN.fullmatch(member) for member in members):
        raise ValueError(value)
    return tuple(members)


def _choice(*choices: str) -> Callable[[str], str]:
    def parse(value: str) -> str:
        if value.upper() not in choices:
            raise ValueError(value)
        return value.upper()

    return parse


def _relative_name(*, nested: bool) -> Callable[[str], str]:
    def parse(value: str) -> str:
        parts = value.strip("/").split("/")
        if (len(parts) > 1 and not nested) or not all(_NAME.fullmatch(part) and part != ".." for part in parts):
            raise ValueError(value)
        return "/".join(parts)

    return parse


def _existing_directory(value: str) -> Path:
    """Relative to the project; it must exist: svc never creates a directory an operator named."""
    path = Path(_text(value))
    path = path if path.is_absolute() else PROJECT_ROOT / path
    try:
        is_dir = path.is_dir()
    except OSError:  # a name too long, a loop of links, a directory on the way that cannot be searched
        raise ValueError(value) from None
    if not is_dir:
        raise ValueError(value)
    return path


class _Reader:
    """Reads variables from a mapping, recording each name read and its default.

    The recorded names let a test check that docs/configuration.md documents
    exactly the variables that svc reads, with the defaults the code has.
    """

    def __init__(self, environ_map: Mapping[str, str]) -> None:
        self._environ = environ_map
        self.names: list[str] = []
        self.defaults: dict[str, object] = {}

    def value(self, name: str, default: T, parse: Callable[[str], T], allowed: str) -> T:
        """The parsed value of ``name``, ``default`` when unset or empty; ``allowed`` says what parses."""
        self.names.append(name)
        self.defaults[name] = default
        raw = self._environ.get(name, "")
        if raw.strip() == "":
            return default
        try:
            return parse(raw.strip())
        except (ValueError, KeyError):
            raise ConfigError(f"{name}: {raw!r} is not allowed; expected {allowed}") from None

    @overload
    def text(self, name: str, default: str) -> str: ...
    @overload
    def text(self, name: str, default: None = None) -> str | None: ...
    def text(self, name: str, default: str | None = None) -> str | None:
        return self.value(name, default, _text, "text without control characters")

    def flag(self, name: str, default: bool) -> bool:
        return self.value(
            name,
            default,
            lambda raw: {"true": True, "1": True, "false": False, "0": False}[raw.lower()],
            "true, false, 1 or 0",
        )

    def integer(self, name: str, default: int, *, minimum: int, maximum: int) -> int:
        return self.value(
            name,
            default,
            lambda raw: whole_number(raw, minimum, maximum),
            f"a whole number from {minimum} to {maximum}",
        )

    def number(self, name: str, default: float, *, minimum: float, maximum: float) -> float:
        return self.value(
            name,
            default,
            lambda raw: _decimal(raw, minimum, maximum),
            f"a decimal number from {_plain(minimum)} to {_plain(maximum)}",
        )

    @overload
    def url(self, name: str, default: str) -> str: ...
    @overload
    def url(self, name: str, default: None = None) -> str | None: ...
    def url(self, name: str, default: str | None = None) -> str | None:
        return self.value(name, default, _base_url, "an http(s) URL with a host, without query, fragment or user")


def load_config(environ_map: Mapping[str, str] | None = None) -> tuple[Config, list[str]]:
    """Read and validate every variable; return the config and the names read."""
    config, read = _load(os.environ if environ_map is None else environ_map)
    return config, read.names


def variable_defaults() -> dict[str, object]:
    """Each variable's default as the code has it (None: unset), for the test that keeps the docs in step."""
    return _load({})[1].defaults


def _load(environ_map: Mapping[str, str]) -> tuple[Config, _Reader]:
    read = _Reader(environ_map)
    text = read.text

    data_dir_value = text("SVC_DATA_DIR") or text("DATA_DIR")
    # Absolute but not resolved: a symlink is followed anew on every reload (switch it, then SIGHUP).
    data_dir = Path(data_dir_value).absolute() if data_dir_value else PROJECT_ROOT / DEFAULT_DATA_DIR
    oai_base_url = read.value(
        "SVC_OAI_BASE_URL",
        "https://repository.dasch.swiss/dpe/oai",
        _oai_base_url,
        "an http(s) URL with a host and a path, without query, fragment or user (OAI-PMH baseURL)",
    )
    site_root = read.value("FRAMEWORK_SITE_ROOT", None, _existing_directory, "an existing directory")
    site_addr = read.value(
        "FRAMEWORK_SITE_ADDR",
        ("0.0.0.0", 8080),
        parse_site_addr,
        "HOST:PORT, HOST a host name, an IPv4 address or an [IPv6] address, PORT 1 to 65535",
    )

    config = Config(
        log_filter=read.value(
            "RUST_LOG",
            parse_log_filter("info"),
            parse_log_filter,
            "a level (trace, debug, info, warn, error, off) or comma-separated [logger=]level directives",
        ),
        data_dir=data_dir,
        analytics_site_id=read.value(
            "SVC_ANALYTICS_SITE_ID", None, _matching(r"[A-Za-z0-9-]+"), "letters, digits and hyphens"
        ),
        analytics_url=read.url("SVC_ANALYTICS_URL", "https://cloud.umami.is"),
        show_placeholder_values=read.flag("SVC_SHOW_PLACEHOLDER_VALUES", False),
        oai_base_url=oai_base_url,
        oai_path=urlsplit(oai_base_url).path.strip("/"),
        oai_page_size=read.integer("SVC_OAI_PAGE_SIZE", 100, minimum=1, maximum=1000),
        oai_rate_limit_per_second=read.number("SVC_OAI_RATE_LIMIT_PER_SECOND", 1.0, minimum=0.001, maximum=UNLIMITED),
        oai_rate_limit_burst=read.integer("SVC_OAI_RATE_LIMIT_BURST", 60, minimum=1, maximum=UNLIMITED),
        oai_max_concurrent=read.integer("SVC_OAI_MAX_CONCURRENT", 4, minimum=1, maximum=UNLIMITED),
        # Default: deploy/nginx.conf's proxy_read_timeout, after which the proxy has given up on a request.
        oai_lease_seconds=read.integer("SVC_OAI_LEASE_SECONDS", 60, minimum=1, maximum=3600),
        oai_repository_name=text("SVC_OAI_REPOSITORY_NAME", "DaSCH Service Platform Repository"),
        oai_admin_email=read.value("SVC_OAI_ADMIN_EMAIL", "info@dasch.swiss", _email, "an e-mail address"),
        oai_repository_identifier=read.value(
            "SVC_OAI_REPOSITORY_IDENTIFIER", "dasch.swiss", _domain, "a domain name such as dasch.swiss"
        ),
        trusted_proxy_hops=read.integer("SVC_TRUSTED_PROXY_HOPS", 0, minimum=0, maximum=10),
        cache_url=read.value("SVC_CACHE_URL", None, _cache_url, "a redis://, rediss:// or unix:// URL"),
        otel_exporter_otlp_endpoint=read.url("OTEL_EXPORTER_OTLP_ENDPOINT"),
        otel_service_name=text("OTEL_SERVICE_NAME"),
        otel_resource_attributes=read.value(
            "OTEL_RESOURCE_ATTRIBUTES",
            None,
            _resource_attributes,
            "comma-separated key=value pairs",
        ),
        profiler_endpoint=read.url("PROFILER_ENDPOINT"),
        site_host=site_addr[0],
        site_port=site_addr[1],
        site_root=site_root or PROJECT_ROOT / DEFAULT_SITE_ROOT,
        site_pkg_dir=read.value(
            "FRAMEWORK_SITE_PKG_DIR", "pkg", _relative_name(nested=True), "a relative path of plain names"
        ),
        output_name=read.value(
            "FRAMEWORK_OUTPUT_NAME", "svc", _relative_name(nested=False), "a plain file name (letters, digits, ., _, -)"
        ),
        env=read.value("FRAMEWORK_ENV", "DEV", _choice("DEV", "PROD"), "DEV or PROD"),
        workers=read.integer("SVC_WORKERS", 2, minimum=WORKER_BOUNDS[0], maximum=WORKER_BOUNDS[1]),
        allowed_hosts=read.value(
            "SVC_ALLOWED_HOSTS", ("*",), _host_patterns, "comma-separated host names, .domain or *"
        ),
        http_max_age=read.integer("SVC_HTTP_MAX_AGE", 60, minimum=0, maximum=31536000),
        http_stale_while_revalidate=read.integer("SVC_HTTP_STALE_WHILE_REVALIDATE", 600, minimum=0, maximum=31536000),
        hsts_max_age=read.integer("SVC_HSTS_MAX_AGE", 31536000, minimum=0, maximum=63072000),
        reload_max_shrink=read.number("SVC_RELOAD_MAX_SHRINK", 0.5, minimum=0, maximum=1),
        metadata_license=read.url("SVC_METADATA_LICENSE", "http://creativecommons.org/publicdomain/zero/1.0/"),
        allow_empty_data=read.flag("SVC_ALLOW_EMPTY_DATA", False),
        accept_shrink=read.flag("SVC_ACCEPT_SHRINK", False),
        policies_url=read.url("SVC_POLICIES_URL"),
        terms_url=read.url("SVC_TERMS_URL"),
        contact_url=read.url("SVC_CONTACT_URL"),
        registry_links=read.value(
            "SVC_REGISTRY_LINKS", None, _registry_links, "comma-separated Name=URL pairs, each URL http(s) with a host"
        ),
    )
    return config, read
