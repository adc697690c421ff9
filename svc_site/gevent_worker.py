"""gunicorn's gevent worker, closing kept-alive connections only between requests when it is told to stop.

On a reload (SIGHUP) or a stop (SIGTERM) gunicorn stops the old workers
gracefully. Each connection then ends the way HTTP/1.1 lets a server end one
without losing a request (RFC 9112 §9.6):

- a request being read or answered finishes; its response carries
  ``Connection: close`` (gunicorn's rule for a stopping worker);
- a connection between requests gets a last call of :data:`LAST_CALL_SECONDS`:
  a request that starts in it is answered (with ``Connection: close``), and a
  connection still silent after it is closed without a word. Clients that
  reuse their connection at once are answered; idle ones do not hold the stop.

A connection the server closes after a request whose body it did not read
(an upload refused on its headers, with ``Connection: close``) is closed in
stages (RFC 9112 §9.6): the write side first, then the rest of the body is
read and dropped, up to :data:`LINGER_BYTES` for :data:`LINGER_SECONDS`, and
only then the socket. Closed at once, the kernel would answer the bytes still
coming with a reset, and a client still sending would lose the response.

A connection's request line and headers must arrive within
:data:`REQUEST_HEAD_SECONDS` of its first byte; a client slower than that is
answered ``408 Request Timeout`` and the connection closes (RFC 9110 §15.5.9).
An idle connection closes after gunicorn's ``keepalive`` seconds without a word.

Stop signals that reach a worker before it has its own handlers (between the
fork and the end of gevent's set-up) used to be swallowed by the master's
inherited handler, and the stop then waited for the 30 s graceful timeout:
:class:`StopSignalsHeld` holds them back around the fork, and the worker lets
them in once its handlers are installed.
"""

from __future__ import annotations

import errno
import functools
import select
import signal
import socket
import time
from types import TracebackType
from typing import Any

import gevent
from gevent.event import Event
from gevent.monkey import get_original
from gevent.pool import Pool
from gevent.server import StreamServer
from gunicorn import http, util
from gunicorn.http.errors import NoMoreData
from gunicorn.workers.base_async import AsyncWorker
from gunicorn.workers.ggevent import GeventWorker as _GeventWorker

# How long a stopping worker waits for the next request on a kept-alive connection.
LAST_CALL_SECONDS = 0.5
# How much of an unread request body is read and dropped before the connection closes, and for how long.
LINGER_BYTES = 16 * 1024 * 1024
LINGER_SECONDS = 2.0
# How long a request line and its headers may take to arrive, from their first byte.
REQUEST_HEAD_SECONDS = 5.0
STOP_SIGNALS = frozenset({signal.SIGTERM, signal.SIGINT, signal.SIGQUIT})

_original_poll = get_original("select", "poll")  # not select(): descriptors above 1023 are common here


class StopSignalsHeld:
    """Holds back stop signals in this thread while a worker is forked (a no-op for the other signals).

    The child inherits the mask; :meth:`GeventWorker.init_signals` lifts it
    once the worker's own handlers are in place, and a stop sent meanwhile
    is delivered then. The master lifts it right after the fork.
    """

    def __enter__(self) -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)

    def __exit__(self, *_exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


class _RequestHeadTooSlow(Exception):
    pass


class _Idle:
    """A connection between requests: woken by the first bytes of the next one, or by the worker's stop."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.wake = Event()
        self.readable = False
        self._watcher = gevent.get_hub().loop.io(fd, 1)
        self._watcher.start(self._on_readable)

    def _on_readable(self) -> None:
        self.readable = True
        self.wake.set()

    def readable_now(self) -> bool:
        """Whether bytes wait on the socket, even if the event loop has not said so yet."""
        if self.readable:
            return True
        poller = _original_poll()
        poller.register(self.fd, select.POLLIN)
        return bool(poller.poll(0))

    def close(self) -> None:
        self._watcher.stop()
        self._watcher.close()


class GeventWorker(_GeventWorker):
    """HTTP/1.1 connections (svc configures neither TLS nor HTTP/2 in gunicorn), each a greenlet."""

    def init_process(self) -> None:
        self._idle: dict[Any, _Idle] = {}  # connection greenlet -> its wait for the next request
        self._stopping_at: float | None = None
        self._stopping = Event()
        super().init_process()

    def run(self) -> None:
        """Serve until told to stop, then until every connection has ended (at most the graceful timeout).

        Unlike gunicorn's loop, which looks every second, the stop is seen at
        once and the worker exits as soon as its last connection ends.
        """
        servers: list[tuple[StreamServer, Pool]] = []
        for listener in self.sockets:
            listener.setblocking(True)
            # The listener's name is read now: once the worker stops, server.close() closes its copy of the
            # socket, and a connection accepted just before must still be answered.
            pool = Pool(self.worker_connections)
            server = StreamServer(listener, handle=functools.partial(self.handle, listener.getsockname()), spawn=pool)
            if self.cfg.workers > 1:
                server.max_accept = 1  # leave the next connection to an idler worker
            server.start()
            servers.append((server, pool))
        while self.alive:
            self.notify()
            self._stopping.wait(1.0)
        for server, _ in servers:
            server.close()  # no new connections; the listening socket stays open in the master
        deadline = time.monotonic() + self.cfg.graceful_timeout
        for server, pool in servers:
            while not pool.join(timeout=max(0.0, min(1.0, deadline - time.monotonic()))):
                if time.monotonic() >= deadline:
                    self.log.warning("Worker graceful timeout (pid:%s)", self.pid)
                    server.stop(timeout=1)
                    break
                self.notify()

    def init_signals(self) -> None:
        super().init_signals()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # held since the fork: see StopSignalsHeld

    def handle_exit(self, sig: Any, frame: Any) -> None:
        super().handle_exit(sig, frame)
        if self._stopping_at is None:
            self._stopping_at = time.monotonic()
            gevent.spawn(self._last_call)  # not inside the signal handler

    def _last_call(self) -> None:
        self._stopping.set()
        for idle in list(self._idle.values()):
            idle.wake.set()

    def handle(self, listener_name: Any, client: Any, addr: Any) -> None:
        client.setblocking(True)
        parser = http.get_parser(self.cfg, client, addr)
        req = None
        try:
            while self._next_request_arrives(client, parser):
                req = None
                try:
                    with gevent.Timeout(REQUEST_HEAD_SECONDS, _RequestHeadTooSlow):
                        req = next(parser)
                except _RequestHeadTooSlow:
                    util.write_error(client, 408, "Request Timeout", "")
                    return
                # gunicorn's own request handling (not ggevent's, which hides a killed greenlet)
                AsyncWorker.handle_request(self, listener_name, req, client, addr)
        except StopIteration:
            _linger(client, parser)  # a response that closes the connection was sent (gunicorn's own rule)
        except (NoMoreData, gevent.GreenletExit):
            pass  # the connection is over: closed by the client, or killed after the graceful timeout
        except OSError as error:
            if error.errno not in (errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN):
                self.log.info("connection ended: %s", error)
        except Exception as error:
            self.handle_error(req, client, addr, error)  # a malformed request: 400, 414 or 431
        finally:
            util.close(client)

    def _next_request_arrives(self, client: Any, parser: Any) -> bool:
        """Wait for the first byte of the next request: False when the connection is to close instead."""
        previous = parser.mesg
        if previous is not None and (
            previous.should_close() or not parser.finish_body(deadline=time.monotonic() + REQUEST_HEAD_SECONDS)
        ):
            return False
        if parser.unreader.buf.getbuffer().nbytes:
            return True  # pipelined: already read
        idle = _Idle(client.fileno())
        current = gevent.getcurrent()
        self._idle[current] = idle
        try:
            deadline = time.monotonic() + self.cfg.keepalive
            while not idle.readable:
                if self._stopping_at is not None:
                    deadline = min(deadline, self._stopping_at + LAST_CALL_SECONDS)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                idle.wake.clear()
                idle.wake.wait(remaining)
            return idle.readable_now()
        finally:
            del self._idle[current]
            idle.close()


def _linger(client: Any, parser: Any) -> None:
    """Close in stages: the write side, then what is left of the request's body is read and dropped (bounded)."""
    try:
        client.shutdown(socket.SHUT_WR)
        parser.finish_body(deadline=time.monotonic() + LINGER_SECONDS, max_bytes=LINGER_BYTES)
    except OSError:
        pass  # the client has gone already: nothing left to protect
