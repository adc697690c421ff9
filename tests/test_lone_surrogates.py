"""Lone UTF-16 surrogates escaped in the data (``"\\ud800"``): a finding, a stamp, and pages with U+FFFD.

JSON allows the escape; the string it parses to cannot be written as UTF-8.
The data directory here carries one in a project's name, a person's name, a
record's label and a record's id; everything else is ordinary.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from catalog.domain.loader import load_catalog
from tests.conftest import run_svc, start_server, stop_server
from tests.datadir import person, project, record, write_data_dir
from tests.oai_support import parse_valid

SHORTCODE = "0AA1"
RECORD_ID = f"http://rdf.example.org/{SHORTCODE}/r2"
# Written as ASCII markers, then turned into the raw JSON escapes (json.dumps cannot write a lone surrogate).
ESCAPES = {"@D800@": "\\ud800", "@DC01@": "\\udc01", "@DBFF@": "\\udbff", "@DFFF@": "\\udfff"}


def data_with_surrogates(root: Path) -> Path:
    write_data_dir(
        root,
        projects=[project(SHORTCODE, name="Lake Dwellings @D800@ of the Jura")],
        persons=[person(family="Sommer@DC01@")],
        records={
            SHORTCODE: [
                record(SHORTCODE, "r1", label="Site plan @DBFF@ north"),
                record(SHORTCODE, "r2", label="Boat survey", id=RECORD_ID + "@DFFF@"),
            ]
        },
    )
    enrichment = {
        "Neolithic": {"date": "-5500/-2200", "original_name": "Neo@D800@lithic", "source": "llm"},
        "Bronze @DC01@ Age": {"date": "-2200/-800", "original_name": "Bronze Age", "source": "llm"},
    }
    (root / "temporal-coverage-enrichment.json").write_text(json.dumps(enrichment), encoding="utf-8")
    for path in root.rglob("*.json"):
        text = path.read_text(encoding="utf-8")
        for marker, escape in ESCAPES.items():
            text = text.replace(marker, escape)
        path.write_text(text, encoding="utf-8")
    return root


def fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_validate_names_the_file_and_field_of_each_lone_surrogate(tmp_path: Path):
    data = data_with_surrogates(tmp_path / "data")

    result = run_svc("validate", str(data), "--format", "json")

    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    found = sorted((f["file"], f["path"]) for f in report["findings"] if f["check"] == "surrogate")
    assert found == [
        ("persons/person-001.json", "familyNames[0]"),
        (f"projects/{SHORTCODE}.json", "name"),
        (f"records/{SHORTCODE}-records.json", "[0].label.en"),
        (f"records/{SHORTCODE}-records.json", "[1].id"),
        ("temporal-coverage-enrichment.json", "Neolithic.original_name"),
        ("temporal-coverage-enrichment.json", '["Bronze \ufffd Age"]'),
    ]
    assert report["findings_by_check"]["surrogate"] == 6


def test_validate_text_output_prints_the_finding_line(tmp_path: Path):
    data = data_with_surrogates(tmp_path / "data")

    result = run_svc("validate", str(data))

    assert result.returncode == 1
    assert f"projects/{SHORTCODE}.json: name: the text holds a lone UTF-16 surrogate" in result.stderr
    assert ", 6 surrogate" in result.stdout.splitlines()[1]


def test_loaded_catalogue_holds_the_replacement_character_everywhere(tmp_path: Path):
    catalog = load_catalog(data_with_surrogates(tmp_path / "data"))

    assert catalog.problems == ()
    assert catalog.get_project(SHORTCODE).name == "Lake Dwellings \ufffd of the Jura"
    assert catalog.persons["person-001"].get("familyNames") == ("Sommer\ufffd",)
    table = catalog.records[SHORTCODE.lower()]
    assert sorted(table.ids) == [f"http://rdf.example.org/{SHORTCODE}/r1", RECORD_ID + "\ufffd"]
    assert catalog.temporal_coverage_enrichment["Neolithic"]["original_name"] == "Neo\ufffdlithic"
    assert "Bronze \ufffd Age" in catalog.temporal_coverage_enrichment


def test_stamp_writes_the_ledger_and_snapshot(tmp_path: Path):
    data = data_with_surrogates(tmp_path / "data")

    result = run_svc("stamp", str(data), "--activate-in", "0")

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].startswith("added 5, changed 0, deleted 0, unchanged 0"), result.stdout
    assert (data / ".svc" / "snapshot.bin").is_file()
    assert "\ufffd" in (data / ".svc" / "ledger.tsv").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize("stamped", [False, True], ids=["records-from-json", "records-from-snapshot"])
def test_pages_api_and_oai_serve_the_replacement_character(tmp_path: Path, stamped: bool):
    data = data_with_surrogates(tmp_path / "data")
    if stamped:
        assert run_svc("stamp", str(data), "--activate-in", "0").returncode == 0
    server = start_server(data)
    try:
        answers = {
            path: fetch(server.base_url + path)
            for path in (
                f"/projects/{SHORTCODE}",
                f"/api/v2/projects/{SHORTCODE}",
                "/persons/person-001",
                "/api/v2/persons/person-001",
                f"/projects/{SHORTCODE}/records",
                f"/projects/{SHORTCODE}/records/r1",
                f"/api/v2/projects/{SHORTCODE}/records/r1",
                f"/projects/{SHORTCODE}/records/r2",
                f"/api/v2/projects/{SHORTCODE}/records/r2",
                "/records",
                "/dpe/oai?verb=ListRecords&metadataPrefix=oai_dc",
                "/dpe/oai?verb=ListRecords&metadataPrefix=oai_datacite",
            )
        }
    finally:
        output = stop_server(server)

    assert {path: status for path, (status, _) in answers.items()} == dict.fromkeys(answers, 200)
    text = {path: body.decode("utf-8") for path, (_, body) in answers.items()}
    assert "Lake Dwellings \ufffd of the Jura" in text[f"/projects/{SHORTCODE}"]
    assert json.loads(text[f"/api/v2/projects/{SHORTCODE}"])["name"] == "Lake Dwellings \ufffd of the Jura"
    assert "Sommer\ufffd" in text["/persons/person-001"]
    assert json.loads(text["/api/v2/persons/person-001"])["familyNames"] == ["Sommer\ufffd"]
    assert "Site plan \ufffd north" in text[f"/projects/{SHORTCODE}/records/r1"]
    assert json.loads(text[f"/api/v2/projects/{SHORTCODE}/records/r1"])["label"] == {"en": "Site plan \ufffd north"}
    assert json.loads(text[f"/api/v2/projects/{SHORTCODE}/records/r2"])["id"] == RECORD_ID + "\ufffd"
    for verb in ("oai_dc", "oai_datacite"):
        body = answers[f"/dpe/oai?verb=ListRecords&metadataPrefix={verb}"][1]
        parse_valid(body)
        assert "Lake Dwellings \ufffd of the Jura" in body.decode("utf-8")
    assert "Traceback" not in output
    assert " ERROR " not in output
    assert "held lone UTF-16 surrogates" in output
