"""The change ledger at scale: `svc stamp` time and peak memory, the file's size, its cost to `svc serve`.

Usage (from the project root, on a copy: it writes ``<data_dir>/.svc/ledger.tsv``)::

    .venv/bin/python bench/make_corpus.py /tmp/corpus-1m --records 1000000
    .venv/bin/python bench/ledger.py /tmp/corpus-1m

Prints, for four runs of `svc stamp` (the first stamps everything, the
second finds nothing changed, the third follows the rename of one person,
which renders the projects and only the records that give the person's name
as text, the fourth finds no record source it knows, as after an upgrade of
svc, so it renders every record again: the most a release costs): wall time,
CPU time and peak RSS of the process. Then the
ledger's size against the same entries as one JSON document, and the RSS of
a process holding what `svc serve` holds (catalogue and OAI view, built as
its warm-up does) without and with the ledger.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SVC = str(Path(sys.executable).parent / "svc")

_SERVE_PROBE = """
import sys
sys.path.insert(0, {root!r})
from catalog.domain.loader import load_catalog
from catalog.runtime import with_ledger
from oaipmh.repository import Repository
from bench.load_time import current_rss_kib
catalog = load_catalog({data_dir!r})
if {with_ledger!r}:
    catalog = with_ledger(catalog)
repository = Repository(catalog, "bench", "https://example.org")
print(current_rss_kib())
"""


def timed_run(command: list[str]) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds and peak RSS (MiB) of a child process, and its output's last line.

    CPU time is reported too: on a shared machine the wall time says more about the neighbours.
    """
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    output = process.stdout.read() if process.stdout else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed: {process.stderr.read() if process.stderr else ''}")
    cpu = usage.ru_utime + usage.ru_stime
    return elapsed, cpu, usage.ru_maxrss / 1024, output.strip().splitlines()[-1]


def json_size(ledger: Path) -> int:
    """Bytes of the same entries as one JSON document (one object per item)."""
    from catalog.domain.ledger import iter_entries

    with ledger.open(encoding="utf-8") as lines, tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        out.write("[")
        for number, entry in enumerate(iter_entries(lines)):
            document = {
                "kind": entry.kind,
                "group": entry.group,
                "key": entry.key,
                "fingerprint": entry.fingerprint,
                "firstSeen": entry.first_seen,
                "changed": entry.changed,
            }
            if entry.deleted is not None:
                document["deleted"] = entry.deleted
            if entry.meta:
                document["meta"] = list(entry.meta)
            out.write(("," if number else "") + json.dumps(document, ensure_ascii=False, separators=(",", ":")))
        out.write("]")
        return out.tell()


def rename_a_person(data_dir: Path) -> None:
    """Edit the first person's name (the corpus is a copy made for the benchmark)."""
    path = sorted((data_dir / "persons").glob("*.json"))[0]
    person = json.loads(path.read_text(encoding="utf-8"))
    person["givenNames"] = ["Renamed"]
    path.write_text(json.dumps(person, ensure_ascii=False), encoding="utf-8")


def forget_record_sources(ledger: Path) -> None:
    """Empty the source digest of every record line, as a new svc's rendering code would make them all differ."""
    lines = ledger.read_text(encoding="utf-8").splitlines(keepends=True)
    with ledger.open("w", encoding="utf-8", newline="\n") as out:
        for line in lines:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "R" and len(fields) > 6:
                fields[6] = ""
            out.write("\t".join(fields) + "\n")


def serve_rss(data_dir: Path, with_ledger: bool) -> float:
    code = _SERVE_PROBE.format(root=str(PROJECT_ROOT), data_dir=str(data_dir), with_ledger=with_ledger)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(result.stdout.strip().splitlines()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data_dir", type=Path)
    args = parser.parse_args()
    sys.path.insert(0, str(PROJECT_ROOT))
    ledger = args.data_dir / ".svc" / "ledger.tsv"
    ledger.unlink(missing_ok=True)
    runs = {
        "first stamp (all added)": lambda: None,
        "second stamp (unchanged)": lambda: None,
        "third stamp (a person renamed)": lambda: rename_a_person(args.data_dir),
        "fourth stamp (every record rendered again)": lambda: forget_record_sources(ledger),
    }
    for label, prepare in runs.items():
        prepare()
        seconds, cpu, peak, summary = timed_run([SVC, "stamp", str(args.data_dir), "--activate-in", "0"])
        print(f"svc stamp, {label}: {seconds:.1f} s wall, {cpu:.1f} s CPU, peak RSS {peak:.0f} MiB ({summary})")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    tsv = ledger.stat().st_size
    as_json = json_size(ledger)
    print(f"ledger: {tsv / 2**20:.1f} MiB as TSV, {as_json / 2**20:.1f} MiB as JSON ({as_json / tsv:.2f} times)")
    without, with_it = serve_rss(args.data_dir, False), serve_rss(args.data_dir, True)
    print(
        f"serving memory (catalogue + OAI view): {without:.0f} MiB without the ledger, {with_it:.0f} MiB with it"
        f" ({(with_it - without) / without:+.1%})"
    )


if __name__ == "__main__":
    main()
