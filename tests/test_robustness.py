"""Bad data, bad requests and abusive clients against a real `svc serve` (issue 13).

Each test reproduces one attack of the issue and asserts the behaviour that
replaces the failure: a refused reload, a broken file skipped whole, a bounded
body, a forged token refused, private log lines, trusted forwarding headers.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import (
    CORPUS_DIR,
    SAMPLE_DIR,
    SVC,
    Server,
    free_port,
    run_svc,
    start_server,
    stop_server,
    wait_for,
)
from tests.oai_support import parse_valid

OAI = "/dpe/oai"
FORM = "application/x-www-form-urlencoded"


def fetch(url: str, data: bytes | None = None, headers: dict[str, str] | None = None, method: str | None = None):
    request = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers


def error_codes(body: bytes) -> list[str]:
    namespace = "{http://www.openarchives.org/OAI/2.0/}"
    return [element.get("code") for element in parse_valid(body).iter(f"{namespace}error")]


def copy_corpus(destination: Path) -> Path:
    shutil.copytree(CORPUS_DIR, destination)
    return destination


def log_problems(output: str) -> list[str]:
    """Lines at WARNING or above, and any traceback."""
    return [line for line in output.splitlines() if " WARNING " in line or " ERROR " in line or "Traceback" in line]


# --- 2. a reload that would lose most of a type is refused -----------------------------


@pytest.mark.slow
def test_reload_that_empties_or_halves_a_type_is_refused(tmp_path: Path):
    data = copy_corpus(tmp_path / "data")
    server = start_server(data)
    try:
        version = fetch(server.base_url + "/persons/person-001")[2]["X-Data-Version"]
        shutil.rmtree(data / "persons")  # the attack: a type directory gone, then SIGHUP
        server.process.send_signal(signal.SIGHUP)
        server.wait_for_output("reload refused: it would lose persons 416 -> 0")

        records = data / "records" / "0803-records.json"
        shutil.copytree(CORPUS_DIR / "persons", data / "persons")
        records.write_text(json.dumps(json.loads(records.read_text())[:1000]))  # 4198 -> 1000: more than half
        server.process.send_signal(signal.SIGHUP)
        server.wait_for_output("reload refused: it would lose records 4198 -> 1000")
        refusals = [line for line in server.output().splitlines() if "reload refused" in line]
        assert len(refusals) == 2 and all(" ERROR " in line for line in refusals)
        status, _, headers = fetch(server.base_url + "/persons/person-001")
        assert status == 200 and headers["X-Data-Version"] == version
    finally:
        stop_server(server)


@pytest.mark.slow
def test_validate_with_previous_data_reports_the_same_shrinkage(tmp_path: Path):
    new = copy_corpus(tmp_path / "new")
    records = new / "records" / "0803-records.json"
    items = json.loads(records.read_text())
    records.write_text(json.dumps(items[: len(items) // 3]))
    result = run_svc("validate", str(new), "--previous", str(CORPUS_DIR))
    assert result.returncode == 1
    assert "records 4198 -> 1399" in result.stdout + result.stderr
    unchanged = run_svc("validate", str(CORPUS_DIR), "--previous", str(CORPUS_DIR))
    assert "would lose" not in unchanged.stdout + unchanged.stderr


# --- 3, 4, 9. file-level problems: one finding naming the file, the whole file skipped ---


def broken_copy(root: Path) -> Path:
    data = copy_corpus(root)
    (data / "persons" / "deep.json").write_text("[" + '{"a":' * 100_000 + "1" + "}" * 100_000 + "]")
    records = data / "records" / "0803-records.json"
    text = records.read_bytes()
    records.write_bytes(text[: len(text) // 2])  # the first half is 2,000-odd complete records
    os.symlink("loop-b.json", data / "organizations" / "loop-a.json")
    os.symlink("loop-a.json", data / "organizations" / "loop-b.json")
    (data / "clusters" / "latin1.json").write_bytes('[{"id": "café"}]'.encode("latin-1"))
    return data


BROKEN_FILES = [
    "persons/deep.json",
    "records/0803-records.json",
    "organizations/loop-a.json",
    "organizations/loop-b.json",
    "clusters/latin1.json",
]


@pytest.mark.slow
def test_broken_files_are_skipped_whole_and_the_rest_is_served(tmp_path: Path):
    data = broken_copy(tmp_path / "data")
    server = start_server(data)
    try:
        assert fetch(server.base_url + "/projects")[0] == 200
        assert fetch(server.base_url + "/persons/person-001")[0] == 200
        # Not one record of the truncated file is served.
        status, body, _ = fetch(server.base_url + OAI + "?verb=ListIdentifiers&metadataPrefix=oai_dc&set=project:0803")
        assert status == 200 and set(error_codes(body)) <= {"noRecordsMatch", "badArgument"}
        assert b"<header>" not in body
    finally:
        output = stop_server(server)
    for name in BROKEN_FILES:
        lines = [line for line in output.splitlines() if f"skipped {name}:" in line]
        assert len(lines) == 1, (name, output)
    assert "Traceback" not in output


@pytest.mark.slow
def test_validate_reports_every_broken_file(tmp_path: Path):
    data = broken_copy(tmp_path / "data")
    result = run_svc("validate", str(data), "--format", "json", timeout=120)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    findings = json.loads(result.stdout)["findings"]
    files = {finding["file"] for finding in findings if finding["check"] == "file"}
    assert set(BROKEN_FILES) <= files


# --- 5, 7. request bodies: bounded, never multipart, never on disk; bad input is one WARNING ---


@pytest.fixture(scope="module")
def strict_server(tmp_path_factory: pytest.TempPathFactory):
    """svc serve with no usable temporary directory, as in the read-only container."""
    server = start_server(CORPUS_DIR, {"TMPDIR": str(tmp_path_factory.mktemp("gone") / "missing")})
    yield server
    stop_server(server)


def test_multipart_and_oversized_bodies_are_refused_without_touching_disk(strict_server):
    url = strict_server.base_url + OAI
    boundary = "b0undary"
    upload = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="verb"\r\n\r\nIdentify\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="f"; filename="x.bin"\r\n\r\n'
        ).encode()
        + b"x" * 3_000_000
        + f"\r\n--{boundary}--\r\n".encode()
    )
    status, body, _ = fetch(url, upload, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert status == 200 and error_codes(body) == ["badArgument"]
    status, _, _ = fetch(url, b"verb=Identify&" + b"x" * 50_000, {"Content-Type": FORM})
    assert status == 413
    status, body, _ = fetch(url, b"verb=Identify", {"Content-Type": FORM})
    assert status == 200 and error_codes(body) == []


def test_malformed_form_bodies_are_protocol_errors_with_one_warning_at_most(strict_server):
    url = strict_server.base_url + OAI
    before = len(strict_server.output())
    for body in (b"verb=Id\xff\xfeentify", b"&".join([b"a=1"] * 2000), b"verb=Identify&verb=Identify"):
        status, answer, _ = fetch(url, body, {"Content-Type": FORM})
        assert status == 200 and error_codes(answer) in (["badVerb"], ["badArgument"])
    status, _, _ = fetch(strict_server.base_url + "/projects", headers={"Host": "bad host!"})
    assert status == 400
    strict_server.wait_for_output("DisallowedHost")  # the worker's line may reach the pipe after the answer
    new_output = strict_server.output()[before:]
    assert "Traceback" not in new_output
    warnings = log_problems(new_output)
    assert len(warnings) == 1 and " WARNING " in warnings[0] and "DisallowedHost" in warnings[0]


def test_head_requests_add_no_warning(strict_server):
    before = len(strict_server.output())
    for path in ("/projects", OAI + "?verb=Identify", "/healthz"):
        status, body, _ = fetch(strict_server.base_url + path, method="HEAD")
        assert status == 200 and body == b""
    assert log_problems(strict_server.output()[before:]) == []


def test_gunicorn_lines_carry_neither_the_client_address_nor_query_values(strict_server):
    host, port = strict_server.base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"GET /projects?q=jane.doe@example.org\r\nHost: x\r\n\r\n")
        assert sock.recv(100).startswith(b"HTTP/1.1 400")
    strict_server.wait_for_output("Invalid request from ip=")
    line = next(line for line in strict_server.output().splitlines() if "Invalid request from ip=" in line)
    assert "jane.doe" not in line and "127.0.0.1" not in line
    assert "ip=127.0.0.0" in line and "'REDACTED'" in line  # the malformed request line is not logged at all


# --- 10. X-Forwarded-Proto is trusted exactly as X-Forwarded-For is ----------------------


@pytest.mark.slow
@pytest.mark.parametrize("hops, scheme", [("0", "http"), ("1", "https")])
def test_forwarded_proto_follows_trusted_proxy_hops(hops: str, scheme: str):
    server = start_server(CORPUS_DIR, {"SVC_TRUSTED_PROXY_HOPS": hops})
    try:
        headers = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.7", "Host": "svc.example.org"}
        status, body, _ = fetch(server.base_url + "/projects", headers=headers)
        assert status == 200
        canonical = re.search(rb'<link rel="canonical" href="([^"]+)"', body).group(1).decode()
        assert canonical.startswith(f"{scheme}://svc.example.org/")
    finally:
        stop_server(server)


# --- 6. the page cache counts what entries really cost -----------------------------------


@pytest.mark.slow
def test_cache_accounting_covers_what_long_keys_really_cost():
    """The attack's shape (2 KB keys, 130-byte bodies): the accounting must not undercount memory."""
    import tracemalloc

    from catalog.domain.memo import BytesLRU

    budget = 1 << 20
    cache = BytesLRU(budget)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for number in range(20_000):
            cache.get_or_render((("verb", ("GetRecord",)), ("identifier", (f"{number:08d}" + "x" * 2000,))), bytes)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert cache.size <= budget
    assert held <= cache.size + 64 * 1024  # what the cache says it holds is what it holds


@pytest.mark.slow  # 100,000 requests through the protocol: about a minute on a busy machine
def test_oai_responses_stay_within_budget_under_100000_distinct_long_queries():
    from catalog.domain.loader import load_catalog
    from catalog.domain.memo import BytesLRU
    from oaipmh import protocol
    from oaipmh.protocol import OaiSettings

    catalog = load_catalog(CORPUS_DIR)
    settings = OaiSettings("https://example.org/oai", "Test", "a@example.org", "example.org", 100)
    cache = BytesLRU()  # the application state's response cache
    for number in range(100_000):
        identifier = f"oai:example.org:{number:08d}/" + "z" * 1800  # well-formed, distinct, idDoesNotExist
        protocol.respond(
            {"verb": ["GetRecord"], "metadataPrefix": ["oai_dc"], "identifier": [identifier]},
            catalog,
            settings,
            responses=cache,
        )
    assert cache.size <= cache.max_bytes
    # Malformed requests are answered, never cached.
    count = len(cache)
    for number in range(1000):
        protocol.respond({"verb": ["GetRecord"], "junk": [str(number)]}, catalog, settings, responses=cache)
    assert len(cache) == count
    # Argument order does not make a new entry.
    protocol.respond({"metadataPrefix": ["oai_dc"], "verb": ["ListSets"]}, catalog, settings, responses=cache)
    count = len(cache)
    protocol.respond({"verb": ["ListSets"], "metadataPrefix": ["oai_dc"]}, catalog, settings, responses=cache)
    assert len(cache) == count


# --- 8. forged resumption tokens ----------------------------------------------------------


@pytest.mark.parametrize(
    "field, value",
    [
        ("cursor", -50),
        ("cursor", 0),
        ("cursor", 5000),
        ("cursor", "1"),
        ("complete_list_size", -1),
        ("issued", 4_000_000_000),
        ("after", (0, None)),
        ("low", "yesterday"),
    ],
)
def test_forged_tokens_with_out_of_range_fields_are_refused(field: str, value: object):
    """Without a ledger the key (the data version) is public, so a forged token checks out; its fields must not."""
    from dataclasses import replace

    from oaipmh import tokens

    key, now = b"0123456789abcdef0123", 1_800_000_000
    good = tokens.ListState("ListRecords", "oai_dc", None, None, None, now, False, ("0001", "p/1"), 100, 4283)
    assert tokens.decode(tokens.encode(good, key), "ListRecords", key, now) == good
    changes: dict[str, Any] = {field: value}
    forged = tokens.encode(replace(good, **changes), key)
    with pytest.raises(tokens.BadResumptionToken):
        tokens.decode(forged, "ListRecords", key, now)


def test_a_forged_token_is_a_bad_resumption_token_over_http(strict_server):
    from oaipmh import tokens

    key = fetch(strict_server.base_url + "/projects")[2]["X-Data-Version"].encode()
    state = tokens.ListState("ListRecords", "oai_dc", None, None, None, 0, False, ("", ""), -50, 4283)
    forged = tokens.encode(state, key)
    status, body, _ = fetch(strict_server.base_url + OAI + f"?verb=ListRecords&resumptionToken={forged}")
    assert status == 200 and error_codes(body) == ["badResumptionToken"]


# --- issue 39, point 7: a type directory svc may not read -------------------------------------------------------------

# Root reads every directory (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH): as root, svc runs without those two
# capabilities, as any other user (the image's 65534) would. Not as another user: the interpreter of the .venv may
# lie where only root may go (/root/.pyenv).
WITHOUT_DAC = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
needs_setpriv = pytest.mark.skipif(
    bool(WITHOUT_DAC) and shutil.which("setpriv") is None, reason="as root, this needs setpriv (util-linux)"
)


@pytest.fixture
def unreadable_organizations(tmp_path: Path) -> Iterator[Path]:
    """The bundled sample data, its organizations/ directory made unreadable (mode 000) by the test."""
    data = tmp_path / "data"
    shutil.copytree(SAMPLE_DIR, data)
    yield data
    (data / "organizations").chmod(0o755)


@needs_setpriv
def test_start_on_an_unreadable_type_directory_is_refused_with_one_line(unreadable_organizations: Path):
    data = unreadable_organizations
    (data / "organizations").chmod(0o000)
    env = {**os.environ, "SVC_DATA_DIR": str(data), "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{free_port()}"}
    result = subprocess.run([*WITHOUT_DAC, SVC, "serve"], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stdout and " ERROR " not in result.stdout, result.stdout  # the unstamped data's
    assert result.stderr.splitlines() == [  # snapshot WARNING aside, one line
        f"svc serve: SVC_DATA_DIR: type directory {str(data / 'organizations')!r} cannot be read (Permission denied)"
    ]


@needs_setpriv
def test_validate_names_an_unreadable_type_directory(unreadable_organizations: Path):
    data = unreadable_organizations
    (data / "organizations").chmod(0o000)
    result = subprocess.run(
        [*WITHOUT_DAC, SVC, "validate", str(data), "--format", "json"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert [finding for finding in report["findings"] if finding["check"] == "file"] == [
        {
            "file": "organizations",
            "path": "$",
            "check": "file",
            "message": "cannot list the directory: Permission denied",
        }
    ]
    assert report["counts"]["organizations"] == 0


@pytest.mark.slow
@needs_setpriv
def test_reload_on_an_unreadable_type_directory_is_refused_with_one_line(unreadable_organizations: Path):
    data = unreadable_organizations
    port = free_port()
    env = {**os.environ, "SVC_DATA_DIR": str(data), "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{port}"}
    process = subprocess.Popen(
        [*WITHOUT_DAC, SVC, "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    server = Server(process, f"http://127.0.0.1:{port}")
    try:
        wait_for(server.base_url + "/healthz", process, output=server.finish)
        version = fetch(server.base_url + "/organizations")[2]["X-Data-Version"]
        (data / "organizations").chmod(0o000)
        process.send_signal(signal.SIGHUP)
        server.wait_for_output("reload refused")
        status, _, headers = fetch(server.base_url + "/organizations")
        assert status == 200 and headers["X-Data-Version"] == version
    finally:
        output = stop_server(server)
    refusals = [line for line in output.splitlines() if "reload" in line and " ERROR " in line]
    assert [line.partition(" ERROR ")[2].strip() for line in refusals] == [
        f"catalog: reload refused: type directory {str(data / 'organizations')!r} cannot be read (Permission denied);"
        f" still serving data version {version}"
    ], output
    assert "Traceback" not in output, output
