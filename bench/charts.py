"""What the charts add to a cold render, in-process: a project page, `/overview`, a person's and an organization's page.

The catalogue is opened as `svc serve` opens it (its snapshot when stamped) and warmed as `svc serve` warms it
before forking (the listing's and the all-records indexes built, `/overview`'s counts counted: their time is
printed as the start-up's share). Then, for the projects with the most records, `/overview`, and the person and
the organization with the most projects:

* ``page``: the cold render of the page, the first request after start-up (nothing of it memoised yet), through
  Django's test client;
* ``charts``: what of it the charts cost: their counts, their layout and their SVG and tables
  (``templates/_chart.html``) computed afresh, the first time after the page (``first``) and the best of
  ``--runs``.

Each figure is CPU time of this process (``time.process_time``) and wall-clock time: on a shared machine the
wall clock also counts the time spent waiting for a core, the CPU time does not.

    .venv/bin/python bench/charts.py /tmp/corpus-1m [--projects 3] [--runs 20]
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

Times = tuple[float, float]  # (CPU ms, wall ms)


def timed(work: Callable[[], object]) -> Times:
    cpu, wall = time.process_time(), time.perf_counter()
    work()
    return (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000


def best(work: Callable[[], object], runs: int) -> Times:
    times = [timed(work) for _ in range(runs)]
    return min(cpu for cpu, _ in times), min(wall for _, wall in times)


def shown(times: Times) -> str:
    return f"{times[0]:8.2f} {times[1]:8.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--projects", type=int, default=3, help="the projects with the most records to render")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    os.environ["SVC_DATA_DIR"] = str(args.data_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "svc_site.settings")
    os.environ.setdefault("SVC_ALLOWED_HOSTS", "*")
    import django

    django.setup()
    from django.template.loader import render_to_string
    from django.test import Client
    from django.utils import translation

    from catalog import runtime
    from catalog.domain import engine
    from catalog.domain.memo import memo_for
    from catalog.domain.model import Project
    from catalog.domain.search import ListingQuery, SearchIndex, ranked
    from catalog.domain.snapshot import open_catalog
    from catalog.pages import charts, views

    started = time.perf_counter()
    catalog = open_catalog(args.data_dir)
    runtime.install(catalog)
    views.warm_up()
    records = sum(len(table) for table in catalog.records.values())
    print(
        f"{args.data_dir}: {records:,} records, {len(catalog.projects)} projects; opened and warmed up in "
        f"{time.perf_counter() - started:.1f} s"
    )
    index = memo_for(catalog).get("search-index", lambda: SearchIndex.build(catalog))
    found = engine.search_engine(catalog)
    startup = best(lambda: charts.overview_counts(catalog, index), args.runs)
    print(f"/overview's counts, counted once at start-up: {startup[0]:.2f} ms CPU, {startup[1]:.2f} ms wall")

    def drawn(made: tuple[charts.Chart, ...], heading: str) -> str:
        return "".join(render_to_string("_chart.html", {"chart": chart, "heading": heading}) for chart in made)

    def project_drawn(project: Project) -> str:
        return drawn(charts.project_record_charts(catalog, project), "h3")

    def contributor_drawn(contributor: str) -> str:
        chart = charts.contributor_chart(catalog, index, contributor)
        return drawn((chart,) if chart else (), "h2")

    def projects_of(contributor: str) -> int:
        return len(ranked(index, ListingQuery(filters=(("contributor", (contributor,)),)), found))

    pages: list[tuple[str, str, Callable[[], object]]] = []  # (path, what it holds, its charts drawn)
    largest = sorted(catalog.records.items(), key=lambda item: -len(item[1]))[: args.projects]
    for key, table in largest:
        project = catalog.get_project(key)
        assert project is not None
        pages.append(
            (
                f"/projects/{project.shortcode}?tab=records",
                f"{len(table):,} records",
                functools.partial(project_drawn, project),
            )
        )
    counts = charts.overview_counts(catalog, index)
    pages.append(("/overview", f"{records:,} records", lambda: drawn(charts.overview_charts(counts), "h2")))
    for kind, entities in (("person", catalog.persons), ("organization", catalog.organizations)):
        most, entity = max((projects_of(item.id), item.id) for item in entities.values())
        pages.append(
            (
                f"/{kind}s/{entity}",
                f"{most} projects",
                functools.partial(contributor_drawn, entity),
            )
        )

    client = Client()
    translation.activate("en")
    print(f"{'':36} {'':>15} {'page cold':>17} {'charts, first':>17} {'charts, best':>17}")
    print(f"{'page':36} {'holding':>15} {'CPU ms':>8} {'wall ms':>8} " + f"{'CPU ms':>8} {'wall ms':>8} " * 2)
    for path, holding, draw in pages:
        page = timed(functools.partial(client.get, path))
        response = client.get(path)
        assert response.status_code == 200 and b'class="chart"' in response.content, (path, response.status_code)
        print(f"{path:36} {holding:>15} {shown(page)} {shown(timed(draw))} {shown(best(draw, args.runs))}")


if __name__ == "__main__":
    main()
