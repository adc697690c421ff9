"""Helpers for the operations tests: small data directories, a look inside server processes."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def write_data_set(root: Path, shortcodes: Iterable[str]) -> Path:
    """A minimal valid data directory: one project per shortcode, with two records each."""
    (root / "projects").mkdir(parents=True, exist_ok=True)
    (root / "records").mkdir(exist_ok=True)
    for shortcode in shortcodes:
        project = {"id": f"project-{shortcode}", "shortcode": shortcode, "name": f"Project {shortcode}"}
        (root / "projects" / f"{shortcode}.json").write_text(json.dumps(project))
        records = [{"id": f"record-{shortcode}-{n}", "pid": f"{shortcode}-{n}"} for n in (1, 2)]
        (root / "records" / f"{shortcode}-records.json").write_text(json.dumps(records))
    return root


def worker_pids(master_pid: int) -> list[int]:
    """The gunicorn workers of a master: its child processes."""
    children = Path(f"/proc/{master_pid}/task/{master_pid}/children").read_text().split()
    return [int(pid) for pid in children]


def mapped_files(pid: int) -> set[str]:
    """The files (shared libraries included) mapped into a process."""
    lines = Path(f"/proc/{pid}/maps").read_text().splitlines()
    return {line.split(maxsplit=5)[5] for line in lines if len(line.split(maxsplit=5)) == 6}
