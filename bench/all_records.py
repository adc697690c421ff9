#!/usr/bin/env python3
"""Time the search across all records (`/records`) and report the memory its index takes.

    python -m bench.all_records DIR [--repeat N] [--json FILE]

Loads the catalogue, builds every project's record index and then the index of
all records (as ``svc serve`` does before forking), measuring the build time and
the resident set after each step; then runs a set of queries (search text,
facet selections, sort, page), each ``--repeat`` times, and prints the median
and the 95th percentile per query, as milliseconds. A query's time covers
matching in every project, the four facets' counts, filtering, ordering and
cutting out one page. Each time is given as wall-clock and as the process's CPU
time, which a machine shared with other jobs inflates less.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from pathlib import Path
from typing import Any

from bench.load_time import current_rss_kib
from catalog.domain import all_records, engine
from catalog.domain.all_records import AllRecordsIndex, AllRecordsQuery, AllRecordsResult
from catalog.domain.loader import load_catalog
from catalog.domain.record_search import build_record_indexes

# (search text, {facet: values}, sort, page); "*" stands for the most frequent value of that facet.
QUERIES: tuple[tuple[str, dict[str, tuple[str, ...]], str, int], ...] = (
    ("", {}, "label", 1),
    ("", {}, "newest", 1),
    ("", {}, "label", 1000),
    ("folio", {}, "label", 1),  # a common word
    ("text", {}, "newest", 500),  # a word most records have (typeOfData)
    ("folio 12", {}, "label", 1),  # two words
    ("1", {}, "label", 1),  # a short prefix: many vocabulary words
    ("zzzz", {}, "label", 1),  # no match
    ("", {"type": ("*",)}, "label", 1),
    ("folio", {"year": ("*",), "licence": ("*",)}, "oldest", 1),
    ("", {"project": ("*",), "type": ("*",)}, "identifier", 1),
)


def _resolve(index: AllRecordsIndex, filters: dict[str, tuple[str, ...]]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    resolved = []
    for key, values in filters.items():
        commonest = index.values[key][int(index.totals[key].argmax())]
        resolved.append((key, tuple(commonest if value == "*" else value for value in values)))
    order = ("project", "type", "licence", "year")
    return tuple(sorted(resolved, key=lambda pair: order.index(pair[0])))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    catalog = load_catalog(args.data_dir)
    gc.collect()
    rss_loaded = current_rss_kib()
    started = time.perf_counter()
    indexes = build_record_indexes(catalog.records)
    per_project_seconds = time.perf_counter() - started
    gc.collect()
    rss_projects = current_rss_kib()
    started = time.perf_counter()
    index = AllRecordsIndex.build(catalog, indexes)
    all_seconds = time.perf_counter() - started
    gc.collect()
    rss_all = current_rss_kib()

    search_engine = engine.search_engine(catalog)

    def search_all_records(index: AllRecordsIndex, query: AllRecordsQuery) -> AllRecordsResult:
        """The page's search: the engine's scores for the text, then facets, the sort and the page."""
        scores = search_engine.record_scores(query.parsed) if query.text else None
        return all_records.search_all_records(index, query, scores)

    figures: list[dict[str, Any]] = []
    for text, filters, sort, page in QUERIES:
        query = AllRecordsQuery(text, _resolve(index, filters), "" if sort == "label" else sort, 1)
        total = search_all_records(index, query).total
        query = AllRecordsQuery(query.text, query.filters, query.sort, min(page, max(1, -(-total // 50))))
        times, cpu_times = [], []
        for _ in range(args.repeat):
            began, began_cpu = time.perf_counter(), time.process_time()
            search_all_records(index, query)
            times.append((time.perf_counter() - began) * 1000)
            cpu_times.append((time.process_time() - began_cpu) * 1000)
        times.sort()
        cpu_times.sort()
        figures.append(
            {
                "q": text,
                "filters": [f"{key}={value}" for key, values in query.filters for value in values],
                "sort": sort,
                "page": query.page,
                "matches": total,
                "median_ms": round(statistics.median(times), 2),
                "p95_ms": round(times[max(0, int(len(times) * 0.95) - 1)], 2),
                "cpu_median_ms": round(statistics.median(cpu_times), 2),
                "cpu_p95_ms": round(cpu_times[max(0, int(len(cpu_times) * 0.95) - 1)], 2),
            }
        )
    result = {
        "data_dir": str(args.data_dir),
        "records": index.size,
        "projects_with_records": len(index.keys),
        "per_project_build_seconds": round(per_project_seconds, 2),
        "all_records_build_seconds": round(all_seconds, 2),
        "rss_loaded_mib": round(rss_loaded / 1024, 1),
        "rss_project_indexes_mib": round(rss_projects / 1024, 1),
        "rss_all_records_index_mib": round(rss_all / 1024, 1),
        "queries": figures,
    }
    print(
        f"{index.size} records in {len(index.keys)} projects; per-project indexes {per_project_seconds:.1f} s, "
        f"all-records index {all_seconds:.1f} s; RSS {result['rss_loaded_mib']} -> "
        f"{result['rss_project_indexes_mib']} -> {result['rss_all_records_index_mib']} MiB"
    )
    for figure in figures:
        print(
            f"  q={figure['q']!r:10} {' '.join(figure['filters'])[:60]:60} sort={figure['sort']:10} "
            f"page={figure['page']:<5} {figure['matches']:>8} matches  "
            f"median {figure['median_ms']:6.2f} ms  p95 {figure['p95_ms']:6.2f} ms  "
            f"(CPU {figure['cpu_median_ms']:6.2f} / {figure['cpu_p95_ms']:6.2f} ms)"
        )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
