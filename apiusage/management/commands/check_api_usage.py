"""`svc check-api-usage <path>…`: report uses of removed or deprecated companion repository API items."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

from django.core.management.base import BaseCommand, CommandParser

from apiusage.registry import Registry, RegistryError, load_registry
from apiusage.scan import Scanner, ScanReport

NAME = "check-api-usage"


class Command(BaseCommand):
    # Django's system checks import every URLconf and view (rdflib, numpy, the templates): half a second of
    # every run spent on the web site, which this offline command never serves.
    requires_system_checks = ()
    help = (
        "Scan files and directories (source code, access logs, JSON payloads, Turtle/RDF-XML/JSON-LD ontologies) "
        "for removed or deprecated companion repository API routes, payload fields, ontology properties and "
        "authentication methods. Exit 1 when a removed item is used (--strict: any item), 2 on usage errors or "
        "files that could not be checked, 0 otherwise."
    )

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        return super().create_parser(prog_name, NAME, **kwargs)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="files or directories to scan")
        parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
        parser.add_argument("--strict", action="store_true", help="deprecated items fail too (exit 1)")
        parser.add_argument("--list", action="store_true", help="print the registry instead of scanning")
        parser.add_argument(
            "--namespace",
            action="append",
            default=[],
            metavar="VOCAB=IRI",
            help="ontology namespace of a vocabulary (base, admin); repeatable; replaces the defaults",
        )
        parser.add_argument(
            "--prefix",
            action="append",
            default=[],
            metavar="VOCAB=NAME",
            help="prefix whose binding in a file names a vocabulary's namespace; repeatable; replaces the default",
        )

    def handle(self, *args: Any, paths: list[Path], **options: Any) -> None:
        try:
            registry = load_registry().with_overrides(
                _assignments(options["namespace"], "--namespace"), _assignments(options["prefix"], "--prefix")
            )
        except RegistryError as error:
            _usage_error(str(error))
        if options["list"]:
            if paths:
                _usage_error("--list takes no paths")
            self.stdout.write(_registry_json(registry) if options["format"] == "json" else _registry_table(registry))
            sys.exit(0)
        if not paths:
            _usage_error("give at least one file or directory to scan (or --list)")
        for path in paths:
            if not path.exists():
                _usage_error(f"{path}: no such file or directory")

        report = Scanner(registry).scan(paths)
        if options["format"] == "json":
            self.stdout.write(json.dumps(_report_json(report), indent=2, ensure_ascii=False))
        else:
            for finding in report.findings:
                self.stdout.write(finding.text())
            for message in report.notes + report.errors:
                self.stderr.write(message)
            self.stderr.write(_summary(report))
        failing = report.count("removed") + (report.count("deprecated") if options["strict"] else 0)
        sys.exit(2 if report.errors else 1 if failing else 0)


def _usage_error(message: str) -> NoReturn:
    print(f"svc {NAME}: {message}", file=sys.stderr)
    sys.exit(2)


def _assignments(values: list[str], option: str) -> dict[str, list[str]]:
    """`["base=http://…", "base=…"]` → `{"base": ["http://…", "…"]}`."""
    result: dict[str, list[str]] = {}
    for value in values:
        vocabulary, sep, setting = value.partition("=")
        if not sep or not vocabulary or not setting:
            _usage_error(f"{option} expects VOCAB=VALUE, got {value!r}")
        result.setdefault(vocabulary, []).append(setting)
    return result


def _summary(report: ScanReport) -> str:
    summary = (
        f"{report.count('removed')} removed, {report.count('deprecated')} deprecated "
        f"in {report.files_scanned} file(s) scanned"
    )
    if report.binary_files_skipped:
        summary += f", {report.binary_files_skipped} binary file(s) skipped"
    if report.errors:
        summary += f", {len(report.errors)} file(s) could not be checked"
    return summary


def _report_json(report: ScanReport) -> dict[str, Any]:
    return {
        "findings": [finding.to_json() for finding in report.findings],
        "errors": report.errors,
        "notes": report.notes,
        "summary": {
            "removed": report.count("removed"),
            "deprecated": report.count("deprecated"),
            "files_scanned": report.files_scanned,
            "binary_files_skipped": report.binary_files_skipped,
        },
    }


def _registry_json(registry: Registry) -> str:
    return json.dumps(registry.to_json(), indent=2, ensure_ascii=False)


def _registry_table(registry: Registry) -> str:
    header = ("ID", "KIND", "STATUS", "VERSION", "WHAT", "REPLACEMENT")
    rows = [header] + [
        (entry.id, entry.kind, entry.status, entry.version, entry.title, entry.replacement)
        for entry in registry.entries
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(header) - 1)]
    return "\n".join(
        "  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[-1]]) for row in rows
    )
