"""Per-catalogue memory: view models built once, rendered pages kept by size.

The catalogue never changes while it is served, so whatever is computed from
it stays valid until a reload installs a new one. Both caches belong to one
catalogue object and are dropped with it; the page cache is bounded by bytes
(least recently used pages go first) so that a crawler walking every URL
cannot grow a worker without limit.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar

from catalog.model import Catalog

T = TypeVar("T")

PAGE_CACHE_BYTES = 16 * 1024 * 1024


class CatalogMemo:
    """Values derived from one catalogue, computed on first use."""

    def __init__(self, catalog: Catalog, page_cache_bytes: int = PAGE_CACHE_BYTES) -> None:
        self.catalog = catalog
        self._values: dict[Hashable, object] = {}
        self._pages: OrderedDict[Hashable, bytes] = OrderedDict()
        self._page_bytes = 0
        self._page_cache_bytes = page_cache_bytes
        self._lock = threading.Lock()
        self._settings_seen: dict[int, object] = {}

    def settings_key(self, settings_object: object) -> int:
        """A cheap cache-key part for a settings object (hashing a Config costs tens of µs).

        The memo keeps every settings object it has seen alive (production has
        one; tests swap a few), so an id is never reused for another one.
        """
        key = id(settings_object)
        if key not in self._settings_seen:
            self._settings_seen[key] = settings_object
        return key

    def get(self, key: Hashable, build: Callable[[], T]) -> T:
        try:
            return self._values[key]  # type: ignore[return-value]
        except KeyError:
            value = build()  # two threads may both build; the values are equal
            return self._values.setdefault(key, value)  # type: ignore[return-value]

    def page(self, key: Hashable, render: Callable[[], bytes]) -> bytes:
        with self._lock:
            body = self._pages.get(key)
            if body is not None:
                self._pages.move_to_end(key)
                return body
        body = render()
        if len(body) > self._page_cache_bytes // 4:
            return body
        with self._lock:
            if key not in self._pages:
                self._pages[key] = body
                self._page_bytes += len(body)
                while self._page_bytes > self._page_cache_bytes:
                    _, dropped = self._pages.popitem(last=False)
                    self._page_bytes -= len(dropped)
        return body


_current: CatalogMemo | None = None
_lock = threading.Lock()


def memo_for(catalog: Catalog) -> CatalogMemo:
    """The memo of ``catalog``; a new catalogue starts a new, empty one."""
    global _current
    memo = _current
    if memo is not None and memo.catalog is catalog:
        return memo
    with _lock:
        if _current is None or _current.catalog is not catalog:
            _current = CatalogMemo(catalog)
        return _current
