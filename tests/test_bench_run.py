"""bench/run.py end to end: a short /healthz run against svc and its baseline, on the real corpus."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS_DIR, PROJECT_ROOT

RUN = PROJECT_ROOT / "bench" / "run.py"


@pytest.mark.slow
def test_healthz_against_its_baseline_and_unavailable_paths(tmp_path: Path) -> None:
    if shutil.which("wrk") is None:
        pytest.fail("wrk is not installed (scripts/test installs it)")
    out = tmp_path / "bench.json"
    completed = subprocess.run(
        [
            sys.executable,
            str(RUN),
            f"--data-dir={CORPUS_DIR}",
            "--scenarios=healthz",
            "--path=missing=/no-such-page",
            "--duration=1",
            "--warmup=0",
            "--rounds=1",
            "--connections=4",
            "--wrk-threads=1",
            f"--json={out}",
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    run = json.loads(out.read_text())
    results = {result["name"]: result for result in run["results"]}
    assert list(results) == ["healthz", "missing"]

    healthz = results["healthz"]
    assert healthz["status"] == "ok" and healthz["response_bytes"] == 0
    assert healthz["load"]["requests_per_second"] > 0 and healthz["load"]["errors"] == 0
    assert 0 < healthz["load"]["p50_ms"] <= healthz["load"]["p99_ms"]
    assert healthz["baseline"] == "wsgi" and healthz["baseline_load"]["requests_per_second"] > 0
    assert healthz["ratio"] == pytest.approx(
        healthz["load"]["requests_per_second"] / healthz["baseline_load"]["requests_per_second"], rel=0.01
    )
    assert results["missing"]["status"] == "unavailable" and results["missing"]["detail"] == "HTTP 404"

    assert run["startup_seconds"] > 0
    memory = run["memory"]
    assert len(memory["workers"]) == 2
    for process in (memory["master"], *memory["workers"]):
        assert 0 < process["pss_mib"] <= process["rss_mib"]
    assert "django" not in run["baselines"], "no scenario needed the Django baseline"

    assert "healthz" in completed.stdout and "unavailable (HTTP 404)" in completed.stdout
    assert "total PSS" in completed.stdout
