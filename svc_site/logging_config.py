"""Logging set-up: levels from RUST_LOG, readable lines in DEV, JSON lines in PROD.

Every record goes to standard output through one handler, gunicorn's own
messages included (see :class:`svc_site.server.GunicornLogger`). Inside a
traced request each line carries ``trace_id`` and ``span_id``; ids exist only
when OpenTelemetry is on (``OTEL_EXPORTER_OTLP_ENDPOINT``), since without it
there is no span to refer to.
"""

from __future__ import annotations

import copy
import logging
import logging.config
import sys
from collections.abc import Callable
from typing import Any

from svc_site.config import Config
from svc_site.privacy import printable

READABLE_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
JSON_FORMAT = "%(levelname)s %(name)s %(message)s"


class RequestContextFilter(logging.Filter):
    """Adds the current trace and span ids; drops Django's request object.

    Django passes the whole ``HttpRequest`` as ``extra`` on its request log
    lines; written out it would carry the raw query string and headers.
    Django's security lines (bad Host header, too many fields) are bad input,
    not server faults: they become one WARNING without the traceback. Its
    line per 4xx answer, and per 503 that svc gives a client over its limits
    (no exception: a server fault is a 500 with one), record a client's
    behaviour, not something an operator must act on: INFO.
    """

    def __init__(self, with_trace_ids: bool) -> None:
        super().__init__()
        self._current_span: Callable[[], Any] | None = None
        if with_trace_ids:
            from opentelemetry import trace

            self._current_span = trace.get_current_span

    def filter(self, record: logging.LogRecord) -> bool:
        record.__dict__.pop("request", None)
        if record.name.startswith("django.security."):
            # A forged Host header or a malformed body is the client's error: one line, no traceback.
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        elif record.name == "django.request" and _client_behaviour(record):
            record.levelno, record.levelname = logging.INFO, "INFO"
        if self._current_span is not None:
            context = self._current_span().get_span_context()
            if context.is_valid:
                record.trace_id = format(context.trace_id, "032x")
                record.span_id = format(context.span_id, "016x")
        return True


def _client_behaviour(record: logging.LogRecord) -> bool:
    status = getattr(record, "status_code", None)
    return isinstance(status, int) and (status < 500 or (status == 503 and not record.exc_info))


class ReadableFormatter(logging.Formatter):
    """One line per record for people: the message (control characters escaped), then the trace ids if any.

    A message may carry what a client sent (a path, a request line): escaped,
    it cannot start a forged line or drive the reader's terminal. The JSON
    lines of PROD escape them by being JSON.
    """

    def formatMessage(self, record: logging.LogRecord) -> str:
        escaped = copy.copy(record)
        escaped.message = printable(record.message)
        return super().formatMessage(escaped)

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        trace_id = getattr(record, "trace_id", None)
        return f"{line} trace_id={trace_id} span_id={getattr(record, 'span_id', None)}" if trace_id else line


def build_logging(config: Config) -> None:
    """Configure the root logger once, for the process, from the parsed RUST_LOG."""
    formatter = (
        {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "format": JSON_FORMAT,
            "timestamp": "time",
            "rename_fields": {"levelname": "level", "name": "logger"},
        }
        if config.env == "PROD"
        else {"()": ReadableFormatter, "format": READABLE_FORMAT}
    )
    logging.config.dictConfig(
        {
            "version": 1,
            "disable_existing_loggers": False,
            "formatters": {"default": formatter},
            "filters": {
                "context": {
                    "()": RequestContextFilter,
                    "with_trace_ids": bool(config.otel_exporter_otlp_endpoint),
                }
            },
            "handlers": {
                "stdout": {
                    "class": "logging.StreamHandler",
                    "stream": sys.stdout,
                    "formatter": "default",
                    "filters": ["context"],
                }
            },
            "root": {"level": config.log_filter.default_level, "handlers": ["stdout"]},
            "loggers": {name: {"level": level, "propagate": True} for name, level in config.log_filter.logger_levels},
        }
    )
    # Library warnings become log records too, so that PROD stays JSON-only.
    logging.captureWarnings(True)
