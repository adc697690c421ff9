"""svc's version, read in this one place: the ``version`` of ``pyproject.toml``, as installed.

``svc --version``, the OpenAPI document's ``info.version``, the OAI-PMH
Identify description and the snapshot's header all take it from here; the
image's ``org.opencontainers.image.version`` label gets the same value from
``scripts/build-image``. CHANGELOG.md names it in its latest release heading
(``tests/test_version.py`` checks them all).
"""

from __future__ import annotations

from functools import cache
from importlib import metadata


@cache
def svc_version() -> str:
    """The installed svc's version ("unknown" when svc runs from a tree that was never installed)."""
    try:
        return metadata.version("svc")
    except metadata.PackageNotFoundError:
        return "unknown"
