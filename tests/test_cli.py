"""The `svc` console script, run as a subprocess."""

import json
import socket
import subprocess
import tomllib
import urllib.request
from importlib.metadata import version

import pytest

from svc_site.cli import SUBCOMMANDS
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
        f"svc serve: FRAMEWORK_SITE_ROOT {unwritable}: cannot build the static assets there (No such file or directory)"
    )


def test_serve_without_data_dir_stops_with_one_line(tmp_path):
    result = run_svc(
        "serve", env={"SVC_DATA_DIR": str(tmp_path / "missing"), "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{free_port()}"}
    )
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"svc serve: SVC_DATA_DIR: data directory {str(tmp_path / 'missing')!r} does not exist or is not a directory"
    ]


def test_serve_on_a_busy_port_stops_with_one_line():
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = run_svc("serve", env={"SVC_DATA_DIR": str(SAMPLE_DIR), "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{port}"})
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"svc serve: FRAMEWORK_SITE_ADDR 127.0.0.1:{port}: cannot listen there (Address already in use)"
    ]
    assert "gunicorn" not in result.stdout  # stopped before gunicorn started (and retried five times)


# Django's own options of a management command: meaningless to an operator of `svc` (issue 39, point 12).
DJANGO_OPTIONS = [
    "--settings",
    "--pythonpath",
    "--traceback",
    "--verbosity",
    "--no-color",
    "--force-color",
    "--skip-checks",
]


@pytest.mark.parametrize("command", list(SUBCOMMANDS))
def test_command_help_shows_only_the_commands_own_options(command):
    result = run_svc(command, "--help")
    assert result.returncode == 0 and result.stdout.startswith(f"usage: svc {command} [-h]")
    assert [option for option in DJANGO_OPTIONS if option in result.stdout] == []


@pytest.mark.parametrize("ignore_file", [".gitignore", ".dockerignore"])
def test_what_svc_stamp_writes_beside_the_bundled_data_is_neither_committed_nor_built_in(ignore_file, tmp_path):
    """`svc stamp modules/svc/server/data`, as the first `svc serve` suggests, writes .svc/ into the work tree.

    Each file is read by git alone in an empty repository (`**/.svc` means the same to git and to podman).
    """
    (tmp_path / ".gitignore").write_text((PROJECT_ROOT / ignore_file).read_text())
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=30)
    written = ["modules/svc/server/data/.svc/token-key", "modules/svc/server/data/.svc/snapshot.bin"]
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", *written], cwd=tmp_path, capture_output=True, text=True, timeout=30
    )
    assert (result.returncode, result.stdout.splitlines()) == (0, written), result.stderr


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


# -- svc healthcheck: what it probes (issue 39, point 11) -------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/hostname",
        "data:,hello",
        "ftp://127.0.0.1/x",
        "http:///healthz",
        "localhost:8080/healthz",
        "http://localhost:0/healthz",
        "http://localhost:99999/healthz",
        "http://localhost:port/healthz",
    ],
)
def test_healthcheck_probes_only_http_urls(url):
    result = run_svc("healthcheck", "--url", url, "--timeout", "1")
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"svc healthcheck: error: argument --url: {url!r} is not an http:// or https:// URL with a host"
    )


def test_healthcheck_opens_no_ftp_connection():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0)  # after the command has ended: a connection it made waits in the queue
        result = run_svc("healthcheck", "--url", f"ftp://127.0.0.1:{listener.getsockname()[1]}/", "--timeout", "1")
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert result.returncode == 2


@pytest.mark.parametrize("timeout", ["0", "-1", "nan", "inf", "-inf", "1e999", "abc", ""])
def test_healthcheck_timeout_is_a_number_of_seconds_above_zero(timeout):
    result = run_svc("healthcheck", "--url", "http://127.0.0.1:9/healthz", f"--timeout={timeout}")
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"svc healthcheck: error: argument --timeout: {timeout!r} is not a number of seconds above 0"
    )


@pytest.mark.parametrize("listen_host", ["127.0.0.1", "0.0.0.0"])
def test_healthcheck_probes_the_configured_port_by_default(corpus_server, listen_host):
    """The image's HEALTHCHECK (`svc healthcheck`, no --url) follows FRAMEWORK_SITE_ADDR when an operator moves it."""
    port = corpus_server.base_url.rpartition(":")[2]
    result = run_svc("healthcheck", env={"FRAMEWORK_SITE_ADDR": f"{listen_host}:{port}"})
    probed = "localhost" if listen_host == "0.0.0.0" else listen_host  # every address: the local one
    assert (result.returncode, result.stdout, result.stderr) == (0, f"healthy: http://{probed}:{port}/healthz\n", "")


def test_healthcheck_default_url_is_the_seeds_when_unset():
    result = run_svc("healthcheck", "--help", env={"FRAMEWORK_SITE_ADDR": ""})
    assert "(default http://localhost:8080/healthz: " in " ".join(result.stdout.split())


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
    assert len(lines) == 1 and lines[0].startswith(
        f"svc serve: SVC_DATA_DIR: data directory {str(directory)!r} holds no"
    )
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
    # Unstamped data: the one snapshot warning first (tests/test_snapshot.py), then the loader's two, then the
    # search index's one (tests/test_search_engine.py).
    assert len(warnings) == 4 and "snapshot not used: there is no snapshot" in warnings.pop(0), output
    assert "projects/0002.json: 1 of 1 object(s) do not match the schema of projects/" in warnings[0]
    assert f"skipped persons/huge.json: {size} bytes, more than the 16777216 bytes (16 MiB)" in warnings[1]
    assert "search index not used: there is no search index" in warnings[2]
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
