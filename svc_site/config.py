"""The one place that reads the environment.

Every variable svc understands is read here, typed and validated. An invalid
value raises :class:`ConfigError` naming the variable, so start-up stops with
one clear line instead of failing later in a request.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload
from urllib.parse import unquote, urlsplit

import environ

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = "modules/svc/server/data"

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


def parse_log_filter(value: str) -> LogFilter:
    """Parse `info` or `catalog=debug,django.request=warning` (RUST_LOG syntax)."""
    default_level = logging.INFO
    logger_levels: list[tuple[str, int]] = []
    for directive in filter(None, (part.strip() for part in value.split(","))):
        target, _, level_name = directive.rpartition("=")
        level = LOG_LEVELS.get(level_name.strip().lower())
        if level is None:
            raise ConfigError(f"RUST_LOG: unknown level {level_name.strip()!r} in {directive!r}")
        if target:
            logger_levels.append((target.strip(), level))
        else:
            default_level = level
    return LogFilter(default_level, tuple(logger_levels))


def parse_site_addr(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"FRAMEWORK_SITE_ADDR: expected HOST:PORT, got {value!r}")
    return host.strip("[]"), int(port)


class _Reader:
    """django-environ over a given mapping, recording every variable it reads.

    The recorded names let a test check that the README documents exactly the
    variables that svc reads.
    """

    def __init__(self, environ_map: Mapping[str, str]) -> None:
        self._env = environ.Env()
        self._env.ENVIRON = dict(environ_map)
        self.names: list[str] = []

    def _get(self, cast: Callable[..., Any], name: str, default: Any) -> Any:
        self.names.append(name)
        try:
            return cast(name, default=default)
        except (ValueError, environ.ImproperlyConfigured) as error:
            raise ConfigError(f"{name}: invalid value {self._env.ENVIRON.get(name)!r} ({error})") from None

    @overload
    def text(self, name: str, default: str) -> str: ...
    @overload
    def text(self, name: str, default: None = None) -> str | None: ...
    def text(self, name: str, default: str | None = None) -> str | None:
        value = self._get(self._env.str, name, default)
        return value if value != "" else default

    def flag(self, name: str, default: bool) -> bool:
        raw = self._env.ENVIRON.get(name)
        if raw is not None and raw.strip().lower() not in {"true", "false", "1", "0", "yes", "no", "on", "off", ""}:
            self.names.append(name)
            raise ConfigError(f"{name}: expected true or false, got {raw!r}")
        return self._get(self._env.bool, name, default)

    def integer(self, name: str, default: int, minimum: int) -> int:
        value = self._get(self._env.int, name, default)
        if value < minimum:
            raise ConfigError(f"{name}: must be at least {minimum}, got {value}")
        return value

    def number(self, name: str, default: float) -> float:
        value = self._get(self._env.float, name, default)
        if not value > 0:
            raise ConfigError(f"{name}: must be a positive number, got {value}")
        return value

    def items(self, name: str, default: list[str]) -> list[str]:
        return [item.strip() for item in self._get(self._env.list, name, default) if item.strip()]


def _share(name: str, value: float) -> float:
    if value > 1:
        raise ConfigError(f"{name}: expected a share between 0 and 1, got {value}")
    return value


@overload
def _absolute_url(name: str, value: str) -> str: ...
@overload
def _absolute_url(name: str, value: None) -> None: ...
@overload
def _absolute_url(name: str, value: str | None) -> str | None: ...
def _absolute_url(name: str, value: str | None) -> str | None:
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise ConfigError(f"{name}: expected an http(s) URL, got {value!r}")
    return value


def parse_resource_attributes(value: str | None) -> dict[str, str]:
    """OTEL_RESOURCE_ATTRIBUTES: ``key=value,…``, values percent-decoded (the OpenTelemetry syntax)."""
    attributes: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in (value or "").split(","))):
        key, sep, raw_value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"OTEL_RESOURCE_ATTRIBUTES: expected key=value, got {item!r}")
        attributes[key.strip()] = unquote(raw_value.strip())
    return attributes


def _resource_attributes(value: str | None) -> str | None:
    parse_resource_attributes(value)
    return value


def _cache_url(value: str | None) -> str | None:
    if value is not None and urlsplit(value).scheme not in {"redis", "rediss", "unix"}:
        raise ConfigError(f"SVC_CACHE_URL: expected a redis:// URL, got {value!r}")
    return value


def _oai_repository_identifier(value: str) -> str:
    """A domain name, as OAI identifiers and the oai-identifier description require."""
    if not re.fullmatch(r"[a-zA-Z][a-zA-Z0-9\-]*(\.[a-zA-Z][a-zA-Z0-9\-]*)+", value):
        raise ConfigError(f"SVC_OAI_REPOSITORY_IDENTIFIER: expected a domain name such as dasch.swiss, got {value!r}")
    return value


def _oai_admin_email(value: str) -> str:
    if not re.fullmatch(r"\S+@(\S+\.)+\S+", value):
        raise ConfigError(f"SVC_OAI_ADMIN_EMAIL: expected an e-mail address, got {value!r}")
    return value


def load_config(environ_map: Mapping[str, str] | None = None) -> tuple[Config, list[str]]:
    """Read and validate every variable; return the config and the names read."""
    read = _Reader(os.environ if environ_map is None else environ_map)

    log_filter = parse_log_filter(read.text("RUST_LOG", "info"))

    data_dir_value = read.text("SVC_DATA_DIR") or read.text("DATA_DIR")
    # Absolute but not resolved: a symlink is followed anew on every reload (switch it, then SIGHUP).
    data_dir = Path(data_dir_value).absolute() if data_dir_value else PROJECT_ROOT / DEFAULT_DATA_DIR

    oai_base_url = _absolute_url(
        "SVC_OAI_BASE_URL", read.text("SVC_OAI_BASE_URL", "https://repository.dasch.swiss/dpe/oai")
    )
    oai_path = urlsplit(oai_base_url).path.strip("/")
    if not oai_path:
        raise ConfigError(f"SVC_OAI_BASE_URL: needs a path for the endpoint, got {oai_base_url!r}")

    env_name = (read.text("FRAMEWORK_ENV", "DEV") or "DEV").upper()
    if env_name not in {"DEV", "PROD"}:
        raise ConfigError(f"FRAMEWORK_ENV: expected DEV or PROD, got {env_name!r}")

    site_host, site_port = parse_site_addr(read.text("FRAMEWORK_SITE_ADDR", "0.0.0.0:8080"))
    site_root = Path(read.text("FRAMEWORK_SITE_ROOT", "site"))
    if not site_root.is_absolute():
        site_root = PROJECT_ROOT / site_root
    pkg_dir = read.text("FRAMEWORK_SITE_PKG_DIR", "pkg").strip("/")
    output_name = read.text("FRAMEWORK_OUTPUT_NAME", "svc")
    for name, value in (("FRAMEWORK_SITE_PKG_DIR", pkg_dir), ("FRAMEWORK_OUTPUT_NAME", output_name)):
        if not value or ".." in value.split("/") or "\\" in value:
            raise ConfigError(f"{name}: expected a plain relative name, got {value!r}")

    config = Config(
        log_filter=log_filter,
        data_dir=data_dir,
        analytics_site_id=read.text("SVC_ANALYTICS_SITE_ID"),
        analytics_url=_absolute_url("SVC_ANALYTICS_URL", read.text("SVC_ANALYTICS_URL", "https://cloud.umami.is")),
        show_placeholder_values=read.flag("SVC_SHOW_PLACEHOLDER_VALUES", False),
        oai_base_url=oai_base_url,
        oai_path=oai_path,
        oai_page_size=read.integer("SVC_OAI_PAGE_SIZE", 100, minimum=1),
        oai_rate_limit_per_second=read.number("SVC_OAI_RATE_LIMIT_PER_SECOND", 1.0),
        oai_rate_limit_burst=read.integer("SVC_OAI_RATE_LIMIT_BURST", 60, minimum=1),
        oai_max_concurrent=read.integer("SVC_OAI_MAX_CONCURRENT", 4, minimum=1),
        oai_repository_name=read.text("SVC_OAI_REPOSITORY_NAME", "DaSCH Service Platform Repository"),
        oai_admin_email=_oai_admin_email(read.text("SVC_OAI_ADMIN_EMAIL", "info@dasch.swiss")),
        oai_repository_identifier=_oai_repository_identifier(read.text("SVC_OAI_REPOSITORY_IDENTIFIER", "dasch.swiss")),
        trusted_proxy_hops=read.integer("SVC_TRUSTED_PROXY_HOPS", 0, minimum=0),
        cache_url=_cache_url(read.text("SVC_CACHE_URL")),
        otel_exporter_otlp_endpoint=_absolute_url(
            "OTEL_EXPORTER_OTLP_ENDPOINT", read.text("OTEL_EXPORTER_OTLP_ENDPOINT")
        ),
        otel_service_name=read.text("OTEL_SERVICE_NAME"),
        otel_resource_attributes=_resource_attributes(read.text("OTEL_RESOURCE_ATTRIBUTES")),
        profiler_endpoint=_absolute_url("PROFILER_ENDPOINT", read.text("PROFILER_ENDPOINT")),
        site_host=site_host,
        site_port=site_port,
        site_root=site_root,
        site_pkg_dir=pkg_dir,
        output_name=output_name,
        env=env_name,
        workers=read.integer("SVC_WORKERS", 2, minimum=1),
        allowed_hosts=tuple(read.items("SVC_ALLOWED_HOSTS", ["*"])),
        http_max_age=read.integer("SVC_HTTP_MAX_AGE", 60, minimum=0),
        http_stale_while_revalidate=read.integer("SVC_HTTP_STALE_WHILE_REVALIDATE", 600, minimum=0),
        reload_max_shrink=_share("SVC_RELOAD_MAX_SHRINK", read.number("SVC_RELOAD_MAX_SHRINK", 0.5)),
        accept_shrink=read.flag("SVC_ACCEPT_SHRINK", False),
    )
    return config, read.names
