"""Running the WSGI app under gunicorn, configured from svc's settings."""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import os
import re
import socket
import struct
from collections.abc import Callable
from typing import Any

from gunicorn.app.base import BaseApplication
from gunicorn.arbiter import Arbiter
from gunicorn.glogging import Logger

from svc_site.gevent_worker import StopSignalsHeld
from svc_site.privacy import REDACTED, anonymize, redact_query

# Worker heartbeat files live in memory: the image's filesystem is read-only and /tmp may be too.
WORKER_TMP_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else None
# How long a stopping worker may finish its requests: old data is never served longer after a reload.
GRACEFUL_TIMEOUT = 30
# Connections one worker holds at once (idle, slow or busy); beyond it the kernel's accept queue waits.
WORKER_CONNECTIONS = 1000


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
        return without_head_bodies(self._load_app())

    def run(self) -> None:
        _Arbiter(self).run()


class _Arbiter(Arbiter):
    """gunicorn's master, forking each worker with stop signals held until the worker can take them.

    A graceful stop (SIGTERM) first makes the listening sockets refuse new
    connections (:func:`refuse_new_connections`), then closes them and stops
    the workers as gunicorn does; each worker answers the connections still
    in the kernel's queue before it closes its copy of the socket
    (:meth:`svc_site.gevent_worker.GeventWorker.run`). Closed at once, the
    socket's queue would be reset: clients that had connected and sent their
    request would get a reset instead of an answer.
    """

    def spawn_worker(self) -> int:
        with StopSignalsHeld():
            return super().spawn_worker()

    def stop(self, graceful: bool = True) -> None:
        if graceful:
            for listener in self.LISTENERS:
                refuse_new_connections(listener.sock)
        super().stop(graceful)


# A classic BPF program of one instruction, BPF_RET | BPF_K with 0: keep nothing of any packet.
_DROP_EVERYTHING = struct.pack("HBBI", 0x06, 0, 0, 0)
_SO_ATTACH_FILTER = 26  # Linux


def refuse_new_connections(listener: socket.socket) -> None:
    """Let a listening socket take no new connection, keeping those the kernel has already accepted (Linux).

    A socket filter that drops everything makes the kernel ignore new SYNs;
    connections already in the accept queue are not affected and can still be
    accepted. A client that connects meanwhile sends its SYN again a second
    later and, the socket closed by then, is refused: a connection that never
    was, which a proxy retries elsewhere. (A handshake half done at this very
    moment is not completed either, and its client, which believes it
    connected, is reset when it sends its request.)
    """
    program = ctypes.create_string_buffer(_DROP_EVERYTHING, len(_DROP_EVERYTHING))
    fprog = struct.pack("HL", 1, ctypes.addressof(program))  # struct sock_fprog: length, then a pointer
    with contextlib.suppress(OSError):  # not Linux: the queue is lost as before
        listener.setsockopt(socket.SOL_SOCKET, _SO_ATTACH_FILTER, fprog)


def without_head_bodies(app: Callable[..., Any]) -> Callable[..., Any]:
    """Answer HEAD with the headers of GET and no body: the one place HEAD is answered, for every response.

    Django (and the wire middleware, which sets GET's ``Content-Length``) treat
    HEAD as GET, as do ``/healthz`` and streamed responses; gunicorn would drop
    the body, but log a warning for every HEAD request. Closing the app's iterable keeps its
    ``close()`` contract (request-finished signals, access log).
    """

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        result = app(environ, start_response)
        if environ.get("REQUEST_METHOD") != "HEAD":
            return result
        if hasattr(result, "close"):
            result.close()
        return []

    return application


_ADDRESS = re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b|[0-9A-Fa-f]*:[0-9A-Fa-f:]*:[0-9A-Fa-f.]*")
_QUERY = re.compile(r"\?([^\s'\"]*)")
# gunicorn's line for a request it could not parse; what it quotes is the client's raw text.
_INVALID_REQUEST = "Invalid request from "
_QUOTED = re.compile(r"'.*'", re.DOTALL)


def _network(match: re.Match[str]) -> str:
    """An IP address cut to its network; anything else the pattern caught (a time, say) unchanged."""
    network = anonymize(match.group())
    return match.group() if network == "-" else network


class PrivacyFilter(logging.Filter):
    """gunicorn's own lines with client addresses cut to their network and query values redacted.

    gunicorn writes the peer address and the raw request line into its
    warnings ("Invalid request from ip=…: Invalid HTTP Version 'word HTTP/1.1'");
    svc's own lines already go through :mod:`svc_site.privacy`, these get
    the same. The text gunicorn quotes from a malformed request is not
    logged at all: where its query ends is unknown (a space in the query
    puts the rest in the "HTTP version"). A malformed request is the
    client's doing: INFO, like the access line of any other request.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:  # start-up and worker lines: the listening address stays
            return True
        message = record.getMessage()
        if message.startswith(_INVALID_REQUEST):
            message = _QUOTED.sub(f"'{REDACTED}'", message)
            record.levelno, record.levelname = logging.INFO, "INFO"
        message = _ADDRESS.sub(_network, message)
        record.msg = _QUERY.sub(lambda match: "?" + redact_query(match.group(1)), message)
        record.args = ()
        return True


class GunicornLogger(Logger):
    """gunicorn's messages through svc's logging (same format, same RUST_LOG levels), not its own stderr."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in [h for h in log.handlers if getattr(h, "_gunicorn", False)]:
                log.removeHandler(handler)
            log.propagate = True
            log.setLevel(logging.NOTSET)
            log.addFilter(PrivacyFilter())


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


def check_address_free(host: str, port: int) -> None:
    """Bind the address once, as gunicorn will, and let go: raises ``OSError`` when it is taken.

    Gunicorn itself retries a busy address five times, a second apart, logging
    two lines each time; checked here first, a busy port is one clear line.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))


def gunicorn_options(bind: str, workers: int, trusted_proxy_hops: int = 0) -> dict[str, Any]:
    """The settings both svc and the benchmark baseline run under.

    gevent workers: each connection is a greenlet, not a thread, so clients
    that send their headers or body slowly (or never finish) cost a socket
    and a little memory each instead of starving the workers (docs/reliability.md).

    ``X-Forwarded-Proto`` is believed exactly when ``X-Forwarded-For`` is
    (``SVC_TRUSTED_PROXY_HOPS`` above 0), from whichever peer: svc cannot
    know the proxy's address, only how many proxies there are.
    """
    return {
        "bind": bind,
        "workers": workers,
        "worker_class": "svc_site.gevent_worker.GeventWorker",
        "worker_connections": WORKER_CONNECTIONS,
        "preload_app": True,
        "keepalive": 5,
        "forwarded_allow_ips": "*" if trusted_proxy_hops else "",
        "graceful_timeout": GRACEFUL_TIMEOUT,
        "timeout": 60,
        # svc writes its own access line (svc_site.middleware), with route and client behind proxies.
        "accesslog": None,
        "logger_class": GunicornLogger,
        # No gunicornc control socket: nothing uses it, and uid 65534 has no writable home for it.
        "control_socket_disable": True,
        "worker_tmp_dir": WORKER_TMP_DIR,
        "pre_fork": freeze_heap,
    }
