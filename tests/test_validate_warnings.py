"""`svc validate` warnings: valid data that degrades the harvested metadata (issue 11), as a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CORPUS_DIR, run_svc
from tests.validation_data import PROJECT_FILE, valid_files, write_data_dir

WARNING = ": warning: "


def warning_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if WARNING in line]


@pytest.mark.slow
def test_warnings_are_printed_counted_and_exit_zero_unless_strict(tmp_path: Path) -> None:
    files = valid_files()
    files[PROJECT_FILE]["attributions"] = [{"contributor": "person-001", "contributorType": ["Data collector"]}]
    data = write_data_dir(tmp_path / "data", files)

    result = run_svc("validate", str(data))
    assert result.returncode == 0, result.stderr
    lines = warning_lines(result.stderr)
    assert f"{PROJECT_FILE}: attributions: warning: no attribution has a leading role" in "\n".join(lines)
    assert any(line.startswith(f"{PROJECT_FILE}: dataLanguage[1]: warning: 'x-walser'") for line in lines)
    assert any(
        line.startswith(f"{PROJECT_FILE}: funding[0].funders[0]: warning: funder 'Example Fund'") for line in lines
    )
    assert any(line.startswith(f"{PROJECT_FILE}: endDate: warning: placeholder 'MISSING'") for line in lines)
    summary = result.stdout.splitlines()
    assert summary[1] == "valid: no findings"
    assert summary[2].startswith(f"{len(lines)} warnings: ") and "1 no-leading-role" in summary[2]

    strict = run_svc("validate", "--strict", str(data))
    assert strict.returncode == 1
    assert warning_lines(strict.stderr) == lines

    report = json.loads(run_svc("validate", "--format", "json", str(data)).stdout)
    assert report["valid"] is True
    assert len(report["warnings"]) == len(lines) == sum(report["warnings_by_check"].values())
    assert {
        "file": PROJECT_FILE,
        "path": "attributions",
        "message": "no attribution has a leading role (project leader, principal investigator, applicant, author, "
        "…): harvesters and citations get DaSCH as the creator",
        "check": "no-leading-role",
    } in report["warnings"]


def test_the_corpus_warnings(tmp_path: Path) -> None:
    report = json.loads(run_svc("validate", "--format", "json", str(CORPUS_DIR)).stdout)
    warnings = {(w["file"].rpartition("/")[2][:4], w["path"], w["check"]) for w in report["warnings"]}
    # 0844 writes a private-use tag as its data language.
    assert ("0844", "dataLanguage[6]", "language-code") in warnings
    # 0801a-e and cluster-003 share one ARK.
    assert report["warnings_by_check"]["shared-pid"] == 6
    # 10404 in several spellings; the SNSF is known, other funders are not.
    messages = [w["message"] for w in report["warnings"]]
    assert any(m.startswith("discipline 10404 (en) is written") for m in messages)
    assert not any("Swiss National Science Foundation" in m for m in messages)
    assert report["warnings_by_check"]["no-leading-role"] == 5
    assert report["warnings_by_check"]["placeholder"] > 0
    assert report["warnings_by_check"]["funder-identifier"] > 0
