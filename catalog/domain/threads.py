"""Work run on a second thread of the operating system while the caller does its own.

tantivy lets go of Python's lock while it searches, so two searches on two
threads use two cores: a search of `/records` counts its facets on one while
it finds its page on the other (docs/benchmark.md).

svc's workers run under gevent, whose monkey-patching makes `threading` and
`_thread` hand out greenlets, which take turns on one core: the functions
gevent saved before patching are used then. The caller waits for the result
on a lock of the operating system, holding its greenlet's hub as the search
itself does: the wait is the rest of one search.
"""

from __future__ import annotations

import _thread
import sys
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


def _primitives() -> tuple[Callable[..., Any], Callable[[], Any]]:
    """The operating system's ``start_new_thread`` and ``allocate_lock``, gevent's patching or not."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_module_patched("_thread"):
        start, allocate_lock = monkey.get_original("_thread", ["start_new_thread", "allocate_lock"])
        return start, allocate_lock
    return _thread.start_new_thread, _thread.allocate_lock


class Beside(Generic[T]):
    """``work`` started on a new thread of the operating system; :meth:`result` waits for what it returns."""

    def __init__(self, work: Callable[[], T]) -> None:
        start, allocate_lock = _primitives()
        self._work = work
        self._done = allocate_lock()
        self._done.acquire()
        self._value: T | None = None
        self._error: BaseException | None = None
        start(self._run, ())

    def _run(self) -> None:
        try:
            self._value = self._work()
        except BaseException as error:  # handed to the caller, who raises it in its own thread
            self._error = error
        finally:
            self._done.release()

    def result(self) -> T:
        """What ``work`` returned, once it has (the error it raised, raised here)."""
        with self._done:
            pass
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]
