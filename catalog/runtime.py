"""The process-wide catalogue: loaded once, swapped whole on reload.

Requests read :func:`get_catalog`; a reload builds a complete new catalogue
first and swaps the reference, so a request never sees a half-loaded one and a
broken data set never replaces a good one. A release whose change ledger
names an activation time still ahead is loaded at once but served only from
that time on (docs/oai-pmh.md: datestamps never earlier than the moment a
change is served).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from django.conf import settings

from catalog.domain import ledger
from catalog.domain.loader import DataDirError, check_data_dir, check_holds_data, shrinkage
from catalog.domain.model import Catalog
from catalog.domain.schema import ENTITY_KINDS, schemas
from catalog.domain.snapshot import open_catalog

logger = logging.getLogger("catalog")

_current: Catalog | None = None
_pending: Catalog | None = None  # a release loaded ahead of its activation time
_lock = threading.Lock()


class _NoSpan:
    def set_attribute(self, key: str, value: Any) -> None:
        pass


def _untraced(name: str, **attributes: Any) -> contextlib.AbstractContextManager[Any]:
    return contextlib.nullcontext(_NoSpan())


_span: Callable[..., contextlib.AbstractContextManager[Any]] = _untraced


def trace_with(span_factory: Callable[..., contextlib.AbstractContextManager[Any]]) -> None:
    """Use ``span_factory(name, **attributes)`` for :func:`span` (the site's telemetry installs its own at start-up)."""
    global _span
    _span = span_factory


def span(name: str, **attributes: Any) -> contextlib.AbstractContextManager[Any]:
    """A traced unit of work (catalogue load, OAI rendering); a no-op until the site installs telemetry."""
    return _span(name, **attributes)


def get_catalog() -> Catalog:
    """The catalogue of this process, loading it on first use."""
    if _current is None:
        with _lock:
            if _current is None:
                install(served_from(load(), math.ceil(time.time())))
    serving = current()
    assert serving is not None
    return serving


def current() -> Catalog | None:
    """The catalogue served now, without loading one (a pending release once its activation time has come)."""
    global _current, _pending
    pending = _pending
    if pending is not None and time.time() >= _activation(pending):
        _current, _pending = pending, None
    return _current


def pending() -> Catalog | None:
    """A release loaded but not yet served (its activation time is ahead)."""
    return _pending


def install(catalog: Catalog) -> None:
    """Make ``catalog`` the one every following request sees."""
    global _current, _pending
    _current, _pending = catalog, None


@contextlib.contextmanager
def serving(catalog: Catalog) -> Iterator[None]:
    """Serve ``catalog`` for the duration (the master warming up a pending release before forking)."""
    global _current
    previous = _current
    _current = catalog
    try:
        yield
    finally:
        if _pending is not None:  # else the release's time came meanwhile: keep serving it
            _current = previous


def _activation(catalog: Catalog) -> int:
    view = catalog.ledger
    return view.activation if view is not None and view.activation is not None else 0


def served_from(catalog: Catalog, moment: int, late: Mapping[int, int] | None = None) -> Catalog:
    """The catalogue with its ledger told when this process starts serving its release.

    The release's changes are dated with its activation time, or with
    ``moment`` if that is later (a release served late): never earlier than
    a harvester can first receive them. ``late`` carries the same for the
    earlier releases this process served late.
    """
    if catalog.ledger is None:
        return catalog
    view = dataclasses.replace(catalog.ledger, served_from=moment, served_late=dict(late or {}))
    return dataclasses.replace(catalog, ledger=view)


def shrink_refusal(before: Mapping[str, int], after: Mapping[str, int], against: str) -> str | None:
    """Why data with counts ``after`` may not replace ``before`` (None: it may), in one line.

    One rule for a reload and a start-up: a type emptied, or shrunk by more
    than ``SVC_RELOAD_MAX_SHRINK``, unless ``SVC_ACCEPT_SHRINK`` accepts it.
    """
    config = settings.SVC
    losses = shrinkage(before, after, config.reload_max_shrink)
    if not losses or config.accept_shrink:
        return None
    return (
        f"it would lose {', '.join(losses)} against {against} (SVC_RELOAD_MAX_SHRINK={config.reload_max_shrink};"
        " SVC_ACCEPT_SHRINK=true accepts it)"
    )


def start_refusal(catalog: Catalog) -> str | None:
    """Why ``svc serve`` must not start on this data: it shrank too much against the ledger's last release.

    A restart must not publish by accident the mass deletion a reload refuses.
    """
    if catalog.ledger is None or not catalog.ledger.previous_counts:
        return None
    refusal = shrink_refusal(catalog.ledger.previous_counts, catalog.counts(), "the change ledger's last release")
    return None if refusal is None else f"start refused: {refusal}"


def load() -> Catalog:
    """Read the configured data directory (raises ``DataDirError`` if it is unusable), traced."""
    data_dir = settings.SVC.data_dir
    with span("catalog.load", **{"svc.data_dir": str(data_dir)}) as load_span:
        catalog = with_ledger(open_catalog(data_dir, conforms=_conforms))
        load_span.set_attribute("svc.data_version", catalog.data_version)
        load_span.set_attribute("svc.catalog.problems", len(catalog.problems))
        for kind, count in catalog.counts().items():
            load_span.set_attribute(f"svc.catalog.{kind}", count)
    return catalog


def _conforms(directory: str, value: Mapping[str, Any]) -> bool:
    """Whether an object of a type directory matches its JSON Schema (what ``svc validate`` checks)."""
    return schemas().is_valid(ENTITY_KINDS[directory], value)


def with_ledger(catalog: Catalog) -> Catalog:
    """The catalogue with its change ledger, if the data directory has one (docs/change-ledger.md).

    A ledger that cannot be read is ignored and one that does not match the
    data is used where it matches; either is said once, as a warning, and
    the items concerned keep the datestamp rule of data without a ledger.
    """
    try:
        view = catalog.ledger or ledger.read_view(catalog)  # a snapshot brings the view svc stamp stored
    except (ledger.LedgerError, OSError, UnicodeDecodeError) as error:
        logger.warning("change ledger of %s ignored: %s", catalog.data_dir, error)
        return catalog
    if view is None:
        return catalog
    if view.unmatched_count:
        logger.warning(
            "change ledger does not match the data: %d item(s) have no entry (%s); run `svc stamp`",
            view.unmatched_count,
            ", ".join(view.unmatched),
        )
    return dataclasses.replace(catalog, ledger=view)


def check_serveable(data_dir: Path, allow_empty: bool) -> None:
    """Raise ``DataDirError`` unless ``data_dir`` exists and (unless ``allow_empty``) holds entity files.

    The start-up and every reload apply it before loading anything, so a
    wrong mount never becomes a healthy, empty catalogue (SVC_ALLOW_EMPTY_DATA).
    """
    check_data_dir(data_dir)
    if not allow_empty:
        check_holds_data(data_dir)


def reload(drain: int = 0) -> bool:
    """Re-read the data directory; keep serving the current data if the new set is broken.

    ``drain`` is how long after this call the workers serving the old data
    may still answer: a release served late dates its changes after that.
    A release whose activation time is ahead waits for it (:func:`pending`).

    Broken means: the directory is missing or unreadable, holds no entity
    files (unless ``SVC_ALLOW_EMPTY_DATA``), a file (or
    entity kind) that loaded before now has a problem — typically a file
    caught half-copied, which would silently drop what it holds — or a type
    lost all its items or more than ``SVC_RELOAD_MAX_SHRINK`` of them (a
    directory removed or emptied by mistake). Problems the current data
    already had do not block a reload.
    """
    current()  # a release whose activation time has come is the one served (and compared with) now
    serving = _current.data_version if _current else None
    try:
        check_serveable(settings.SVC.data_dir, settings.SVC.allow_empty_data)
        catalog = load()
    except DataDirError as error:
        logger.error("reload refused: %s; still serving data version %s", error, serving)
        return False
    except Exception:
        logger.exception("reload failed; still serving data version %s", serving)
        return False
    known = {problem.path for problem in _current.problems} if _current else set()
    new_problems = sorted({problem.path for problem in catalog.problems} - known)
    if _current is not None and new_problems:
        logger.error(
            "reload refused: %s could not be loaded; still serving data version %s", ", ".join(new_problems), serving
        )
        return False
    refusal = shrink_refusal(_current.counts(), catalog.counts(), "the data served") if _current else None
    if refusal:
        logger.error("reload refused: %s; still serving data version %s", refusal, serving)
        return False
    loaded = time.time()
    activation = _activation(catalog)
    before = _current.ledger if _current is not None else None
    if before is not None and before.activation == activation and before.served_from is not None:
        moment = before.served_from  # the same release, already served: its changes keep their datestamps
    else:
        moment = max(activation, math.ceil(loaded) + drain)
    catalog = served_from(catalog, moment, before.late if before is not None else None)
    counts = ", ".join(f"{count} {kind}" for kind, count in catalog.counts().items())
    if activation > loaded:
        global _pending
        _pending = catalog
        logger.info(
            "loaded data version %s (serving %s until its activation at %s): %s",
            catalog.data_version,
            serving,
            ledger.iso_time(activation),
            counts,
        )
        return True
    if activation and moment > activation:
        logger.warning(
            "release of %s served %d s after its activation time: its changes are dated %s on this replica;"
            " stamp with a longer --activate-in so that every replica loads a release before it activates",
            ledger.iso_time(activation),
            moment - activation,
            ledger.iso_time(moment),
        )
    install(catalog)
    logger.info("reloaded data version %s (was %s): %s", catalog.data_version, serving, counts)
    return True
