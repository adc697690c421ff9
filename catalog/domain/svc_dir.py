"""The ``.svc/`` directory beside the data, as ``svc stamp`` writes it: one stamp at a time, no leftovers.

A stamp takes an exclusive lock (``fcntl.flock`` on ``.svc/stamp.lock``)
for as long as it or any of its reading processes lives; a second stamp of
the same data directory is refused at once, naming the holder written in
the file (emptied again when the stamp ends). Holding the lock, a stamp knows that no live stamp owns the
temporary files it finds (``.parts-*``, ``.snapshot-*``, ``.ledger-*.tmp``,
…: what a stamp killed mid-way left behind) and removes them, so they
neither pile up nor get copied to every replica.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
import socket
import time
from collections.abc import Iterator
from pathlib import Path

logger = logging.getLogger("catalog.domain.svc_dir")

SVC_DIR = ".svc"
LOCK_NAME = "stamp.lock"
# What a stamp writes before renaming it into place (tempfile names), in .svc/: a killed stamp leaves them.
TEMPORARIES = (".parts-*", ".snapshot-*", ".ledger-*.tmp", ".token-key-*.tmp", ".shrink-accepted-*.tmp")


class StampBusy(Exception):
    """Another stamp holds the lock of this data directory."""


@contextlib.contextmanager
def stamp_lock(data_dir: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the data directory's stamp lock for the block, and first remove what stamps that did not finish left.

    Raises :class:`StampBusy` (naming the holder) when another stamp holds
    it. Processes forked inside the block share the lock: it is free again
    only once the last of them has ended.
    """
    directory = Path(data_dir) / SVC_DIR
    directory.mkdir(exist_ok=True)
    descriptor = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(descriptor, 256, 0).decode("utf-8", "replace").strip() or "one that did not say"
            raise StampBusy(f"another svc stamp is writing {directory} ({holder})") from None
        since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"pid {os.getpid()} on {socket.gethostname()}, since {since}\n".encode(), 0)
        remove_leftovers(directory)
        try:
            yield
        finally:
            os.ftruncate(descriptor, 0)  # no holder any more: the file stays, empty (unlinking it would race)
    finally:
        os.close(descriptor)


def remove_leftovers(directory: Path) -> list[str]:
    """Remove the temporaries of stamps that did not finish (the caller holds the lock); their names, sorted."""
    found = sorted({path for pattern in TEMPORARIES for path in directory.glob(pattern)})
    for path in found:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    if found:
        logger.warning(
            "removed what a stamp that did not finish left in %s: %s", directory, ", ".join(p.name for p in found)
        )
    return [path.name for path in found]
