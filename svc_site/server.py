"""Running the WSGI app under gunicorn, configured from svc's settings."""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import os
from collections.abc import Callable
from typing import Any

from gunicorn.app.base import BaseApplication
from gunicorn.glogging import Logger

# Worker heartbeat files live in memory: the image's filesystem is read-only and /tmp may be too.
WORKER_TMP_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else None


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


class GunicornLogger(Logger):
    """gunicorn's messages through svc's logging (same format, same RUST_LOG levels), not its own stderr."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in [h for h in log.handlers if getattr(h, "_gunicorn", False)]:
                log.removeHandler(handler)
            log.propagate = True
            log.setLevel(logging.NOTSET)


def freeze_heap(_server: Any, _worker: Any) -> None:
    """Move everything loaded so far out of the GC's reach before forking.

    Workers then share the catalogue's memory pages with the master instead
    of copying them when the collector walks the objects.
    """
    gc.collect()
    gc.freeze()
    _return_freed_memory()


def _return_freed_memory() -> None:
    """Give memory the loader freed back to the OS (glibc keeps it otherwise), so forks don't inherit it."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def gunicorn_options(bind: str, workers: int, threads: int) -> dict[str, Any]:
    """The settings both svc and the benchmark baseline run under."""
    return {
        "bind": bind,
        "workers": workers,
        "worker_class": "gevent",
        "worker_connections": 1000,
        "preload_app": True,
        "keepalive": 5,
        "graceful_timeout": 30,
        "timeout": 60,
        # svc writes its own access line (svc_site.middleware), with route and client behind proxies.
        "accesslog": None,
        "logger_class": GunicornLogger,
        # No gunicornc control socket: nothing uses it, and uid 65534 has no writable home for it.
        "control_socket_disable": True,
        "worker_tmp_dir": WORKER_TMP_DIR,
        "pre_fork": freeze_heap,
    }
