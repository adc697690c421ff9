"""Values derived from the served catalogue, computed once and dropped with it.

The catalogue never changes while it is served, so whatever is computed from
it (view models, search index, API payloads, OAI indexes) stays valid until a
reload installs a new one. Everything here hangs off one :class:`CatalogMemo`
per catalogue object (no module state): a reload's new catalogue starts a fresh,
empty one, and the old one goes with the old catalogue. :class:`BytesLRU` is
the byte-bounded store the response cache is made of.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar

from catalog.domain.model import Catalog

T = TypeVar("T")

PAGE_CACHE_BYTES = 16 * 1024 * 1024
# What one entry costs besides its key and body: the ordered dict's slot and
# link node, and the (size, body) pair (CPython 3.11, measured with tracemalloc).
ENTRY_OVERHEAD = 200


def object_size(value: object) -> int:
    """Bytes ``value`` holds: itself plus, for tuples and dataclasses, what they contain.

    Keys are built from strings, numbers, tuples and small frozen dataclasses;
    anything else counts its own size only.
    """
    size = sys.getsizeof(value)
    if isinstance(value, tuple | list | frozenset):
        size += sum(object_size(item) for item in value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        size += sum(object_size(getattr(value, field.name)) for field in dataclasses.fields(value))
    return size


class BytesLRU:
    """Rendered bodies (and other values of known cost) by key, bounded by what they cost; least recently used go first.

    Bounded so that a crawler or harvester walking every URL cannot grow a
    worker without limit. An entry costs its key, its value and
    :data:`ENTRY_OVERHEAD`: with long keys and short bodies (long distinct
    query strings, small error answers) the keys are most of the memory.
    Entries costing more than a quarter of the budget are not kept.
    """

    def __init__(self, max_bytes: int = PAGE_CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Hashable, tuple[int, object]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        """Bytes the entries cost now (never more than ``max_bytes``)."""
        return self._size

    def __len__(self) -> int:
        return len(self._entries)

    def find(self, key: Hashable) -> object | None:
        """The value kept under ``key``, if any (it becomes the most recently used)."""
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            self._entries.move_to_end(key)
            return found[1]

    def keep(self, key: Hashable, value: object, value_bytes: int) -> None:
        """Keep ``value``, which holds ``value_bytes`` besides its key, in place of what ``key`` held."""
        cost = object_size(key) + value_bytes + ENTRY_OVERHEAD
        if cost > self.max_bytes // 4:
            return
        with self._lock:
            replaced = self._entries.pop(key, None)
            if replaced is not None:
                self._size -= replaced[0]
            self._entries[key] = (cost, value)
            self._size += cost
            while self._size > self.max_bytes:
                _, (evicted_cost, _) = self._entries.popitem(last=False)
                self._size -= evicted_cost

    def get_or_render(self, key: Hashable, render: Callable[[], bytes]) -> bytes:
        found = self.find(key)
        if isinstance(found, bytes):
            return found
        rendered = render()  # two threads may both render; the bodies are equal
        self.keep(key, rendered, sys.getsizeof(rendered))
        return rendered


MEMO = "memo"  # the key of a catalogue's memo among its derived values (Catalog.derived)


class CatalogMemo:
    """Values derived from one catalogue, computed on first use (view models, search and OAI indexes, payloads).

    Rendered bodies are not kept here: they depend on the configuration and
    the request too, and live in the application state's response cache
    (:class:`catalog.runtime.AppState`).
    """

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._values: dict[Hashable, object] = {}

    def get(self, key: Hashable, build: Callable[[], T]) -> T:
        try:
            return self._values[key]  # type: ignore[return-value]
        except KeyError:
            value = build()  # two threads may both build; the values are equal
            return self._values.setdefault(key, value)  # type: ignore[return-value]


def memo_for(catalog: Catalog) -> CatalogMemo:
    """The memo of ``catalog``: it hangs off the catalogue object, so a new catalogue starts a new, empty one."""
    memo: CatalogMemo | None = catalog.derived.get(MEMO)
    if memo is None:
        memo = catalog.derived.setdefault(MEMO, CatalogMemo(catalog))  # one wins if two threads race
    return memo


def per_catalog(build: Callable[[Catalog], T]) -> Callable[[Catalog], T]:
    """Decorate ``build(catalog)`` so it runs once per served catalogue."""

    @functools.wraps(build)
    def get(catalog: Catalog) -> T:
        return memo_for(catalog).get(build, lambda: build(catalog))

    return get
