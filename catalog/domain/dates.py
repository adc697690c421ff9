"""When an item was issued and last changed: one rule for publicationYear, DataCite ``Issued``,
``dc:date``, citations, DCAT ``dct:issued`` and JSON-LD ``datePublished``; one for DCAT ``dct:modified``
and JSON-LD ``dateModified``.

A record is issued when it was published (``datePublished``). A project is
issued in its ``dataPublicationYear``; without one, when its first record was
published; without records, at its licence date; else at the end of a
finished project; else at its start. Dates are returned as ISO 8601 dates
(``YYYY`` or ``YYYY-MM-DD``), never timestamps.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from catalog.domain.ledger import iso_time
from catalog.domain.memo import memo_for
from catalog.domain.model import NO_DATESTAMP, Catalog, Project, RecordTable, is_placeholder

_DATE = re.compile(r"([0-9]{4})(?:-([0-9]{2})-([0-9]{2}))?(?=$|T|\s)")


def iso_date(value: Any) -> str | None:
    """``YYYY-MM-DD`` (or ``YYYY``) of a stored date or timestamp; None for anything else."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 10000:
        return f"{value:04d}"
    if not isinstance(value, str) or is_placeholder(value.strip()):
        return None
    match = _DATE.match(value.strip())
    if not match:
        return None
    year, month, day = match.groups()
    return f"{year}-{month}-{day}" if month else year


def record_issued(record: Mapping[str, Any]) -> str | None:
    """A record's issue date: its ``datePublished``, as a date."""
    return iso_date(record.get("datePublished"))


def earliest_record_published(table: RecordTable | None) -> str | None:
    """The earliest ``datePublished`` among a project's records (:meth:`RecordTable.earliest_published`)."""
    return table.earliest_published() if table else None


def _licence_date(project: Project) -> str | None:
    legal = project.get("legalInfo")
    found = []
    for entry in legal if isinstance(legal, tuple) else (legal,):
        licence = entry.get("license") if isinstance(entry, Mapping) else None
        date = iso_date(licence.get("licenseDate")) if isinstance(licence, Mapping) else None
        if date:
            found.append(date)
    return min(found, default=None)


def _project_issued(catalog: Catalog, project: Project) -> str | None:
    return (
        iso_date(project.get("dataPublicationYear"))
        or earliest_record_published(catalog.records_of(project))
        or _licence_date(project)
        or (iso_date(project.get("endDate")) if project.status == "Finished" else None)
        or iso_date(project.get("startDate"))
    )


def project_issued(catalog: Catalog, project: Project) -> str | None:
    """A project's issue date (see the module docstring); computed once per catalogue."""
    return memo_for(catalog).get(("project-issued", project.key), lambda: _project_issued(catalog, project))


def year(date: str | None) -> str | None:
    """The publication year of an issue date."""
    return date[:4] if date else None


def modified(catalog: Catalog, project: Project, index: int | None = None) -> str | None:
    """When the project's (or its record ``index``'s) description last changed: the change ledger's time,
    ISO 8601 in UTC. Without a ledger, a record's own ``dateModified`` (as a date); a project's nothing."""
    view = catalog.ledger
    if view is None:
        table = catalog.records_of(project) if index is not None else None
        return iso_date(table.record(index).get("dateModified")) if table is not None and index is not None else None
    stamp = view.project_changed(project.key) if index is None else view.record_changed_at(project.key, index)
    return iso_time(stamp) if stamp is not None and stamp != NO_DATESTAMP else None
