"""The process-wide catalogue: loaded once, swapped whole on reload.

Requests read :func:`get_catalog`; a reload builds a complete new catalogue
first and swaps the reference, so a request never sees a half-loaded one and a
broken data set never replaces a good one.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings

from catalog.loader import load_catalog
from catalog.model import Catalog

logger = logging.getLogger("catalog")

_current: Catalog | None = None
_lock = threading.Lock()


def get_catalog() -> Catalog:
    """The catalogue of this process, loading it on first use."""
    if _current is None:
        with _lock:
            if _current is None:
                install(load_catalog(settings.SVC.data_dir))
    assert _current is not None
    return _current


def install(catalog: Catalog) -> None:
    """Make ``catalog`` the one every following request sees."""
    global _current
    _current = catalog


def reload() -> bool:
    """Re-read the data directory; keep serving the old data if that fails."""
    try:
        catalog = load_catalog(settings.SVC.data_dir)
    except Exception:
        logger.exception("reload failed; still serving data version %s", _current and _current.data_version)
        return False
    install(catalog)
    return True
