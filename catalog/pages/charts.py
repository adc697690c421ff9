"""The pages' charts: the listings' facet counts, labelled in the page's language, linking to those listings.

The counts come from the listings' own functions (:func:`catalog.domain.search.search`,
:func:`~catalog.domain.search.years_active`, :func:`~catalog.domain.all_records.all_records_facets`), so a
bar counts what its link lists; :mod:`catalog.domain.charts` lays them out and ``templates/_chart.html``
draws them as inline SVG, with a table of the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypedDict
from urllib.parse import urlencode

from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from catalog.domain import all_records, charts, engine
from catalog.domain.model import Catalog, Project
from catalog.domain.search import FacetResult, ListingQuery, SearchIndex, ranked, search, years_active
from catalog.pages import page_links, vocabulary
from catalog.pages.templatetags.catalog_tags import number

Params = charts.Params

# What the template reads of each bar, tick and row of the table: dicts of strings (numbers already written the
# page's way, marked as needing no escape), because the template's loops are most of what a chart costs: a dict key is
# its cheapest lookup, and such a string needs neither localising nor escaping (a cold /overview drew in 3.3 ms from
# dataclasses of numbers, 1.4 ms from these).


class Entry(TypedDict):
    """A row of a chart's table of numbers."""

    url: str  # the listing it counts, in the page's language
    label: str
    count: str


class ColumnBar(TypedDict):
    """A year's column."""

    url: str
    name: str  # the link's accessible name: "2012: 165 records"
    x: str  # percent of the width
    y: str  # px
    width: str
    height: str


class Line(TypedDict):
    y: str  # px: the baseline
    text: str


class RowBar(TypedDict):
    """A category's row: its label's lines, its bar and its count."""

    url: str
    name: str
    lines: tuple[Line, ...]
    bar_y: str  # px
    length: str  # percent of the width
    count: str


class Tick(TypedDict):
    at: str  # y of a grid line (px), or x of a year label (percent)
    text: str


@dataclass(frozen=True, slots=True)
class Chart:
    """A chart as ``templates/_chart.html`` draws it: a drawing of columns (years) or rows, and its table."""

    key: str  # unique on its page: the ids of its heading and table
    title: str
    label_heading: str  # the table's first column
    count_heading: str  # the table's second column
    height: str  # px: of the drawing
    table: tuple[Entry, ...]  # every bar's numbers
    columns: tuple[ColumnBar, ...] = ()
    grid: tuple[Tick, ...] = ()  # the value axis of the columns
    years: tuple[Tick, ...] = ()  # the years named under the columns
    years_y: str = ""  # px: their baseline
    rows: tuple[RowBar, ...] = ()  # the rows drawn: the largest (the table has them all)
    bar_height: str = ""  # px: of a row's bar

    @property
    def left_out(self) -> int:
        """The rows in the table only."""
        return len(self.table) - len(self.rows) if self.rows else 0


def _records(count: int) -> str:
    return ngettext("{count} record", "{count} records", count).format(count=number(count))


def _projects(count: int) -> str:
    return ngettext("{count} project", "{count} projects", count).format(count=number(count))


def _url(path: str, params: Params) -> str:
    return f"{path}?{urlencode(params)}"


def _px(value: float) -> str:
    return _written(f"{value:g}")


def _written(text: str) -> str:
    """A number this module wrote (digits, a decimal point, a percent sign, the language's grouping): nothing in it
    to escape, so the template need not try (a third of its time)."""
    return SafeString(text)  # what mark_safe makes of a str, without its check for lazy text


def _count(count: int) -> str:
    return _written(number(count))


def _year_chart(
    key: str, title: str, counts: dict[int, int], params: Callable[[int], Params], listing: str, counted: str
) -> Chart | None:
    """A chart of years; ``listing`` is the path its bars link to, ``counted`` "records" or "projects"."""
    drawing = charts.year_chart(counts, {year: params(year) for year in counts})
    if drawing is None:
        return None
    phrase = _records if counted == "records" else _projects
    table: list[Entry] = []
    columns: list[ColumnBar] = []
    for c in drawing.columns:
        entry = Entry(url=_url(listing, c.params), label=str(c.year), count=_count(c.count))
        table.append(entry)
        name = f"{c.year}: {phrase(c.count)}"
        columns.append(
            ColumnBar(
                url=entry["url"], name=name, x=_written(c.x), y=_px(c.y), width=_written(c.width), height=_px(c.height)
            )
        )
    return Chart(
        key,
        title,
        _("Year"),
        _("Records") if counted == "records" else _("Projects"),
        _px(drawing.height),
        tuple(table),
        columns=tuple(columns),
        grid=tuple(Tick(at=_written(tick.position), text=_count(tick.value)) for tick in drawing.grid),
        years=tuple(Tick(at=_written(tick.position), text=_written(str(tick.value))) for tick in drawing.labels),
        years_y=_px(drawing.label_y),
    )


def _row_chart(
    key: str,
    title: str,
    label_heading: str,
    facet: FacetResult,
    label: Callable[[str], str],
    params: Callable[[str], Params],
    listing: str,
    counted: str,
) -> Chart | None:
    """A chart of one facet's values, in the facet's order, each labelled by ``label(facet value's label)``."""
    drawing = charts.row_chart([(v.value, label(v.label), v.count, params(v.value)) for v in facet.values])
    if drawing is None:
        return None
    phrase = _records if counted == "records" else _projects
    table: list[Entry] = []
    rows: list[RowBar] = []
    drawn = len(drawing.drawn)
    for row in drawing.rows:
        entry = Entry(url=_url(listing, row.params), label=row.label, count=_count(row.count))
        table.append(entry)
        if len(rows) < drawn:
            lines = tuple(Line(y=_px(y), text=text) for text, y in row.lines)
            name = f"{row.label}: {phrase(row.count)}"
            rows.append(
                RowBar(
                    url=entry["url"],
                    name=name,
                    lines=lines,
                    bar_y=_px(row.bar_y),
                    length=_written(row.length),
                    count=entry["count"],
                )
            )
    return Chart(
        key,
        title,
        label_heading,
        _("Records") if counted == "records" else _("Projects"),
        _px(drawing.height),
        tuple(table),
        rows=tuple(rows),
        bar_height=_px(drawing.bar_height),
    )


def _type_label(label: str) -> str:
    return vocabulary.type_of_data_label(label) or label


def _present(*found: Chart | None) -> tuple[Chart, ...]:
    return tuple(chart for chart in found if chart is not None)


def project_record_charts(catalog: Catalog, project: Project) -> tuple[Chart, ...]:
    """A project's records by year and by type of data: the facets `/records?project=…` shows."""
    index = all_records.all_records_index(catalog)
    shortcode = project.shortcode
    query = all_records.AllRecordsQuery(filters=(("project", (shortcode,)),))
    facets = {facet.key: facet for facet in all_records.all_records_facets(index, query, ("type", "year"))}
    listing = page_links.all_records()
    years = {int(value.value): value.count for value in facets["year"].values}
    return _present(
        _year_chart(
            "records-per-year",
            _("Records by year"),
            years,
            lambda year: (("project", shortcode), ("year", str(year))),
            listing,
            "records",
        ),
        _row_chart(
            "records-per-type",
            _("Records by type of data"),
            _("Type of data"),
            facets["type"],
            _type_label,
            lambda value: (("project", shortcode), ("type", value)),
            listing,
            "records",
        ),
    )


def _projects_per_year(query: ListingQuery, years: dict[int, int], key: str, title: str) -> Chart | None:
    """How many of the projects ``query`` lists ran in each year (``years``: what :func:`years_active` counts for
    it), each year linking to the listing of them."""
    return _year_chart(
        key,
        title,
        years,
        lambda year: (*query.params(page=1), ("from", str(year)), ("to", str(year))),
        page_links.projects(),
        "projects",
    )


@dataclass(frozen=True, slots=True)
class OverviewCounts:
    """What `/overview` counts: the same whatever the request and its language, so counted once per catalogue."""

    projects: dict[str, FacetResult]  # the project listing's facets, nothing selected, by key
    projects_per_year: dict[int, int]
    records_per_year: dict[int, int]


def overview_counts(catalog: Catalog, index: SearchIndex) -> OverviewCounts:
    """The counts of `/overview`, from the listings' own functions."""
    facets = search(index, ListingQuery(), engine.search_engine(catalog)).facets
    (records,) = all_records.all_records_facets(
        all_records.all_records_index(catalog), all_records.AllRecordsQuery(), ("year",)
    )
    return OverviewCounts(
        {facet.key: facet for facet in facets},
        years_active(index, ListingQuery(), charts.MAX_YEARS),
        {int(value.value): value.count for value in records.values},
    )


def overview_charts(counts: OverviewCounts) -> tuple[Chart, ...]:
    """The catalogue at a glance: projects by discipline, status and access, per year; records per year."""
    projects = page_links.projects()

    def by(key: str, title: str, heading: str, label: Callable[[str], str]) -> Chart | None:
        return _row_chart(
            f"projects-per-{key}",
            title,
            heading,
            counts.projects[key],
            label,
            lambda v: ((key, v),),
            projects,
            "projects",
        )

    return _present(
        by("status", _("Projects by status"), _("Status"), _),
        by("access", _("Projects by access rights"), _("Access rights"), _),
        by("discipline", _("Projects by discipline"), _("Discipline"), str),
        _projects_per_year(
            ListingQuery(), counts.projects_per_year, "projects-per-year", _("Projects active per year")
        ),
        _year_chart(
            "records-per-year",
            _("Records by year"),
            counts.records_per_year,
            lambda year: (("year", str(year)),),
            page_links.all_records(),
            "records",
        ),
    )


def contributor_chart(catalog: Catalog, index: SearchIndex, contributor_id: str) -> Chart | None:
    """The projects of a person or organization per year, when the listing of their projects has several."""
    query = ListingQuery(filters=(("contributor", (contributor_id,)),))
    if len(ranked(index, query, engine.search_engine(catalog))) < 2:
        return None
    years = years_active(index, query, charts.MAX_YEARS)
    return _projects_per_year(query, years, "projects-per-year", _("Projects per year"))
