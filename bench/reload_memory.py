"""Memory of `svc serve` workers before and after a SIGHUP reload (are pages still shared?).

    .venv/bin/python bench/reload_memory.py [DATA_DIR]     # default: ../shared/corpus/dsp

Prints /proc/<pid>/smaps_rollup figures (MB) of the master and its two workers,
before and after the reload. Shared_* large and Private_Dirty small: the workers
share the catalogue the master loaded.
"""

from __future__ import annotations

import signal
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.conftest import CORPUS_DIR, start_server, stop_server
from tests.ops_support import worker_pids

FIELDS = ("Rss", "Pss", "Shared_Clean", "Shared_Dirty", "Private_Clean", "Private_Dirty")


def rollup(pid: int) -> dict[str, int]:
    values = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == "kB":
            values[parts[0].rstrip(":")] = int(parts[1]) // 1024
    return {name: values[name] for name in FIELDS}


def warm_up(base_url: str) -> None:
    """Serve some pages, so that the workers touch the catalogue."""
    for _ in range(50):
        try:
            urllib.request.urlopen(base_url + "/projects").close()
        except urllib.error.HTTPError as error:
            error.close()


def report(label: str, master: int) -> None:
    print(f"{label:7} master {rollup(master)}")
    for pid in worker_pids(master):
        print(f"{label:7} worker {rollup(pid)}")


def main() -> None:
    data_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS_DIR
    server = start_server(data_dir, {"SVC_WORKERS": "2", "RUST_LOG": "warn,catalog=info"})
    try:
        warm_up(server.base_url)
        time.sleep(1)
        report("before", server.process.pid)
        old_workers = set(worker_pids(server.process.pid))
        server.process.send_signal(signal.SIGHUP)
        server.wait_for_output("reloaded data version")
        while old_workers & set(worker_pids(server.process.pid)) or len(worker_pids(server.process.pid)) < 2:
            time.sleep(0.1)
        warm_up(server.base_url)
        time.sleep(1)
        report("after", server.process.pid)
    finally:
        stop_server(server)


if __name__ == "__main__":
    main()
