"""The pages' charts: the listings' facet counts, labelled in the page's language, linking to those listings.

The counts come from the listings' own functions (:func:`catalog.domain.search.search`,
:func:`~catalog.domain.search.years_active`, :func:`~catalog.domain.all_records.all_records_facets`), so a
bar counts what its link lists; :mod:`catalog.domain.charts` lays them out and ``templates/_chart.html``
draws them as inline SVG, with a table of the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from catalog.domain import all_records, charts, engine
from catalog.domain.model import Catalog, Project
from catalog.domain.search import FacetResult, ListingQuery, SearchIndex, ranked, search, years_active
from catalog.pages import page_links, vocabulary
from catalog.pages.templatetags.catalog_tags import number

Params = charts.Params


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar as the page shows it: where it is drawn, what it says, where it leads."""

    shape: charts.Column | charts.Row
    label: str  # in the page's language
    count: int
    url: str  # the listing it counts, in the page's language
    name: str  # its link's accessible name: "2012: 165 records"


@dataclass(frozen=True, slots=True)
class Chart:
    key: str  # unique on its page: the ids of its heading and table
    title: str
    label_heading: str  # the table's first column
    count_heading: str  # the table's second column
    bars: tuple[Bar, ...]
    years: charts.YearChart | None = None
    rows: charts.RowChart | None = None

    @property
    def drawn(self) -> tuple[Bar, ...]:
        """The bars the drawing shows: every column; the largest rows (the table has them all)."""
        return self.bars[: len(self.rows.drawn)] if self.rows else self.bars

    @property
    def left_out(self) -> int:
        return len(self.bars) - len(self.drawn)

    @property
    def height(self) -> int:
        drawing = self.years or self.rows
        return drawing.height if drawing else 0


def _records(count: int) -> str:
    return ngettext("{count} record", "{count} records", count).format(count=number(count))


def _projects(count: int) -> str:
    return ngettext("{count} project", "{count} projects", count).format(count=number(count))


def _url(path: str, params: Params) -> str:
    return f"{path}?{urlencode(params)}"


def _year_chart(
    key: str, title: str, counts: dict[int, int], params: Callable[[int], Params], listing: str, counted: str
) -> Chart | None:
    """A chart of years; ``listing`` is the path its bars link to, ``counted`` "records" or "projects"."""
    drawing = charts.year_chart(counts, {year: params(year) for year in counts})
    if drawing is None:
        return None
    phrase = _records if counted == "records" else _projects
    bars = tuple(
        Bar(c, str(c.year), c.count, _url(listing, c.params), f"{c.year}: {phrase(c.count)}") for c in drawing.columns
    )
    count_heading = _("Records") if counted == "records" else _("Projects")
    return Chart(key, title, _("Year"), count_heading, bars, years=drawing)


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
    bars = tuple(
        Bar(row, row.label, row.count, _url(listing, row.params), f"{row.label}: {phrase(row.count)}")
        for row in drawing.rows
    )
    count_heading = _("Records") if counted == "records" else _("Projects")
    return Chart(key, title, label_heading, count_heading, bars, rows=drawing)


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
