"""The `svc` console script, run as a subprocess."""

import json
import socket
import tomllib
import urllib.request
from importlib.metadata import version

import pytest

from tests.conftest import CORPUS_DIR, PROJECT_ROOT, SAMPLE_DIR, free_port, run_svc, start_server, stop_server
from tests.ops_support import write_data_set


def test_help_lists_the_commands():
    result = run_svc("--help")
    assert result.returncode == 0
    for command in ("serve", "validate", "healthcheck"):
        assert f"  {command} " in result.stdout


def test_no_command_prints_the_usage_and_is_a_usage_error():
    result = run_svc()
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("usage: svc ") and "  healthcheck " in result.stderr


@pytest.mark.parametrize("arguments", [("--version",), ("-V",), ("serve", "--version"), ("validate", "--version")])
def test_version_is_the_installed_package_version(arguments):
    result = run_svc(*arguments)
    assert result.returncode == 0
    assert result.stdout == f"svc {version('svc')}\n"
    assert version("svc") == tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_unknown_command_is_a_usage_error():
    result = run_svc("frobnicate")
    assert result.returncode == 2 and "unknown command 'frobnicate'" in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["0", "65", "two", "1e1"])
def test_serve_refuses_workers_outside_the_bounds_of_svc_workers(workers):
    address = f"127.0.0.1:{free_port()}"  # should it start after all, not on a port in use
    result = run_svc("serve", "--workers", workers, env={"FRAMEWORK_SITE_ADDR": address}, timeout=30)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == f"svc serve: error: argument --workers: invalid workers value: '{workers}'"


@pytest.mark.slow
def test_serve_with_a_site_root_it_cannot_write_stops_with_one_line():
    unwritable = "/proc/sys"  # exists, and not even root can create a directory in it
    address = f"127.0.0.1:{free_port()}"
    result = run_svc(
        "serve",
        env={"SVC_DATA_DIR": str(SAMPLE_DIR), "FRAMEWORK_SITE_ROOT": unwritable, "FRAMEWORK_SITE_ADDR": address},
    )
    assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"CommandError: FRAMEWORK_SITE_ROOT {unwritable}: cannot build the static assets there "
        "(No such file or directory)"
    )


def test_serve_without_data_dir_stops_with_one_line(tmp_path):
    result = run_svc(
        "serve", env={"SVC_DATA_DIR": str(tmp_path / "missing"), "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{free_port()}"}
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "does not exist" in lines[0]


def test_serve_on_a_busy_port_stops_with_one_line():
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = run_svc("serve", env={"SVC_DATA_DIR": str(SAMPLE_DIR), "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{port}"})
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"CommandError: FRAMEWORK_SITE_ADDR 127.0.0.1:{port}: cannot listen there (Address already in use)"
    ]
    assert "gunicorn" not in result.stdout  # stopped before gunicorn started (and retried five times)


def test_healthcheck_against_a_running_server(corpus_server):
    ok = run_svc("healthcheck", "--url", corpus_server.base_url + "/healthz")
    assert ok.returncode == 0, ok.stderr
    missing = run_svc("healthcheck", "--url", corpus_server.base_url + "/no-such-page")
    assert missing.returncode == 1 and "HTTP 404" in missing.stderr


def test_healthcheck_does_not_follow_a_redirect(corpus_server):
    url = corpus_server.base_url + "/"  # answers 308 to /projects, which is 200
    result = run_svc("healthcheck", "--url", url)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [f"unhealthy: {url}: HTTP 308 redirect to '/projects'"]


def test_healthcheck_when_nothing_listens():
    result = run_svc("healthcheck", "--url", "http://127.0.0.1:9/healthz", "--timeout", "1")
    assert result.returncode == 1
    assert len(result.stderr.strip().splitlines()) == 1


def test_healthz_is_empty_200(corpus_server):
    with urllib.request.urlopen(corpus_server.base_url + "/healthz") as response:
        assert response.status == 200 and response.read() == b""


@pytest.mark.slow
def test_serve_uses_legacy_data_dir(tmp_path):
    server = start_server(CORPUS_DIR, {"SVC_DATA_DIR": "", "DATA_DIR": str(CORPUS_DIR)})
    try:
        logs = stop_server(server)
    finally:
        server.process.kill()
    assert "loaded 85 projects" in logs


# -- start only on data (issue 21, point 3) ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["empty", "unrelated file", "parent of the data"])
def test_serve_refuses_a_directory_without_entity_files(tmp_path, shape):
    directory = tmp_path / "mount"
    directory.mkdir()
    if shape == "unrelated file":
        (directory / "notes.txt").write_text("not data")
    if shape == "parent of the data":
        write_data_set(directory / "dsp", ["0001"])
    result = run_svc("serve", env={"SVC_DATA_DIR": str(directory), "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{free_port()}"})
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"data directory {str(directory)!r} holds no entity files" in lines[0], lines
    if shape == "parent of the data":
        assert f"its subdirectory 'dsp' looks like the data directory ({str(directory / 'dsp')!r})" in lines[0]
    else:
        expected = "expected *.json files in projects/, persons/, organizations/, clusters/, collections/, records/"
        assert expected in lines[0]
        assert "SVC_ALLOW_EMPTY_DATA=true" in lines[0]
    assert "gunicorn" not in result.stdout


@pytest.mark.slow
def test_serve_allows_an_empty_catalogue_when_asked(tmp_path):
    server = start_server(tmp_path, {"SVC_ALLOW_EMPTY_DATA": "true"})
    try:
        with urllib.request.urlopen(server.base_url + "/api/v2/projects") as response:
            assert json.load(response) == []
    finally:
        stop_server(server)


# -- entity files too large or not matching their schema (issue 21, point 1) ------------------------------------------


VALID_PROJECT = {
    "pid": "https://ark.dasch.swiss/ark:/72163/1/0001",
    "officialName": "Project",
    "status": "Finished",
    "shortDescription": "A project.",
    "description": {"en": "A project."},
    "startDate": "2020-01-01",
    "endDate": "2021-01-01",
    "howToCite": "Project.",
    "accessRights": {"accessRights": "Full Open Access"},
    "legalInfo": [
        {
            "license": {
                "licenseIdentifier": "CC BY 4.0",
                "licenseDate": "2021-01-01",
                "licenseURI": "https://creativecommons.org/licenses/by/4.0/",
            },
            "copyrightHolder": "DaSCH",
            "authorship": ["CALCULATED"],
        }
    ],
    "keywords": [{"en": "test"}],
    "disciplines": [{"en": "10302 Swiss history"}],
    "temporalCoverage": [{"en": "2020"}],
    "spatialCoverage": [{"type": "URL", "url": "https://www.geonames.org/2658434"}],
    "attributions": [{"contributor": "organization-001", "contributorType": ["Project Leader"]}],
    "funding": "No funding",
}


def _data_with_a_huge_and_an_invalid_file(root):
    """Two projects that match their schema but for one field of 0002, and a persons file above the limit."""
    from catalog.domain.loader import MAX_ENTITY_FILE_BYTES

    data = write_data_set(root, ["0001", "0002"])
    for shortcode, status in (("0001", "Finished"), ("0002", 42)):
        path = data / "projects" / f"{shortcode}.json"
        path.write_text(json.dumps(json.loads(path.read_text()) | VALID_PROJECT | {"status": status}))
    (data / "persons").mkdir()
    person = {"id": "person-x", "givenNames": ["A"], "familyNames": ["B"], "note": "x" * 1000}
    count = MAX_ENTITY_FILE_BYTES // 1000 + 10
    (data / "persons" / "huge.json").write_text(json.dumps([{**person, "id": f"person-{n}"} for n in range(count)]))
    return data


@pytest.mark.slow
def test_serve_skips_a_huge_entity_file_and_names_a_schema_invalid_one_once(tmp_path):
    data = _data_with_a_huge_and_an_invalid_file(tmp_path / "data")
    server = start_server(data)
    try:
        with urllib.request.urlopen(server.base_url + "/api/v2/persons") as response:
            assert json.load(response) == []  # the huge file was not read
        with urllib.request.urlopen(server.base_url + "/api/v2/projects") as response:
            assert [project["shortcode"] for project in json.load(response)] == ["0001", "0002"]  # served as it is
    finally:
        output = stop_server(server)
    warnings = [line for line in output.splitlines() if " WARNING " in line]
    size = (data / "persons" / "huge.json").stat().st_size
    # Unstamped data: the one snapshot warning first (tests/test_snapshot.py), then the loader's two.
    assert len(warnings) == 3 and "snapshot not used: there is no snapshot" in warnings.pop(0), output
    assert "projects/0002.json: 1 of 1 object(s) do not match the schema of projects/" in warnings[0]
    assert f"skipped persons/huge.json: {size} bytes, more than the 16777216 bytes (16 MiB)" in warnings[1]
    assert " ERROR " not in output


def test_validate_refuses_a_huge_entity_file_with_a_finding(tmp_path):
    data = _data_with_a_huge_and_an_invalid_file(tmp_path / "data")
    result = run_svc("validate", str(data), "--format", "json")
    assert result.returncode == 1
    findings = json.loads(result.stdout)["findings"]
    size = (data / "persons" / "huge.json").stat().st_size
    assert {
        "file": "persons/huge.json",
        "path": "$",
        "check": "file",
        "message": f"not read: {size} bytes, more than the 16777216 bytes (16 MiB) an entity file may hold",
    } in findings
