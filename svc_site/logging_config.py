"""Logging set-up: levels from RUST_LOG, readable lines in DEV, JSON lines in PROD."""

from __future__ import annotations

import logging
import logging.config
import sys

from svc_site.config import Config

READABLE_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
JSON_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


def build_logging(config: Config) -> None:
    """Configure the root logger once, for the process, from the parsed RUST_LOG."""
    formatter = (
        {"()": "pythonjsonlogger.json.JsonFormatter", "format": JSON_FORMAT, "rename_fields": {"levelname": "level"}}
        if config.env == "PROD"
        else {"format": READABLE_FORMAT}
    )
    logging.config.dictConfig(
        {
            "version": 1,
            "disable_existing_loggers": False,
            "formatters": {"default": formatter},
            "handlers": {"stdout": {"class": "logging.StreamHandler", "stream": sys.stdout, "formatter": "default"}},
            "root": {"level": config.log_filter.default_level, "handlers": ["stdout"]},
            "loggers": {name: {"level": level, "propagate": True} for name, level in config.log_filter.logger_levels},
        }
    )
