"""Harvests through data releases at scale: a full Sickle harvest interrupted by two releases, then incremental.

Usage (from the project root; it works on a copy of DATA_DIR)::

    .venv/bin/python bench/make_corpus.py /tmp/corpus-100k --records 100000
    .venv/bin/python bench/releases.py /tmp/corpus-100k

Two scenarios (tests/release_support.py):

- **releases**, tests/test_oai_releases.py's: while Sickle pages through
  ``ListRecords``, two releases land in the largest project (records changed
  and withdrawn behind and ahead of the harvest's position, one added, a
  person renamed), each stamped ahead of its activation time and loaded by
  SIGHUP before it;
- **restart**, tests/test_oai_release_lifecycle.py's: ``svc serve`` is stopped
  (SIGTERM) and started again in the middle of a full ``ListIdentifiers``
  harvest, which goes on with its token; then an incremental harvest from the
  full harvest's first responseDate, which must receive nothing.

Prints what each harvest and the next incremental harvest expected, received,
duplicated and missed, the datestamps before and after, and how long each
step took.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--page-size", type=int, default=500)
    parser.add_argument("--scenario", choices=("releases", "restart"), default="releases")
    parser.add_argument(
        "--lead", type=int, default=120, help="--activate-in of each release: covers its stamp and reload (s)"
    )
    args = parser.parse_args()
    sys.path.insert(0, str(PROJECT_ROOT))
    from tests.conftest import start_server, stop_server
    from tests.oai_support import HIGH_LIMITS_ENV
    from tests.release_support import interrupted_harvest, largest_records_file, publish, stamp

    with tempfile.TemporaryDirectory(prefix="svc-releases-") as scratch:
        data_dir = Path(scratch) / "data"
        shutil.copytree(args.data_dir, data_dir, ignore=shutil.ignore_patterns(".svc"))
        started = time.perf_counter()
        print(f"first stamp: {stamp(data_dir)} ({time.perf_counter() - started:.0f} s)", flush=True)
        env = {**HIGH_LIMITS_ENV, "SVC_WORKERS": "1", "SVC_OAI_PAGE_SIZE": str(args.page_size)}
        if args.scenario == "restart":
            restart_mid_harvest(data_dir, env)
            return
        server = start_server(data_dir, env)
        try:
            shortcode = largest_records_file(data_dir)
            person = sorted(path.stem for path in (data_dir / "persons").glob("*.json"))[0]
            started = time.perf_counter()
            report = interrupted_harvest(
                data_dir,
                server.base_url,
                lambda: publish(data_dir, server.process, server.output, server.base_url, lead=args.lead),
                shortcode,
                person,
            )
            print(f"{report.summary()} ({time.perf_counter() - started:.0f} s in all)")
        finally:
            stop_server(server)


def restart_mid_harvest(data_dir: Path, env: dict[str, str]) -> None:
    """A full ListIdentifiers harvest across a restart (SIGTERM, start), then an incremental one."""
    from tests.conftest import start_server, stop_server
    from tests.release_support import sickle_incremental

    server = start_server(data_dir, env)
    try:
        started = time.perf_counter()
        full, first_date, _ = list_pages(server.base_url, "metadataPrefix=oai_dc", pages=None)
        print(f"a full harvest without a restart: {len(full)} items ({time.perf_counter() - started:.0f} s)")
        items, first_date, token = list_pages(server.base_url, "metadataPrefix=oai_dc", pages=len(full) // 1000 or 1)
    finally:
        stop_server(server)
    started = time.perf_counter()
    server = start_server(data_dir, env)
    print(f"restarted ({time.perf_counter() - started:.0f} s); the harvest goes on with its token", flush=True)
    try:
        rest, _, _ = list_pages(server.base_url, "resumptionToken=" + urllib.parse.quote(token or ""), pages=None)
        items += rest
        again, _, _ = list_pages(server.base_url, "metadataPrefix=oai_dc", pages=None)
        incremental = sickle_incremental(server.base_url + "/dpe/oai", first_date)
    finally:
        stop_server(server)
    received = [identifier for identifier, _ in items]
    expected = [identifier for identifier, _ in full]
    duplicated = len(received) - len(set(received))
    moved = sum(1 for before, after in zip(full, again, strict=True) if before != after)
    print(
        f"across the restart: expected {len(expected)}, received {len(received)}, duplicated {duplicated}, "
        f"missed {len(set(expected) - set(received))}; datestamps that moved with the restart: {moved} "
        f"(of {len(again)}; earliest before {min(d for _, d in full)}, after {min(d for _, d in again)}); "
        f"next incremental from {first_date}: received {len(incremental.items)}"
    )


def list_pages(base_url: str, arguments: str, pages: int | None) -> tuple[list[tuple[str, str]], str, str | None]:
    """(identifier, datestamp) of ListIdentifiers pages (all, or the first ``pages``), the first responseDate, the
    token to go on with."""
    from lxml import etree

    oai = "{http://www.openarchives.org/OAI/2.0/}"
    items: list[tuple[str, str]] = []
    first_date = ""
    query: str | None = arguments
    taken = 0
    while query is not None and (pages is None or taken < pages):
        with urllib.request.urlopen(f"{base_url}/dpe/oai?verb=ListIdentifiers&{query}", timeout=300) as response:
            root = etree.fromstring(response.read())
        first_date = first_date or root.findtext(f"{oai}responseDate") or ""
        items += [(h.findtext(f"{oai}identifier"), h.findtext(f"{oai}datestamp")) for h in root.iter(f"{oai}header")]
        token = root.find(f".//{oai}resumptionToken")
        query = "resumptionToken=" + urllib.parse.quote(token.text) if token is not None and token.text else None
        taken += 1
    token_text = None if query is None else urllib.parse.unquote(query.removeprefix("resumptionToken="))
    return items, first_date, token_text


if __name__ == "__main__":
    main()
