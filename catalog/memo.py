"""Values derived from a catalogue, built on first use and kept while it is served."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TypeVar

from catalog.model import Catalog

T = TypeVar("T")


def per_catalog(build: Callable[[Catalog], T]) -> Callable[[Catalog], T]:
    """Memoise ``build(catalog)`` until a catalogue with another data version is passed.

    One value is kept at a time: a reload replaces the catalogue, and the value
    derived from the old one is dropped with it.
    """
    lock = threading.Lock()
    cached: list[tuple[str, T]] = []

    @functools.wraps(build)
    def get(catalog: Catalog) -> T:
        current = cached[0] if cached else None
        if current is None or current[0] != catalog.data_version:
            with lock:
                current = cached[0] if cached else None
                if current is None or current[0] != catalog.data_version:
                    current = (catalog.data_version, build(catalog))
                    cached[:] = [current]
        return current[1]

    return get
