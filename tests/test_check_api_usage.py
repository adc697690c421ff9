"""`svc check-api-usage`, run as a subprocess on fixtures written for it (tests/fixtures/apiusage/)."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import run_svc

FIXTURES = Path(__file__).parent / "fixtures" / "apiusage"

# The end of each kind of finding line: "<what> — use <replacement> (<version>)".
NO_VERSION = "(deprecated, no removal version announced)"
BEARER = f"— use a bearer token (Authorization: Bearer <token>) {NO_VERSION}"
BASIC_AUTH = f"deprecated basic authentication {BEARER}"
QUERY_CREDENTIALS = f"deprecated credentials in a query string {BEARER}"
SESSION_COOKIE = f"deprecated session cookie authentication {BEARER}"
V3_EXPORT = "— use the v3 project export/import API (removed in v35)"
DELETE_PROJECT = "removed DELETE /admin/projects/iri/{iri} — use the separate project erase endpoint (removed in v55)"
EXPORT_ALL = f"removed GET /admin/projects/export {V3_EXPORT}"
EXPORT = f"removed POST /admin/projects/shortcode/{{projectShortcode}}/export {V3_EXPORT}"
EXPORT_AWAIT = f"removed POST /admin/projects/shortcode/{{projectShortcode}}/export-await {V3_EXPORT}"
IMPORT = f"removed POST /admin/projects/shortcode/{{projectShortcode}}/import {V3_EXPORT}"
STATUS_REQUEST = (
    "removed status in a project create/update request — use the same request without status (removed in v55)"
)
STATUS_RESPONSE = (
    "removed status in a project response (Project, ProjectsGetResponse, ProjectGetResponse) "
    "— use project responses without status (removed in v55)"
)
DOAP = f"— use /admin/permissions/doap/{{permissionIri}} {NO_VERSION}"
LIST_INFO = f"— use /admin/lists/{{listIri}}/info {NO_VERSION}"
CARDINALITY = "/v2/ontologies/canreplacecardinalities/{classIRI}"
CARDINALITY_USE = f"— use {CARDINALITY}?propertyIri={{propertyIri}}&newCardinality={{0-1|1|1-n|0-n}} {NO_VERSION}"
ALLOWED = "(allowed: 0-1, 1, 1-n, 0-n)"
IS_SEQUENCE_OF = (
    "deprecated base:isSequenceOf — use base:isAudioSegmentOf or base:isVideoSegmentOf (deprecated since 30.11.0)"
)
HAS_SEQUENCE_BOUNDS = "deprecated base:hasSequenceBounds — use base:hasSegmentBounds (deprecated since 30.11.0)"
EXTERNAL_URL = f"deprecated base:fileValueHasExternalUrl — use base:stillImageFileValueExternalFileValue {NO_VERSION}"
PROJECT_STATUS_TRIPLE = "removed admin:status on a project — use no project status triple (removed in v55)"


def check(*args: str):
    return run_svc("check-api-usage", *map(str, args))


def findings(result, under: Path) -> list[str]:
    """The finding lines of files under `under`, with that directory stripped from the file names."""
    prefix = f"{under}/"
    return [line.removeprefix(prefix) for line in result.stdout.splitlines() if line.startswith(prefix)]


@pytest.fixture(scope="module")
def all_fixtures():
    """One scan of the whole fixture tree, as a team would run it on its repository."""
    return check(FIXTURES)


def test_whole_tree_summary_and_exit_code(all_fixtures):
    assert all_fixtures.returncode == 1  # removed items are used
    assert all_fixtures.stderr.strip() == "18 removed, 33 deprecated in 19 file(s) scanned"
    assert len(all_fixtures.stdout.splitlines()) == 18 + 33
    assert findings(all_fixtures, FIXTURES / "clean") == []


def test_python_client(all_fixtures):
    result = all_fixtures
    assert findings(result, FIXTURES / "python_client") == [
        f"dsp_admin.py:15: {BASIC_AUTH}",  # session.auth = (email, password)
        f"dsp_admin.py:16: {BASIC_AUTH}",  # HTTPBasicAuth
        f"dsp_admin.py:25: {DELETE_PROJECT}",
        f"dsp_admin.py:28: {EXPORT_ALL}",
        f"dsp_admin.py:31: {EXPORT_AWAIT}",
        f"dsp_admin.py:41: {STATUS_REQUEST}",  # in a project create payload built before the call
        f"dsp_admin.py:50: {STATUS_REQUEST}",  # json={"status": False} in a PUT to the project
        f"dsp_admin.py:55: deprecated PUT /admin/permissions/{{permissionIri}}/hasPermissions {DOAP}",
        f"dsp_admin.py:60: deprecated GET /admin/lists/infos/{{listIri}} {LIST_INFO}",
        f"dsp_admin.py:63: deprecated GET {CARDINALITY} without propertyIri and newCardinality {CARDINALITY_USE}",
    ], result.stderr
    # GET of a project by IRI (line 20) and the check with params= (line 67) are not findings


def test_javascript_client_alone():
    result = check(FIXTURES / "js_client" / "listsClient.js")
    assert findings(result, FIXTURES / "js_client") == [
        f"listsClient.js:5: {BASIC_AUTH}",  # "Basic " + btoa(…)
        f"listsClient.js:9: deprecated GET /admin/lists/nodes/{{listIri}} {LIST_INFO}",  # fetch: GET
        f"listsClient.js:10: {SESSION_COOKIE}",  # credentials: "include"
        f"listsClient.js:16: deprecated PUT /admin/permissions/{{permissionIri}}/group {DOAP}",  # method: on next line
        f"listsClient.js:24: {DELETE_PROJECT}",
        f"listsClient.js:31: {IMPORT}",  # built by string concatenation
        # the URL is built on its own line: no method shown
        f"listsClient.js:35: deprecated {CARDINALITY} with newCardinality=2 {ALLOWED} {CARDINALITY_USE}",
        f"listsClient.js:43: {STATUS_REQUEST}",
    ]
    assert result.returncode == 1


def test_shell_script_and_http_requests(all_fixtures):
    result = all_fixtures
    assert findings(result, FIXTURES / "scripts") == [
        f"cardinality-checks.http:10: deprecated GET {CARDINALITY} without propertyIri and newCardinality "
        + CARDINALITY_USE,
        f"cardinality-checks.http:14: deprecated GET {CARDINALITY} without newCardinality {CARDINALITY_USE}",
        f"cardinality-checks.http:18: deprecated GET {CARDINALITY} with newCardinality=1-2 {ALLOWED} {CARDINALITY_USE}",
        f"nightly-export.sh:7: {BASIC_AUTH}",  # curl -u user:password
        f"nightly-export.sh:7: {EXPORT}",
        f"nightly-export.sh:10: {BASIC_AUTH}",  # https://user:password@host
        f"nightly-export.sh:10: {EXPORT_ALL}",
        f"nightly-export.sh:11: {QUERY_CREDENTIALS}",
        f"nightly-export.sh:12: deprecated GET /admin/lists/nodes/{{listIri}} {LIST_INFO}",
        f"nightly-export.sh:12: {SESSION_COOKIE}",  # curl -b
    ]
    # the valid checks (lines 6 and 22, parameters in either order) are not findings


def test_access_log_with_percent_encoded_iris(all_fixtures):
    result = all_fixtures
    assert findings(result, FIXTURES / "logs") == [
        f"access.log:1: deprecated GET /admin/lists/infos/{{listIri}} {LIST_INFO}",
        f"access.log:3: {DELETE_PROJECT}",
        f"access.log:4: deprecated GET {CARDINALITY} without propertyIri and newCardinality {CARDINALITY_USE}",
        f"access.log:6: deprecated GET {CARDINALITY} without newCardinality {CARDINALITY_USE}",
        f"access.log:7: deprecated GET {CARDINALITY} with newCardinality=2 {ALLOWED} {CARDINALITY_USE}",
        f"access.log:8: {BASIC_AUTH}",  # an authenticated user in the %u field
        f"access.log:9: {QUERY_CREDENTIALS}",
        f"access.log:10: {EXPORT}",
        f"access.log:11: {EXPORT_ALL}",
        f"access.log:12: deprecated PUT /admin/permissions/{{permissionIri}}/group {DOAP}",
    ]
    # line 2 (GET of the same project IRI), 5 (valid check) and 13 (the DOAP route) are not findings


def test_ontologies_in_turtle_json_ld_and_rdf_xml(all_fixtures):
    result = all_fixtures
    assert findings(result, FIXTURES / "ontologies") == [
        f"admin-data.ttl:9: {PROJECT_STATUS_TRIPLE}",  # user and group status (lines 14, 18) remain
        f"films-onto.rdf:10: {IS_SEQUENCE_OF}",  # full IRI under the namespace the file binds to base:
        f"films-onto.rdf:14: {HAS_SEQUENCE_BOUNDS}",
        f"interviews-onto.ttl:24: {HAS_SEQUENCE_BOUNDS}",
        f"interviews-onto.ttl:30: {IS_SEQUENCE_OF}",
        f"interviews-onto.ttl:39: {EXTERNAL_URL}",
        f"letters-data.jsonld:13: {IS_SEQUENCE_OF}",  # knora-api: (API v2 schema) prefix
        f"letters-data.jsonld:14: {HAS_SEQUENCE_BOUNDS}",
        f"letters-data.jsonld:25: {EXTERNAL_URL}",
    ]


def test_payloads_with_and_without_status(all_fixtures):
    result = all_fixtures
    assert findings(result, FIXTURES / "payloads") == [
        f"create-project.json:10: {STATUS_REQUEST}",
        f"project-requests.json:7: {STATUS_REQUEST}",  # the user status body (line 12) is not a project's
        f"project-response.json:10: {STATUS_RESPONSE}",
        f"update-project.json:4: {STATUS_REQUEST}",
    ]


def test_clean_files_produce_no_finding():
    clean = FIXTURES / "clean"
    result = check(clean, "--strict")
    assert result.stdout == ""
    assert result.returncode == 0
    scanned = len([path for path in clean.iterdir() if path.is_file()])
    assert result.stderr.strip() == f"0 removed, 0 deprecated in {scanned} file(s) scanned"


@pytest.mark.slow
def test_exit_codes_deprecated_strict_and_usage_errors(tmp_path):
    deprecated_only = check(FIXTURES / "scripts" / "cardinality-checks.http")
    assert deprecated_only.returncode == 0 and deprecated_only.stdout.count("\n") == 3
    strict = check(FIXTURES / "scripts" / "cardinality-checks.http", "--strict")
    assert strict.returncode == 1 and strict.stdout == deprecated_only.stdout

    missing = check(tmp_path / "nowhere")
    assert missing.returncode == 2
    assert missing.stderr.strip() == f"svc check-api-usage: {tmp_path / 'nowhere'}: no such file or directory"
    nothing = check()
    assert nothing.returncode == 2 and "give at least one file or directory" in nothing.stderr
    bad_option = check(FIXTURES / "clean", "--namespace", "nonsense")
    assert bad_option.returncode == 2 and "--namespace expects VOCAB=VALUE" in bad_option.stderr
    unknown_vocabulary = check(FIXTURES / "clean", "--prefix", "media=x")
    assert unknown_vocabulary.returncode == 2 and "unknown vocabulary 'media'" in unknown_vocabulary.stderr


def test_json_format():
    result = check(FIXTURES / "logs" / "access.log", FIXTURES / "payloads" / "update-project.json", "--format", "json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["summary"] == {"removed": 4, "deprecated": 7, "files_scanned": 2, "binary_files_skipped": 0}
    assert report["errors"] == [] and report["notes"] == []
    first = report["findings"][0]
    assert first == {
        "file": str(FIXTURES / "logs" / "access.log"),
        "line": 1,
        "status": "deprecated",
        "id": "list-infos",
        "kind": "route",
        "what": "GET /admin/lists/infos/{listIri}",
        "method": "GET",
        "match": "GET /admin/lists/infos/http%3A%2F%2Frdfh.ch%2Flists%2F0801%2FsJ3jXWKRSdOv8Lz3wK1Gqw",
        "replacement": "/admin/lists/{listIri}/info",
        "version": "deprecated, no removal version announced",
        "removed_in": None,
        "deprecated_since": None,
        "note": "List information is served by /admin/lists/{listIri}/info.",
    }
    last = report["findings"][-1]
    assert (last["file"], last["line"], last["id"], last["removed_in"]) == (
        str(FIXTURES / "payloads" / "update-project.json"),
        4,
        "project-status-in-request",
        "v55",
    )


def test_json_matches_carry_no_secret():
    """The matched text is reported, but passwords and tokens in it are masked (reports end up in CI logs)."""
    result = check(FIXTURES / "scripts" / "nightly-export.sh", FIXTURES / "logs" / "access.log", "--format", "json")
    matches = {(Path(f["file"]).name, f["line"], f["id"]): f["match"] for f in json.loads(result.stdout)["findings"]}
    assert matches[("nightly-export.sh", 10, "basic-auth")] == "https://archivist:***@"
    assert matches[("nightly-export.sh", 11, "credentials-in-query")] == "&password=***"
    assert matches[("access.log", 8, "basic-auth")] == "authenticated user archivist"
    assert "s3cret" not in result.stdout


def test_list_prints_the_registry():
    table = check("--list")
    assert table.returncode == 0
    header, *rows = (re.split(r"\s{2,}", row) for row in table.stdout.splitlines())
    assert header == ["ID", "KIND", "STATUS", "VERSION", "WHAT", "REPLACEMENT"]
    assert len(rows) == 19
    assert rows[0] == [
        "project-delete-by-iri",
        "route",
        "removed",
        "removed in v55",
        "DELETE /admin/projects/iri/{iri}",
        "the separate project erase endpoint",
    ]

    listing = json.loads(check("--list", "--format", "json").stdout)
    entries = {entry["id"]: entry for entry in listing["entries"]}
    # every removal and deprecation of the seed (parts 2-5 and 9)
    removed = {
        "project-delete-by-iri": "v55",
        "projects-export": "v35",
        "project-export": "v35",
        "project-export-await": "v35",
        "project-import": "v35",
        "project-status-in-request": "v55",
        "project-status-in-response": "v55",
        "project-status-triple": "v55",
    }
    assert {i: e["removed-in"] for i, e in entries.items() if e["status"] == "removed"} == removed
    assert {i for i, e in entries.items() if e["status"] == "deprecated"} == {
        "permission-update-group",
        "permission-update-has-permissions",
        "list-infos",
        "list-nodes",
        "canreplacecardinalities-without-parameters",
        "is-sequence-of",
        "has-sequence-bounds",
        "file-value-has-external-url",
        "basic-auth",
        "credentials-in-query",
        "session-cookie",
    }
    assert entries["is-sequence-of"]["deprecated-since"] == "30.11.0"
    assert "retyped as base:AudioSegment or base:VideoSegment" in entries["is-sequence-of"]["note"]
    assert "xsd:anyURI" in entries["file-value-has-external-url"]["note"]
    assert entries["canreplacecardinalities-without-parameters"]["allowed-values"] == {
        "newCardinality": ["0-1", "1", "1-n", "0-n"]
    }
    assert listing["vocabularies"]["base"]["prefixes"] == ["base"]


@pytest.mark.slow
def test_namespace_and_prefix_options():
    films = FIXTURES / "ontologies" / "films-onto.rdf"
    # films-onto.rdf binds base: to a local test server's namespace, not one of the default namespaces
    without_prefix = check(films, "--prefix", "base=kb")
    assert without_prefix.stdout == "" and without_prefix.returncode == 0
    by_namespace = check(films, "--prefix", "base=kb", "--namespace", "base=http://localhost:3333/ontology/knora-base#")
    assert findings(by_namespace, films.parent) == [
        f"films-onto.rdf:10: {IS_SEQUENCE_OF}",
        f"films-onto.rdf:14: {HAS_SEQUENCE_BOUNDS}",
    ]
    listing = json.loads(check("--list", "--format", "json", "--prefix", "base=kb").stdout)
    assert listing["vocabularies"]["base"]["prefixes"] == ["kb"]


def test_directory_walk_skips_vcs_dependencies_venvs_and_binaries(tmp_path):
    shutil.copy(FIXTURES / "js_client" / "listsClient.js", tmp_path / "client.js")
    for skipped in (".git", "node_modules/dsp-js", "env"):
        (tmp_path / skipped).mkdir(parents=True)
        shutil.copy(FIXTURES / "js_client" / "listsClient.js", tmp_path / skipped / "client.js")
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR/admin/projects/export")
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "access.log.1.gz").write_bytes(gzip.compress((FIXTURES / "logs" / "access.log").read_bytes()))

    result = check(tmp_path)
    files = {line.split(":", 1)[0].removeprefix(f"{tmp_path}/") for line in result.stdout.splitlines()}
    assert files == {"client.js", "logs/access.log.1.gz"}
    assert len(result.stdout.splitlines()) == 8 + 10
    assert result.stderr.strip() == "6 removed, 12 deprecated in 2 file(s) scanned, 1 binary file(s) skipped"


def test_files_that_cannot_be_checked_exit_2(tmp_path):
    (tmp_path / "broken.ttl").write_text("@prefix base: <http://www.knora.org/ontology/knora-base#> .\nbase:x base:y\n")
    (tmp_path / "remote.jsonld").write_text('{"@context": "https://example.org/context.jsonld", "@id": "x"}')
    (tmp_path / "tsconfig.json").write_text('{ // comments are allowed here\n "compilerOptions": {} }\n')
    result = check(tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    messages = result.stderr.strip().splitlines()
    assert messages[0].startswith(f"{tmp_path / 'tsconfig.json'}: not valid JSON (")
    assert messages[0].endswith("); scanned as text")
    assert messages[1].startswith(f"{tmp_path / 'broken.ttl'}: not valid Turtle: ")
    assert messages[2] == (
        f"{tmp_path / 'remote.jsonld'}: JSON-LD @context 'https://example.org/context.jsonld' "
        "refers to another document, which is not fetched"
    )
    assert messages[3] == "0 removed, 0 deprecated in 3 file(s) scanned, 2 file(s) could not be checked"


def test_svc_help_lists_the_command():
    result = run_svc("--help")
    assert "  check-api-usage  " in result.stdout
    assert "usage: svc check-api-usage" in run_svc("check-api-usage", "--help").stdout
