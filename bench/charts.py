"""What the charts add to a cold render, in-process: a project page's records charts and the overview's.

The catalogue is opened as `svc serve` opens it (its snapshot when stamped) and warmed as
`svc serve` warms it before forking (the listing's and the all-records indexes built). Then, for
the projects with the most records:

* ``page``: the cold render of ``/projects/<shortcode>?tab=records``, the first request after start-up
  (nothing of the page memoised yet), through Django's test client;
* ``charts``: what of it the charts cost: their counts (the all-records facets of the project), their
  layout and their SVG and tables (``templates/_chart.html``), best of ``--runs``, computed afresh each time.

And the same ``charts`` figure for ``/overview``. Times are wall clock on whatever else the machine runs;
compare the two columns of one run.

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


def best_ms(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


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
    from catalog.domain.memo import memo_for
    from catalog.domain.model import Project
    from catalog.domain.search import SearchIndex
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
    largest = sorted(catalog.records.items(), key=lambda item: -len(item[1]))[: args.projects]
    client = Client()
    translation.activate("en")

    def drawn(found: tuple[charts.Chart, ...], heading: str) -> str:
        return "".join(render_to_string("_chart.html", {"chart": chart, "heading": heading}) for chart in found)

    def project_charts(project: Project) -> str:
        return drawn(charts.project_record_charts(catalog, project), "h3")

    print(f"{'page':32} {'records':>9} {'page cold (ms)':>15} {'charts (ms)':>12}")
    for key, table in largest:
        project = catalog.get_project(key)
        assert project is not None
        start = time.perf_counter()
        response = client.get(f"/projects/{project.shortcode}?tab=records")
        page_ms = (time.perf_counter() - start) * 1000
        assert response.status_code == 200, response.status_code
        charts_ms = best_ms(functools.partial(project_charts, project), args.runs)
        print(f"{'/projects/' + project.shortcode:32} {len(table):>9,} {page_ms:>15.1f} {charts_ms:>12.2f}")
    index = memo_for(catalog).get("search-index", lambda: SearchIndex.build(catalog))
    start = time.perf_counter()
    response = client.get("/overview")
    page_ms = (time.perf_counter() - start) * 1000
    assert response.status_code == 200, response.status_code
    charts_ms = best_ms(lambda: drawn(charts.overview_charts(charts.overview_counts(catalog, index)), "h2"), args.runs)
    print(f"{'/overview':32} {records:>9,} {page_ms:>15.1f} {charts_ms:>12.2f}")


if __name__ == "__main__":
    main()
