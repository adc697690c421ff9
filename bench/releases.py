"""Harvests through data releases at scale: a full Sickle harvest interrupted by two releases, then incremental.

Usage (from the project root; it works on a copy of DATA_DIR)::

    .venv/bin/python bench/make_corpus.py /tmp/corpus-100k --records 100000
    .venv/bin/python bench/releases.py /tmp/corpus-100k

The scenario is tests/test_oai_releases.py's (tests/release_support.py):
while Sickle pages through ``ListRecords``, two releases land in the largest
project (records changed and withdrawn behind and ahead of the harvest's
position, one added, a person renamed), each stamped and loaded by SIGHUP.
Prints what the harvest and the next incremental harvest expected, received,
duplicated and missed, and how long each step took.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--page-size", type=int, default=500)
    args = parser.parse_args()
    sys.path.insert(0, str(PROJECT_ROOT))
    from tests.conftest import start_server, stop_server
    from tests.oai_support import HIGH_LIMITS_ENV
    from tests.release_support import interrupted_harvest, largest_records_file, reload, stamp

    with tempfile.TemporaryDirectory(prefix="svc-releases-") as scratch:
        data_dir = Path(scratch) / "data"
        shutil.copytree(args.data_dir, data_dir, ignore=shutil.ignore_patterns(".svc"))
        started = time.perf_counter()
        print(f"first stamp: {stamp(data_dir)} ({time.perf_counter() - started:.0f} s)", flush=True)
        env = {**HIGH_LIMITS_ENV, "SVC_WORKERS": "1", "SVC_OAI_PAGE_SIZE": str(args.page_size)}
        server = start_server(data_dir, env)
        try:
            shortcode = largest_records_file(data_dir)
            person = sorted(path.stem for path in (data_dir / "persons").glob("*.json"))[0]
            started = time.perf_counter()
            report = interrupted_harvest(
                data_dir,
                server.base_url,
                lambda: reload(server.process, server.output, server.base_url, timeout=1800),
                shortcode,
                person,
            )
            print(f"{report.summary()} ({time.perf_counter() - started:.0f} s in all)")
        finally:
            stop_server(server)


if __name__ == "__main__":
    main()
