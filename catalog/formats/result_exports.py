"""A records result list as files: CSV (one row per record) and BibTeX (one entry per record).

`/records.csv` and `/records.bib` take the query of `/records` (search, facets, `from`/`to`, sort) and export its
first :data:`catalog.domain.all_records.EXPORT_LIMIT` hits in the page's order, whatever the page.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence

from catalog.domain.all_records import record_licence
from catalog.domain.engine import record_creators
from catalog.domain.model import Catalog, Project
from catalog.domain.record_search import record_date, record_label
from catalog.formats import citation, links
from catalog.formats.exports import Export

CSV = Export("csv", "records.csv", "CSV", "text/csv")
BIBTEX = Export("bib", "records.bib", "BibTeX", "application/x-bibtex")
RESULT_EXPORTS = (CSV, BIBTEX)

CSV_COLUMNS = ("project", "pid", "label", "type", "creators", "licence", "date", "url")


def _first(value: object) -> str:
    items = value if isinstance(value, list | tuple) else [value]
    return next((item.strip() for item in items if isinstance(item, str) and item.strip()), "")


def _projects(catalog: Catalog) -> Mapping[str, Project]:
    return {project.key: project for project in catalog.projects}


def to_csv(catalog: Catalog, hits: Sequence[tuple[str, int]], base_url: str) -> str:
    """One header row, then one row per hit (UTF-8 text; creators joined by "; ")."""
    projects = _projects(catalog)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for key, position in hits:
        table = catalog.records[key]
        record = table.record(position)
        pid = table.pids[position]
        project = projects[key]
        writer.writerow(
            (
                project.shortcode,
                pid,
                record_label(record) or links.record_suffix(pid),
                _first(record.get("typeOfData")),
                "; ".join(record_creators(record)),
                record_licence(record)[1],
                str(record_date(record) or ""),
                base_url + links.record_path(project.shortcode, pid),
            )
        )
    return out.getvalue()


def to_bibtex(catalog: Catalog, hits: Iterable[tuple[str, int]], base_url: str) -> str:
    """One ``@misc`` entry per hit, as each record's own citation.bib has it."""
    projects = _projects(catalog)
    entries = []
    for key, position in hits:
        project = projects[key]
        project_url = base_url + links.project_path(project.shortcode)
        data = citation.record_citation_data(catalog, project, catalog.records[key], position, project_url)
        entries.append(citation.to_bibtex(data))
    return "\n".join(entries)
