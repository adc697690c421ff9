"""The site's CSS/JS package: named by FRAMEWORK_* settings, built by collectstatic.

The sources are ``static/package/site.css`` and ``site.js``. They are published
as ``<FRAMEWORK_SITE_PKG_DIR>/<FRAMEWORK_OUTPUT_NAME>.css|.js`` under
``STATIC_ROOT`` (= ``FRAMEWORK_SITE_ROOT``) by :class:`PackageFinder`, then
fingerprinted and compressed by WhiteNoise's storage.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, ClassVar, Literal, overload

from django.conf import settings
from django.contrib.staticfiles.finders import BaseFinder
from django.core import checks
from django.core.checks import CheckMessage
from django.core.files.storage import FileSystemStorage
from django.core.management import call_command
from whitenoise.storage import CompressedManifestStaticFilesStorage

from svc_site.config import PROJECT_ROOT, Config

logger = logging.getLogger("svc_site.assets")

SOURCE_DIR = PROJECT_ROOT / "static" / "package"
PUBLIC_DIR = PROJECT_ROOT / "static" / "public"  # published as they are (settings.STATICFILES_DIRS)
SOURCES = {"css": "site.css", "js": "site.js"}
MANIFEST = "staticfiles.json"


def css_name(config: Config) -> str:
    return f"{config.site_pkg_dir}/{config.output_name}.css"


def js_name(config: Config) -> str:
    return f"{config.site_pkg_dir}/{config.output_name}.js"


def published_names(config: Config) -> dict[str, str]:
    """Published name -> source file name."""
    return {css_name(config): SOURCES["css"], js_name(config): SOURCES["js"]}


class _PackageStorage(FileSystemStorage):
    """The source directory, seen under the published names."""

    def __init__(self, names: dict[str, str]) -> None:
        super().__init__(location=SOURCE_DIR)
        self._names = names

    def path(self, name: str) -> str:
        return super().path(self._names.get(name, name))


class PackageFinder(BaseFinder):
    """Finds the CSS/JS package under the names the FRAMEWORK_* variables give it."""

    def _names(self) -> dict[str, str]:
        return published_names(settings.SVC)

    def check(self, **kwargs: Any) -> list[CheckMessage]:
        missing = [source for source in SOURCES.values() if not (SOURCE_DIR / source).is_file()]
        return [checks.Error(f"missing asset source {SOURCE_DIR / source}", obj=self) for source in missing]

    @overload
    def find(self, path: str, find_all: Literal[False] = False, **kwargs: Any) -> str | None: ...
    @overload
    def find(self, path: str, find_all: Literal[True], **kwargs: Any) -> list[str]: ...
    def find(self, path: str, find_all: bool = False, **kwargs: Any) -> str | list[str] | None:
        source = self._names().get(path)
        found = str(SOURCE_DIR / source) if source else None
        if find_all:
            return [found] if found else []
        return found

    def list(self, ignore_patterns: Iterable[str] | None) -> Iterator[tuple[str, FileSystemStorage]]:
        names = self._names()
        storage = _PackageStorage(names)
        for name in names:
            yield name, storage


class SiteStaticStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's fingerprinting storage that never breaks a page.

    When the assets were not built (no manifest, or an old one), a page still
    renders, linking the plain file name, and the problem is logged once.
    """

    _reported: ClassVar[set[str]] = set()  # report each missing asset once per process

    def url(self, name: str | None, force: bool = False) -> str:
        if name is None:  # no file named: nothing to fingerprint
            return FileSystemStorage.url(self, name)
        try:
            return super().url(name, force)
        except ValueError as error:
            if name not in self._reported:
                self._reported.add(name)
                logger.error("static asset %r is not built (%s); run collectstatic or svc serve", name, error)
            return FileSystemStorage.url(self, name)


def is_built(static_root: Path, config: Config) -> bool:
    """True when the static root holds a manifest with today's package names, newer than the sources."""
    manifest = static_root / MANIFEST
    try:
        paths = json.loads(manifest.read_text())["paths"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if not all(name in paths for name in published_names(config)):
        return False
    if not all(path.name in paths for path in PUBLIC_DIR.iterdir() if path.is_file()):
        return False  # a file added to static/public/ since the last build
    built_at = manifest.stat().st_mtime
    sources = [SOURCE_DIR / source for source in SOURCES.values()]
    return all(not path.exists() or path.stat().st_mtime <= built_at for path in sources)


def ensure_built() -> None:
    """Run collectstatic unless the static root is already up to date."""
    static_root = Path(settings.STATIC_ROOT)
    if is_built(static_root, settings.SVC):
        return
    logger.info("building static assets into %s", static_root)
    call_command("collectstatic", interactive=False, verbosity=0)
