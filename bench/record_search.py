#!/usr/bin/env python3
"""Time record search over a project's records and report the memory its index takes.

    python bench/record_search.py DIR [--project SHORTCODE] [--repeat N] [--json FILE]

Loads the catalogue, measures the resident set, builds the record index of every
project (as ``svc serve`` does before forking; with ``--snapshot`` the data
directory's snapshot is opened instead and brings them) and measures again; then runs a
set of queries against the largest project (or ``--project``), each ``--repeat``
times, and prints the median and the 95th percentile per query, as milliseconds.
A query's time covers matching, counting, sorting and cutting out one page.
With ``--pages N`` it also renders N distinct result pages (each a page-cache
miss) of the largest project through Django, parsing and laying out the rows.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np

from bench.load_time import current_rss_kib
from catalog.domain import engine, record_search
from catalog.domain.loader import load_catalog
from catalog.domain.model import Catalog
from catalog.domain.record_search import ProjectRecordIndex, RecordQuery, RecordResult, build_record_indexes
from catalog.domain.snapshot import open_catalog

QUERIES = (
    ("", "label", 1),
    ("", "newest", 1),
    ("", "label", 1000),
    ("seite", "label", 1),  # a common word
    ("text", "newest", 500),  # a word most records have (typeOfData)
    ("image", "identifier", 1),
    ("folio 12", "label", 1),  # two words
    ("1", "label", 1),  # a short prefix: many vocabulary words
    ("zzzz", "label", 1),  # no match
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--project", help="shortcode (default: the project with the most records)")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--pages", type=int, default=0, help="also time N whole pages through Django")
    parser.add_argument(
        "--snapshot", action="store_true", help="open DIR's snapshot, with its indexes, as svc serve does (10M records)"
    )
    args = parser.parse_args(argv)

    catalog = open_catalog(args.data_dir) if args.snapshot else load_catalog(args.data_dir)
    gc.collect()
    rss_loaded = current_rss_kib()
    started = time.perf_counter()
    indexes = build_record_indexes(catalog.records)
    build_seconds = time.perf_counter() - started
    gc.collect()
    rss_indexed = current_rss_kib()

    key = args.project.lower() if args.project else max(catalog.records, key=lambda k: len(catalog.records[k]))
    index = indexes[key]
    search_engine = engine.search_engine(catalog)

    def search_records(index: ProjectRecordIndex, query: RecordQuery) -> RecordResult:
        """The page's search: the engine's scores for the text, then the sort and the page."""
        scores = search_engine.record_scores(query.parsed, key) if query.text else None
        return record_search.search_records(index, query, scores)

    figures = []
    for text, sort, page in QUERIES:
        query = RecordQuery(text, sort, 1)
        total = search_records(index, query).total
        page = min(page, max(1, -(-total // 50)))
        query = RecordQuery(text, sort, page)
        times = []
        for _ in range(args.repeat):
            began = time.perf_counter()
            search_records(index, query)
            times.append((time.perf_counter() - began) * 1000)
        times.sort()
        figures.append(
            {
                "q": text,
                "sort": sort,
                "page": page,
                "matches": total,
                "median_ms": round(statistics.median(times), 2),
                "p95_ms": round(times[int(len(times) * 0.95) - 1], 2),
            }
        )
    if args.pages:
        figures.append(page_figures(catalog, indexes, key, args.pages))
    result = {
        "data_dir": str(args.data_dir),
        "project": key,
        "project_records": index.size,
        "all_records": catalog.record_count,
        "build_seconds": round(build_seconds, 2),
        "rss_loaded_mib": round(rss_loaded / 1024, 1),
        "rss_indexed_mib": round(rss_indexed / 1024, 1),
        "index_share_percent": round(100 * (rss_indexed - rss_loaded) / rss_loaded, 1),
        "queries": figures,
    }
    print(
        f"{key}: {index.size} of {result['all_records']} records; index built in {result['build_seconds']} s; "
        f"RSS {result['rss_loaded_mib']} -> {result['rss_indexed_mib']} MiB (+{result['index_share_percent']} %)"
    )
    for figure in figures:
        print(
            f"  q={figure['q']!r:12} sort={figure['sort']:10} page={figure['page']:<5} "
            f"{figure['matches']:>7} matches  median {figure['median_ms']:6.2f} ms  p95 {figure['p95_ms']:6.2f} ms"
        )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


def page_figures(catalog: Catalog, indexes: dict, key: str, count: int) -> dict:
    """Whole /records pages of ``key``: search "text", newest first, pages 1..count (all cache misses)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "svc_site.settings")
    import django

    django.setup()
    import tempfile

    from django.test import Client
    from django.test.utils import override_settings

    from svc_site.assets import ensure_built

    static_root = tempfile.mkdtemp(prefix="svc-bench-static-")
    override_settings(STATIC_ROOT=static_root).enable()  # pages need the built CSS/JS manifest
    ensure_built()

    from catalog import runtime
    from catalog.domain.memo import memo_for

    runtime.install(catalog)
    memo_for(catalog).get("record-indexes", lambda: indexes)
    client = Client()
    shortcode = catalog.project_by_key[key].shortcode
    times = []
    for number in range(1, count + 1):
        began = time.perf_counter()
        response = client.get(f"/projects/{shortcode}/records", {"q": "text", "sort": "newest", "page": str(number)})
        times.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, response.status_code
    times.sort()
    found = engine.search_engine(catalog).record_scores(engine.parse("text"), key)
    return {
        "q": "text (whole page)",
        "sort": "newest",
        "page": count,
        "matches": int(np.count_nonzero(found)) if found is not None else 0,
        "median_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[max(0, int(len(times) * 0.95) - 1)], 2),
    }


if __name__ == "__main__":
    raise SystemExit(main())
