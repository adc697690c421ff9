"""Processes that ``svc stamp`` forks to share its work, and that end with it.

Killed with the stamp (``kill -9``, the out-of-memory killer), a helper
process would otherwise work on for seconds, holding the stamp's lock and
writing files nobody will read. On Linux the kernel sends it SIGKILL when its
parent ends (``PR_SET_PDEATHSIG``), and names it (``PR_SET_NAME``: ``ps`` and
tests tell the stamp's processes apart).
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

# How many processes the stamp forks for each of its parallel parts (reading the records, making the search index's
# documents): on two cores, two keep both busy beside the stamp's own process.
PROCESSES = 2
_PR_SET_PDEATHSIG, _PR_SET_NAME = 1, 15


class ProcessLost(Exception):
    """One of the stamp's processes ended before its work was done (killed: out of memory?): nothing is written."""


def _start(name: bytes, parent: int, initializer: Callable[..., None], initargs: tuple[Any, ...]) -> None:
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the process ends when its pipe closes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_NAME, name, 0, 0, 0)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent ended before the request was made
        os._exit(1)
    initializer(*initargs)


def forked_pool(
    processes: int, name: bytes, initializer: Callable[..., None], initargs: tuple[Any, ...]
) -> ProcessPoolExecutor:
    """``processes`` forked processes named ``name``, each set up by ``initializer(*initargs)``.

    Forked, they have what the arguments hold without pickling it. An executor
    rather than a Pool: a process killed mid-task breaks it (``BrokenProcessPool``),
    where a Pool would wait for that task for ever.
    """
    return ProcessPoolExecutor(
        processes,
        multiprocessing.get_context("fork"),
        initializer=_start,
        initargs=(name, os.getpid(), initializer, initargs),
    )
