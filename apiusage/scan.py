"""Walk files and directories and run every scanner on each text file."""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from apiusage.findings import Finding
from apiusage.lines import LineScanner
from apiusage.ontology import OntologyError, OntologyScanner, rdf_format
from apiusage.payloads import PayloadScanner
from apiusage.registry import Registry
from apiusage.source import SourceText

# Directories that hold no code of the project being checked.
SKIPPED_DIRECTORIES = frozenset(
    {".git", ".hg", ".svn", "node_modules", "__pycache__", ".tox", ".nox", ".mypy_cache", ".pytest_cache"}
)
_BINARY_SNIFF_BYTES = 8192


@dataclass
class ScanReport:
    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # "<file>: <reason>": files that could not be checked
    notes: list[str] = field(default_factory=list)  # "<file>: <remark>": files checked only in part
    files_scanned: int = 0
    binary_files_skipped: int = 0

    def count(self, status: str) -> int:
        return sum(1 for finding in self.findings if finding.entry.status == status)


def iter_files(root: Path) -> Iterator[Path]:
    """`root` itself if it is a file, else every file below it in name order, skipping VCS, dependency and venv
    directories (a venv is recognised by its pyvenv.cfg, whatever its name)."""
    if not root.is_dir():
        yield root
        return
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(
            name
            for name in subdirectories
            if name not in SKIPPED_DIRECTORIES and not (Path(directory, name, "pyvenv.cfg").exists())
        )
        for name in sorted(files):
            yield Path(directory, name)


class Scanner:
    def __init__(self, registry: Registry) -> None:
        self._lines = LineScanner(registry)
        self._payloads = PayloadScanner(registry)
        self._ontologies = OntologyScanner(registry)

    def scan(self, roots: Sequence[Path]) -> ScanReport:
        report = ScanReport()
        for root in roots:
            for path in iter_files(root):
                self._scan_file(path, report)
        unique = {finding.sort_key: finding for finding in report.findings}
        report.findings = [unique[key] for key in sorted(unique)]
        return report

    def _scan_file(self, path: Path, report: ScanReport) -> None:
        try:
            data = path.read_bytes()
            if path.suffix == ".gz":  # rotated access logs
                data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:  # EOFError, zlib.error: a truncated or corrupt .gz
            report.errors.append(f"{path}: cannot read: {getattr(error, 'strerror', None) or error}")
            return
        if b"\0" in data[:_BINARY_SNIFF_BYTES]:
            report.binary_files_skipped += 1
            return
        report.files_scanned += 1
        source = SourceText(path, data.decode("utf-8", errors="replace").removeprefix("\ufeff"))
        del data  # large access logs: keep one copy of the text
        name = PurePath(path.name.removesuffix(".gz"))
        json_document = self._json_document(source, name, report)
        hits = [*self._lines.scan(source)]
        hits += self._payloads.scan(source, is_json=json_document is not None)
        fmt = rdf_format(name, source.text, json_document)
        if fmt:
            try:
                hits += self._ontologies.scan(source, fmt, json_document)
            except OntologyError as error:
                report.errors.append(f"{path}: {error}")
        report.findings += (Finding.of(str(path), hit) for hit in hits)

    @staticmethod
    def _json_document(source: SourceText, name: PurePath, report: ScanReport) -> Any:
        """The parsed document of a .json/.jsonld file, else None.

        An invalid .json file is still scanned as text, with a note (tsconfig-style files with comments are
        common); an invalid .jsonld file is reported by the ontology scanner.
        """
        suffix = name.suffix.lower()
        if suffix not in (".json", ".jsonld"):
            return None
        try:
            return json.loads(source.text)
        except ValueError as error:
            if suffix == ".json":
                report.notes.append(f"{source.path}: not valid JSON ({error}); scanned as text")
            return None
