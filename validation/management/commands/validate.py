"""`svc validate <data_dir>`: check a data directory before publishing it (SPEC §6).

Thin: the checks live in :mod:`validation.checks`, the output in :mod:`validation.report`.
Exit status: 0 valid, 1 findings (or, with ``--strict``, warnings), 2 usage error (bad options, missing or
unreadable directory).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from catalog.domain.loader import DataDirError
from validation.checks import shrink_findings, validate_data_dir
from validation.report import finding_line, summary, to_json, warning_line


class Command(BaseCommand):
    # Django's system checks import every URLconf and view (rdflib, numpy, the templates): half a second of
    # every run spent on the web site, which this offline command never serves.
    requires_system_checks = ()
    help = (
        "Validate every data file under a data directory: JSON Schemas, references, orphans, duplicates, "
        "project roles in job titles, temporal coverage. Findings go to standard error as "
        "'<file>: <JSON path>: <message>', a summary to standard output. Warnings (valid data that degrades "
        "the harvested metadata) are printed as '<file>: <JSON path>: warning: <message>' and counted. "
        "Exit 0 when valid, 1 when something was found (or, with --strict, warned about), 2 for a usage error."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("data_dir", type=Path, help="the data directory (projects/, persons/, …)")
        parser.add_argument(
            "--format",
            choices=("text", "json"),
            default="text",
            help="text (default): findings on standard error, summary on standard output; "
            "json: one report object on standard output",
        )
        parser.add_argument("--strict", action="store_true", help="exit 1 on warnings too")

        parser.add_argument(
            "--previous",
            type=Path,
            help="the data directory served now: also report what a reload to data_dir would refuse "
            "(a type emptied, or shrunk by more than SVC_RELOAD_MAX_SHRINK)",
        )

    def handle(
        self, *args: Any, data_dir: Path, format: str, previous: Path | None, strict: bool = False, **options: Any
    ) -> None:
        on_terminal = self.stderr.isatty()
        try:
            report = validate_data_dir(data_dir, progress=self._show_progress if on_terminal else None)
            if previous is not None:
                # The loader's own lines would repeat the findings above (and break --format json).
                logging.getLogger("catalog.domain.loader").disabled = True
                report.findings.extend(shrink_findings(previous, data_dir, settings.SVC.reload_max_shrink))
        except DataDirError as error:
            self.stderr.write(f"svc validate: {error}")
            raise SystemExit(2) from None
        if on_terminal:
            self.stderr.write("\r\033[K", ending="")
        if format == "json":
            self.stdout.write(to_json(report))
        else:
            for finding in report.findings:
                self.stderr.write(finding_line(finding))
            for warning in report.warnings:
                self.stderr.write(warning_line(warning))
            self.stdout.write(summary(report))
        raise SystemExit(0 if report.valid and not (strict and report.warnings) else 1)

    def _show_progress(self, message: str) -> None:
        self.stderr.write(f"\r\033[Kchecking {message}", ending="")
        self.stderr.flush()
