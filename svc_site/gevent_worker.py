"""gunicorn's gevent worker, closing its idle keep-alive connections as soon as it is told to stop.

On a reload (SIGHUP) gunicorn stops the old workers gracefully. A plain gevent
worker keeps serving the connections a proxy holds open until their
keep-alive timeout, so the proxy goes on receiving answers from the data the
old worker was forked with. This worker ends every connection that is
waiting for its next request at once; a request in progress still finishes
(its connection is closed after it, as gunicorn does for a stopping worker).
"""

from __future__ import annotations

from typing import Any

import gevent
from gunicorn.workers.ggevent import GeventWorker as _GeventWorker


class GeventWorker(_GeventWorker):
    def init_process(self) -> None:
        self._idle: set[Any] = set()  # connection greenlets waiting for their next request
        super().init_process()

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        current = gevent.getcurrent()
        self._idle.add(current)
        try:
            super().handle(listener, client, addr)
        finally:
            self._idle.discard(current)

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
        current = gevent.getcurrent()
        self._idle.discard(current)
        try:
            return super().handle_request(listener_name, req, sock, addr)
        finally:
            if self.alive:
                self._idle.add(current)

    def handle_exit(self, sig: Any, frame: Any) -> None:
        super().handle_exit(sig, frame)
        gevent.spawn(self._close_idle_connections)  # not inside the signal handler

    def _close_idle_connections(self) -> None:
        for greenlet in list(self._idle):
            greenlet.kill(block=False)
