"""A small in-process cache of rendered responses.

The data never changes while a catalogue is served, so a response depends
only on the data version, the configuration and the arguments; only its
``responseDate`` differs between two identical requests. Harvesters repeat
requests (a retried page, the same Identify every run), and a repeated page
is then answered without rendering it again. Bounded by bytes; least
recently used entries go first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

MAX_BYTES = 16 * 1024 * 1024  # per process
MAX_KEY_LENGTH = 2048  # requests with longer arguments are not cached


class ResponseCache:
    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Hashable, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get_or_render(self, key: Hashable, render: Callable[[], bytes]) -> bytes:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
        rendered = render()
        if len(rendered) <= self.max_bytes // 4:
            with self._lock:
                if key not in self._entries:
                    self._entries[key] = rendered
                    self._size += len(rendered)
                    while self._size > self.max_bytes:
                        _, evicted = self._entries.popitem(last=False)
                        self._size -= len(evicted)
        return rendered
