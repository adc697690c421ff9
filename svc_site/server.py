"""Running the WSGI app under gunicorn, configured from svc's settings."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

from gunicorn.app.base import BaseApplication


class GunicornServer(BaseApplication):
    """gunicorn with an application object and options given in code, not argv."""

    def __init__(self, load_app: Callable[[], Any], options: dict[str, Any]) -> None:
        self._load_app = load_app
        self._options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        return self._load_app()


def freeze_heap(_server: Any, _worker: Any) -> None:
    """Move everything loaded so far out of the GC's reach before forking.

    Workers then share the catalogue's memory pages with the master instead
    of copying them when the collector walks the objects.
    """
    gc.collect()
    gc.freeze()


def gunicorn_options(bind: str, workers: int, threads: int) -> dict[str, Any]:
    """The settings both svc and the benchmark baseline run under."""
    return {
        "bind": bind,
        "workers": workers,
        "worker_class": "gthread",
        "threads": threads,
        "preload_app": True,
        "keepalive": 5,
        "graceful_timeout": 30,
        "timeout": 60,
        "accesslog": None,
        "pre_fork": freeze_heap,
    }
