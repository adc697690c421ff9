"""How `svc validate` shows a :class:`~validation.checks.Report`: text lines or one JSON object."""

from __future__ import annotations

import json

from validation.checks import Finding, Report
from validation.warnings import MetadataWarning


def finding_line(finding: Finding) -> str:
    """``<file>: <JSON path>: <message>``, one line (for standard error)."""
    return f"{finding.file}: {finding.path}: {finding.message}"


def warning_line(warning: MetadataWarning) -> str:
    """``<file>: <JSON path>: warning: <message>``, one line (for standard error)."""
    return f"{warning.file}: {warning.path}: warning: {warning.message}"


def summary(report: Report) -> str:
    """The counts, for standard output."""
    objects = ", ".join(f"{count:,} {kind}" for kind, count in report.counts.items() if kind != "files")
    lines = [f"checked {report.counts['files']:,} files in {report.data_dir}: {objects}"]
    if report.valid:
        lines.append("valid: no findings")
    else:
        by_check = ", ".join(f"{count:,} {check}" for check, count in report.counts_by_check().items())
        lines.append(f"{len(report.findings):,} findings: {by_check}")
    if report.warnings:
        by_check = ", ".join(f"{count:,} {check}" for check, count in report.warnings_by_check().items())
        lines.append(f"{len(report.warnings):,} warnings: {by_check}")
    return "\n".join(lines)


def to_json(report: Report) -> str:
    """The machine-readable report (``--format json``)."""
    return json.dumps(
        {
            "data_dir": report.data_dir,
            "valid": report.valid,
            "counts": report.counts,
            "findings_by_check": report.counts_by_check(),
            "findings": [
                {"file": f.file, "path": f.path, "message": f.message, "check": f.check.value} for f in report.findings
            ],
            "warnings_by_check": report.warnings_by_check(),
            "warnings": [
                {"file": w.file, "path": w.path, "message": w.message, "check": w.check.value} for w in report.warnings
            ],
        },
        ensure_ascii=False,
        indent=2,
    )
