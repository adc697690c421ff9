"""The `svc` console script, run as a subprocess."""

import socket
import tomllib
import urllib.request
from importlib.metadata import version

import pytest

from tests.conftest import CORPUS_DIR, PROJECT_ROOT, SAMPLE_DIR, free_port, run_svc, start_server, stop_server


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


@pytest.mark.parametrize("workers", ["0", "65", "two", "1e1"])
def test_serve_refuses_workers_outside_the_bounds_of_svc_workers(workers):
    address = f"127.0.0.1:{free_port()}"  # should it start after all, not on a port in use
    result = run_svc("serve", "--workers", workers, env={"FRAMEWORK_SITE_ADDR": address}, timeout=30)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == f"svc serve: error: argument --workers: invalid workers value: '{workers}'"


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
    result = run_svc("serve", env={"SVC_DATA_DIR": str(tmp_path / "missing")})
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


def test_serve_uses_legacy_data_dir(tmp_path):
    server = start_server(CORPUS_DIR, {"SVC_DATA_DIR": "", "DATA_DIR": str(CORPUS_DIR)})
    try:
        logs = stop_server(server)
    finally:
        server.process.kill()
    assert "loaded 85 projects" in logs
