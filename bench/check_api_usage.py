"""Benchmark `svc check-api-usage` on a large generated access log.

Writes a combined-format log of N lines (default 1,000,000; 1 in 100 lines uses a removed or deprecated
route or authentication method, the rest are ordinary API, OAI-PMH and health-probe requests), runs the
installed `svc check-api-usage` on it and prints wall time, lines per second and the peak memory (RSS) of
the command.

    .venv/bin/python bench/check_api_usage.py [--lines N]
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SVC = str(Path(sys.executable).with_name("svc"))
IRI = "http%3A%2F%2Frdfh.ch%2F0801%2F{}"
ORDINARY = (
    '"GET /v2/resources/' + IRI + ' HTTP/1.1" 200 4096 "-" "python-requests/2.32.3"',
    '"GET /admin/projects/iri/http%3A%2F%2Frdfh.ch%2Fprojects%2F0801 HTTP/1.1" 200 2048 "-" "curl/8.5.0"',
    '"GET /dpe/oai?verb=ListRecords&resumptionToken=0801%7C{} HTTP/1.1" 200 80211 "-" "OAI-Harvester/3.0"',
    '"GET /healthz HTTP/1.1" 200 0 "-" "kube-probe/1.31"',
    '"GET /admin/lists/' + IRI + '/info HTTP/2.0" 200 512 "https://app.example.org/" "Mozilla/5.0 (X11; rv:128.0)"',
)
AFFECTED = (
    '"GET /admin/lists/infos/' + IRI + ' HTTP/1.1" 200 512 "-" "python-requests/2.32.3"',
    '"DELETE /admin/projects/iri/http%3A%2F%2Frdfh.ch%2Fprojects%2F0801 HTTP/1.1" 404 87 "-" "curl/8.5.0"',
    '"GET /v2/ontologies/canreplacecardinalities/' + IRI + ' HTTP/2.0" 200 64 "-" "Mozilla/5.0 (X11; rv:128.0)"',
    '"GET /v2/authentication?email=a%40example.org&password=x{} HTTP/1.1" 200 210 "-" "curl/8.5.0"',
)


def write_log(path: Path, lines: int) -> None:
    rng = random.Random(7)
    with path.open("w") as log:
        for number in range(lines):
            request = rng.choice(AFFECTED if number % 100 == 0 else ORDINARY).format(rng.randrange(10**6))
            log.write(f"192.0.2.{number % 250} - - [12/Mar/2025:10:{number // 60 % 60:02d}:{number % 60:02d} +0100] ")
            log.write(request + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    lines = parser.parse_args().lines
    with tempfile.TemporaryDirectory() as directory:
        log = Path(directory, "access.log")
        write_log(log, lines)
        size_mb = log.stat().st_size / 1e6
        start = time.perf_counter()
        result = subprocess.run([SVC, "check-api-usage", str(log)], capture_output=True, text=True)
        elapsed = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(
        f"{lines} lines ({size_mb:.0f} MB): {elapsed:.1f} s, {lines / elapsed:,.0f} lines/s, peak RSS {peak_mb:.0f} MB"
    )
    print(f"exit {result.returncode}; {result.stderr.strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()
