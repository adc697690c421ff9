"""The process-wide catalogue: loaded once, swapped whole on reload.

Requests read :func:`get_catalog`; a reload builds a complete new catalogue
first and swaps the reference, so a request never sees a half-loaded one and a
broken data set never replaces a good one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from django.conf import settings

from catalog.domain import ledger
from catalog.domain.loader import DataDirError, check_data_dir, check_holds_data, shrinkage
from catalog.domain.model import Catalog
from catalog.domain.snapshot import open_catalog
from validation.checks import ENTITY_KINDS
from validation.schema import schemas

logger = logging.getLogger("catalog")

_current: Catalog | None = None
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
                install(load())
    assert _current is not None
    return _current


def current() -> Catalog | None:
    """The catalogue loaded so far, without loading one."""
    return _current


def install(catalog: Catalog) -> None:
    """Make ``catalog`` the one every following request sees."""
    global _current
    _current = catalog


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
        view = ledger.read_view(catalog)
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


def reload() -> bool:
    """Re-read the data directory; keep serving the current data if the new set is broken.

    Broken means: the directory is missing or unreadable, holds no entity
    files (unless ``SVC_ALLOW_EMPTY_DATA``), a file (or
    entity kind) that loaded before now has a problem — typically a file
    caught half-copied, which would silently drop what it holds — or a type
    lost all its items or more than ``SVC_RELOAD_MAX_SHRINK`` of them (a
    directory removed or emptied by mistake). Problems the current data
    already had do not block a reload.
    """
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
    losses = shrinkage(_current.counts(), catalog.counts(), settings.SVC.reload_max_shrink) if _current else []
    if losses:
        logger.error(
            "reload refused: it would lose %s (SVC_RELOAD_MAX_SHRINK=%s); still serving data version %s",
            ", ".join(losses),
            settings.SVC.reload_max_shrink,
            serving,
        )
        return False
    install(catalog)
    counts = ", ".join(f"{count} {kind}" for kind, count in catalog.counts().items())
    logger.info("reloaded data version %s (was %s): %s", catalog.data_version, serving, counts)
    return True
