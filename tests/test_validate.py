"""`svc validate` as a user runs it: a subprocess on data directories with one defect each."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS_DIR, SAMPLE_DIR, SVC, run_svc, start_server, stop_server
from tests.validation_data import PERIOD_ID, PROJECT_FILE, RECORDS_FILE, SHORTCODE, record, valid_files, write_data_dir

Files = dict[str, Any]
ROLE_HINT = "as a job title: it belongs in a project's attributions (contributorType)"
WARNING = ": warning: "  # warnings (tests/test_validate_warnings.py) are beside the findings, not among them


def finding_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if WARNING not in line]


ADD_TO_ENRICHMENT = '(add it there with a date, or with source "unresolved")'


def validate(tmp_path: Path, files: Files, *options: str) -> subprocess.CompletedProcess:
    return run_svc("validate", str(write_data_dir(tmp_path / "data", files)), *options)


def test_a_valid_data_directory_passes(tmp_path: Path) -> None:
    result = validate(tmp_path, valid_files())

    assert result.returncode == 0, result.stderr
    assert finding_lines(result.stderr) == []
    assert result.stdout.splitlines()[:2] == [
        f"checked 10 files in {tmp_path / 'data'}: 1 projects, 1 persons, 2 organizations, 1 clusters, "
        "2 collections, 2 records",
        "valid: no findings",
    ]


def _set(files: Files, path: str, **fields: Any) -> None:
    files[path].update(fields)


def _append(files: Files, path: str, field: str, value: Any) -> None:
    files[path][field].append(value)


def _broken_json(files: Files) -> None:
    files["persons/person-002.json"] = '{"id": "person-002",'


def _not_utf8(files: Files) -> None:
    files["organizations/organization-003.json"] = '{"id": "organization-003", "name": "Z\xfcrich"}'.encode("latin-1")


def _misnamed_records_file(files: Files) -> None:
    files[f"records/{SHORTCODE}.json"] = [record(3)]


def _record_not_an_object(files: Files) -> None:
    files[RECORDS_FILE].append("rec3")


def _record_of_another_project(files: Files) -> None:
    stray = record(3)
    stray["pid"] = "https://ark.example.org/ark:/99999/1/0FFF/rec3"
    files[RECORDS_FILE].append(stray)


def _nesting_cycle(files: Files) -> None:
    files["collections/collection-002.json"]["collections"] = ["collection-001"]


def _second_project(shortcode: str, pid: str) -> Callable[[Files], None]:
    def change(files: Files) -> None:
        files[f"projects/{shortcode}_copy.json"] = {**valid_files()[PROJECT_FILE], "shortcode": shortcode, "pid": pid}
        files[f"projects/{shortcode}_copy.json"]["id"] = f"{shortcode}-copy"

    return change


def _duplicate_person(files: Files) -> None:
    files["persons/person-001-again.json"] = {"id": "person-001", "givenNames": ["A."], "familyNames": ["Beispiel"]}


def _duplicate_record_field(field: str) -> Callable[[Files], None]:
    def change(files: Files) -> None:
        again = record(3)
        again[field] = record(1)[field]
        files[RECORDS_FILE].append(again)

    return change


def _second_records_file(files: Files) -> None:
    files[f"records/{SHORTCODE.lower()}-records.json"] = [record(3)]


P, R = PROJECT_FILE, RECORDS_FILE
ARK_1 = "https://ark.example.org/ark:/99999/1"
DEFECTS: dict[str, tuple[Callable[[Files], None], list[str]]] = {
    # Files that cannot be read.
    "invalid JSON": (
        _broken_json,
        [
            "persons/person-002.json: $: not valid JSON: "
            "Expecting property name enclosed in double quotes: line 1 column 21 (char 20)"
        ],
    ),
    "not UTF-8": (
        _not_utf8,
        ["organizations/organization-003.json: $: not UTF-8 text: invalid start byte at byte 37"],
    ),
    "misnamed records file": (
        _misnamed_records_file,
        [f"records/{SHORTCODE}.json: $: not read: record files are named <SHORTCODE>-records.json"],
    ),
    # JSON Schemas.
    "schema: project": (
        lambda files: _set(files, P, status="Paused", startDate="2021-02-30", howToCite=None),
        [
            f'{P}: status: "Paused" is not "Ongoing", "Finished" or a placeholder',
            f'{P}: startDate: "2021-02-30" is not a date (YYYY-MM-DD) or a placeholder',
            f"{P}: howToCite: null is not a non-empty string",
        ],
    ),
    "schema: record": (
        _record_not_an_object,
        [f"{R}: [2]: expected an object, found a string"],
    ),
    # References.
    "unknown attribution contributor": (
        lambda files: _append(files, P, "attributions", {"contributor": "person-999", "contributorType": ["Editor"]}),
        [f"{P}: attributions[2].contributor: unknown person 'person-999'"],
    ),
    "unknown contact point": (
        lambda files: _append(files, P, "contactPoint", "organization-404"),
        [f"{P}: contactPoint[1]: unknown organization 'organization-404'"],
    ),
    "unknown funder": (
        lambda files: files[P]["funding"][0]["funders"].append("organization-999"),
        [f"{P}: funding[0].funders[1]: unknown organization 'organization-999'"],
    ),
    "unknown affiliation": (
        lambda files: _append(files, "persons/person-001.json", "affiliations", "organization-777"),
        ["persons/person-001.json: affiliations[1]: unknown organization 'organization-777'"],
    ),
    "unknown project cluster and collection": (
        lambda files: (
            _append(files, P, "clusters", "cluster-404"),
            _append(files, P, "collections", "collection-404"),
        ),
        [
            f"{P}: clusters[1]: unknown cluster 'cluster-404'",
            f"{P}: collections[1]: unknown collection 'collection-404'",
        ],
    ),
    "unknown cluster member": (
        lambda files: _append(files, "clusters/cluster-001.json", "projects", "0FFF"),
        ["clusters/cluster-001.json: projects[1]: unknown project '0FFF'"],
    ),
    "unknown collection members": (
        lambda files: (
            _append(files, "collections/collection-001.json", "records", "http://rdfh.example.org/0A1B/nope"),
            _append(files, "collections/collection-001.json", "collections", "collection-404"),
        ),
        [
            "collections/collection-001.json: collections[1]: unknown collection 'collection-404'",
            "collections/collection-001.json: records[1]: "
            "unknown record 'http://rdfh.example.org/0A1B/nope' (no record has that id or pid)",
        ],
    ),
    "collection nesting cycle": (
        _nesting_cycle,
        [
            "collections/collection-001.json: collections: "
            "collections contain each other in a cycle: collection-001 -> collection-002 -> collection-001"
        ],
    ),
    "record pid of another project": (
        _record_of_another_project,
        [f"{R}: [2].pid: pid names project '0FFF', but the record is in the records file of '0a1b'"],
    ),
    # Orphans.
    "orphan person": (
        lambda files: files.update(
            {"persons/person-002.json": {"id": "person-002", "givenNames": ["B"], "familyNames": ["C"]}}
        ),
        [
            "persons/person-002.json: $: "
            "person 'person-002' is not named by any project (attributions, contact points, funding)"
        ],
    ),
    "orphan organization": (
        lambda files: files.update({"organizations/orgs.json": [{"id": "organization-003", "name": "Lonely"}]}),
        [
            "organizations/orgs.json: [0]: organization 'organization-003' is not named by any project "
            "(attributions, contact points, funding) nor by any person's affiliations"
        ],
    ),
    "orphan collection": (
        lambda files: files.update(
            {"collections/collection-003.json": {"id": "collection-003", "name": "Lost", "description": "x"}}
        ),
        [
            "collections/collection-003.json: $: "
            "collection 'collection-003' belongs to no project and is in no other collection"
        ],
    ),
    "orphan records file": (
        lambda files: files.update({"records/0FFF-records.json": [record(1, "0FFF")]}),
        ["records/0FFF-records.json: $: records of project '0fff', but no project has that shortcode"],
    ),
    # Duplicates.
    "duplicate shortcode (case-insensitive)": (
        _second_project(SHORTCODE.lower(), f"{ARK_1}/other"),
        [
            f"projects/{SHORTCODE}_mountain-letters.json: shortcode: shortcode (case-insensitive) '0a1b' "
            f"is also used by project 0a1b (projects/0a1b_copy.json)",
            f"projects/0a1b_copy.json: shortcode: shortcode (case-insensitive) '0a1b' "
            f"is also used by project 0A1B (projects/{SHORTCODE}_mountain-letters.json)",
        ],
    ),
    "duplicate project pid": (
        _second_project("0A1C", f"{ARK_1}/{SHORTCODE}"),
        [
            f"projects/0A1B_mountain-letters.json: pid: pid '{ARK_1}/0A1B' is also used by "
            "project 0A1C (projects/0A1C_copy.json)",
            f"projects/0A1C_copy.json: pid: pid '{ARK_1}/0A1B' is also used by "
            "project 0A1B (projects/0A1B_mountain-letters.json)",
        ],
    ),
    "duplicate person id": (
        _duplicate_person,
        [
            "persons/person-001-again.json: id: person id 'person-001' is also used by "
            "person person-001 (persons/person-001.json)",
            "persons/person-001.json: id: person id 'person-001' is also used by "
            "person person-001 (persons/person-001-again.json)",
        ],
    ),
    "duplicate record pid": (
        _duplicate_record_field("pid"),
        [
            f"{R}: [0].pid: pid '{ARK_1}/0A1B/rec1' is also used by record [2] in {R}",
            f"{R}: [2].pid: pid '{ARK_1}/0A1B/rec1' is also used by record [0] in {R}",
        ],
    ),
    "duplicate record id": (
        _duplicate_record_field("id"),
        [
            f"{R}: [0].id: record id 'http://rdfh.example.org/0A1B/rec1' is also used by record [2] in {R}",
            f"{R}: [2].id: record id 'http://rdfh.example.org/0A1B/rec1' is also used by record [0] in {R}",
        ],
    ),
    "second records file of a project": (
        _second_records_file,
        [f"records/{SHORTCODE.lower()}-records.json: $: a second records file for project 0a1b: {R}"],
    ),
    # Project roles as job titles: exact match of the trimmed, lowercased title.
    "project role in jobTitles": (
        lambda files: _append(files, "persons/person-001.json", "jobTitles", "  Principal Investigator (PI) "),
        [f"persons/person-001.json: jobTitles[2]: project role '  Principal Investigator (PI) ' {ROLE_HINT}"],
    ),
    # Temporal coverage.
    "temporal coverage name with no date": (
        lambda files: _append(files, P, "temporalCoverage", {"en": "Bronze Age", "de": "Bronzezeit"}),
        [
            f"{P}: temporalCoverage[2]: temporal coverage 'Bronze Age' resolves to no date: "
            f"it is not in temporal-coverage-enrichment.json {ADD_TO_ENRICHMENT}"
        ],
    ),
    "ChronOntology period with no date": (
        lambda files: _append(
            files,
            P,
            "temporalCoverage",
            {"type": "Chronontology", "url": "http://chronontology.dainst.org/period/zzz", "text": "Late Antiquity"},
        ),
        [
            f"{P}: temporalCoverage[2]: ChronOntology period 'zzz' (Late Antiquity) resolves to no date: it has no "
            f"year in chronontology-periods.json and is not in temporal-coverage-enrichment.json {ADD_TO_ENRICHMENT}"
        ],
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("change, expected", DEFECTS.values(), ids=DEFECTS.keys())
def test_each_defect_is_reported_on_its_own_line(
    tmp_path: Path, change: Callable[[Files], None], expected: list[str]
) -> None:
    files = valid_files()
    change(files)

    result = validate(tmp_path, files)

    assert finding_lines(result.stderr) == expected
    assert result.returncode == 1
    assert result.stdout.splitlines()[1].startswith(f"{len(expected)} findings: ")


def _acknowledged_gap(files: Files) -> None:
    _append(files, P, "temporalCoverage", {"en": "Bronze Age"})
    files["temporal-coverage-enrichment.json"]["Bronze Age"] = {"date": None, "source": "unresolved"}


def _period_named_in_enrichment(files: Files) -> None:
    entry = {"type": "Chronontology", "url": "https://chronontology.dainst.org/period/zzz", "text": "Late Antiquity"}
    _append(files, P, "temporalCoverage", entry)
    files["temporal-coverage-enrichment.json"]["Late Antiquity"] = {"date": "0284/0700", "source": "manual"}


def _open_ended_period(files: Files) -> None:
    files["chronontology-periods.json"][PERIOD_ID]["hasTimespan"][0]["end"] = {"at": "not specified"}


NOT_DEFECTS: dict[str, Callable[[Files], None]] = {
    "temporal coverage marked unresolved": _acknowledged_gap,
    "ChronOntology period missing from the periods file but named in the enrichment": _period_named_in_enrichment,
    "ChronOntology period with an open end": _open_ended_period,
    "placeholder temporal coverage": lambda files: _append(
        files, P, "temporalCoverage", {"type": "URL", "url": "MISSING"}
    ),
    "job title that only contains a role word": lambda files: _append(
        files, "persons/person-001.json", "jobTitles", "Senior data collector and archivist"
    ),
    "a person as a funder": lambda files: files[P]["funding"].append({"funders": ["person-001"], "name": "Private"}),
    "funding as a string": lambda files: (
        _set(files, P, funding="No funding"),
        _append(files, P, "attributions", {"contributor": "organization-001", "contributorType": ["Funder"]}),
    ),
    "unknown fields": lambda files: _set(files, "persons/person-001.json", secondaryEmail="a@example.org", note=[1]),
    "a collection attached to its project only": lambda files: files.update(
        {
            "collections/collection-003.json": {
                "id": "collection-003",
                "name": "Own",
                "description": "",
                "projects": ["0a1b"],
            }
        }
    ),
    "placeholders pid shared": lambda files: (
        _set(files, P, pid="CALCULATED"),
        _set(files, "clusters/cluster-001.json", pid="CALCULATED"),
    ),
}


def test_what_is_not_a_defect_is_not_reported(tmp_path: Path) -> None:
    """All of these at once (they do not interfere): one run instead of one each."""
    files = valid_files()
    for change in NOT_DEFECTS.values():
        change(files)

    result = validate(tmp_path, files)

    assert (result.returncode, finding_lines(result.stderr)) == (0, [])
    assert result.stdout.splitlines()[1] == "valid: no findings"


@pytest.mark.slow
@pytest.mark.parametrize(
    "target, message",
    [
        ("missing", "svc validate: data directory '{path}' does not exist or is not a directory"),
        ("a-file.json", "svc validate: data directory '{path}' does not exist or is not a directory"),
        (
            "empty",
            "svc validate: '{path}' is not a data directory: it has none of projects, persons, "
            "organizations, clusters, collections, records",
        ),
    ],
)
def test_an_unusable_directory_is_a_usage_error(tmp_path: Path, target: str, message: str) -> None:
    (tmp_path / "a-file.json").write_text("{}")
    (tmp_path / "empty").mkdir()
    path = tmp_path / target

    result = run_svc("validate", str(path))

    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.strip() == message.format(path=path)


@pytest.mark.slow
@pytest.mark.parametrize("arguments", [(), ("--format", "xml", "."), ("a", "b")])
def test_bad_options_are_a_usage_error(arguments: tuple[str, ...]) -> None:
    result = run_svc("validate", *arguments)

    assert result.returncode == 2
    assert "usage: svc validate" in result.stderr


def test_json_format_prints_one_report_on_standard_output(tmp_path: Path) -> None:
    files = valid_files()
    _append(files, "persons/person-001.json", "jobTitles", "Creator")

    result = validate(tmp_path, files, "--format", "json")

    assert (result.returncode, result.stderr) == (1, "")
    report = json.loads(result.stdout)
    assert report.pop("warnings") and report.pop("warnings_by_check")
    assert report == {
        "data_dir": str(tmp_path / "data"),
        "valid": False,
        "counts": {
            "files": 10,
            "projects": 1,
            "persons": 1,
            "organizations": 2,
            "clusters": 1,
            "collections": 2,
            "records": 2,
        },
        "findings_by_check": {"job-title": 1},
        "findings": [
            {
                "file": "persons/person-001.json",
                "path": "jobTitles[2]",
                "message": f"project role 'Creator' {ROLE_HINT}",
                "check": "job-title",
            }
        ],
    }


def test_json_format_of_a_valid_directory(tmp_path: Path) -> None:
    result = validate(tmp_path, valid_files(), "--format", "json")

    report = json.loads(result.stdout)
    assert (result.returncode, report["valid"], report["findings"], report["findings_by_check"]) == (0, True, [], {})


def test_progress_is_shown_only_on_a_terminal(tmp_path: Path) -> None:
    data = write_data_dir(tmp_path / "data", valid_files())
    controller, terminal = pty.openpty()
    try:
        process = subprocess.Popen([SVC, "validate", str(data)], stdout=subprocess.PIPE, stderr=terminal)
        os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the terminal is closed once the process exits
                break
            if not chunk:
                break
            shown += chunk
        process.wait(timeout=60)
    finally:
        os.close(controller)

    assert process.returncode == 0
    assert re.search(rb"\r\x1b\[Ksvc validate: [\d,]+ records, [^\r]* \(100%\)[^\r]*\r\n", shown), shown
    assert b"svc validate:" not in process.stdout.read()


def test_the_corpus_real_defects_and_nothing_else() -> None:
    """The production corpus: its orphans, the pid shared by 0801a-e (and cluster BEOL), three schema defects."""
    result = run_svc("validate", str(CORPUS_DIR), "--format", "json")

    report = json.loads(result.stdout)
    assert result.returncode == 1
    assert report["counts"] == {
        "files": 651,
        "projects": 85,
        "persons": 416,
        "organizations": 142,
        "clusters": 5,
        "collections": 0,
        "records": 4198,
    }
    assert report["findings_by_check"] == {"schema": 3, "orphan": 21, "duplicate": 6}
    by_check: dict[str, list[tuple[str, str]]] = {}
    for finding in report["findings"]:
        by_check.setdefault(finding["check"], []).append((finding["file"], finding["path"]))
    orphan_organizations = [9, 15, 16, *range(40, 52), 66, 67, 130, 135]
    assert by_check["orphan"] == [("persons/person-265.json", "$"), ("persons/person-368.json", "$")] + [
        (f"organizations/organization-{number:03d}.json", "$") for number in orphan_organizations
    ]
    shared_pid = [
        finding for finding in report["findings"] if "'https://ark.dasch.swiss/ark:/72163/1/0801'" in finding["message"]
    ]
    assert [(f["file"], f["path"], f["check"]) for f in shared_pid] == [
        (f"projects/{name}.json", "pid", "duplicate")
        for name in (
            "0801_bebb",
            "0801_condorcet-turgot",
            "0801_euler-goldbach",
            "0801_meditationes",
            "0801_reisebuechlein",
        )
    ] + [("clusters/cluster-003-beol.json", "pid", "duplicate")]
    assert by_check["schema"] == [
        ("projects/081B_delille.json", "publications[0].text"),
        ("projects/084A_globalgeschichte.json", "publications[0].text"),
        ("projects/085C_wiborada.json", "legalInfo[0].license.licenseURI"),
    ]


# -- issue 39, point 10: the summary counts what svc serve loads ------------------------------------------------------


def _served_counts(output: str) -> dict[str, int]:
    """The counts of svc serve's `loaded …` line."""
    line = next(line for line in output.splitlines() if " loaded " in line)
    counted = line.partition(" loaded ")[2].partition(" from ")[0]
    return {kind: int(number) for number, kind in (part.split(" ") for part in counted.split(", "))}


@pytest.mark.slow
def test_the_summary_counts_none_of_a_file_that_breaks_off(tmp_path: Path) -> None:
    """A records file cut short (a copy caught half-way): svc serve skips it whole, and so does the count."""
    data = tmp_path / "data"
    shutil.copytree(SAMPLE_DIR, data)
    truncated = data / "records" / "08A2-records.json"
    whole = len(json.loads(truncated.read_text()))
    truncated.write_bytes(truncated.read_bytes()[: truncated.stat().st_size // 2])  # records before the break parse
    orphan = data / "records" / "FFFF-records.json"  # the records of no project: svc serve reads none of them
    orphan.write_text(json.dumps([{"id": "record-orphan", "pid": "FFFF-1"}]))

    result = run_svc("validate", str(data), "--format", "json")
    server = start_server(data)
    served = _served_counts(stop_server(server))

    report = json.loads(result.stdout)
    assert [(f["file"], f["message"].partition(":")[0]) for f in report["findings"] if f["check"] == "file"] == [
        ("records/08A2-records.json", "not valid JSON")
    ]
    assert {kind: report["counts"][kind] for kind in served} == served
    assert served["records"] == 1516 - whole  # the sample data's records less the truncated file's
