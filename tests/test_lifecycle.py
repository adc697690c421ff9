"""Lifecycle of a real `svc serve`: graceful stop on SIGTERM, data reload on SIGHUP, both under load."""

from __future__ import annotations

import http.client
import os
import secrets
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from lxml import etree

from bench import reload_under_load
from bench.run import activation_of
from catalog.domain.ledger import TOKEN_KEY_PATH
from catalog.domain.loader import load_catalog
from svc_site.middleware import DATA_VERSION_HEADER
from svc_site.server import gunicorn_options
from tests import release_support
from tests.conftest import SAMPLE_DIR, SVC, Server, free_port, start_server, stop_server
from tests.oai_support import HIGH_LIMITS_ENV, OAI_PATH, errors, parse_valid, token
from tests.ops_support import worker_pids, write_data_set

BIG_FILE_SIZE = 16 * 1024 * 1024  # far more than the socket buffers hold: the worker is still sending
SIGHUPS = 6  # bench/reload_under_load.py runs 40
STOP_TRIALS = 10
GRACEFUL_TIMEOUT = gunicorn_options("127.0.0.1:0", 1)["graceful_timeout"]


@pytest.mark.slow
def test_sigterm_lets_a_request_in_flight_finish(tmp_path: Path):
    data = write_data_set(tmp_path / "data", ["0001"])
    site = tmp_path / "site"
    site.mkdir()
    content = os.urandom(1024) * (BIG_FILE_SIZE // 1024)
    (site / "big.bin").write_bytes(content)
    server = start_server(data, {"FRAMEWORK_SITE_ROOT": str(site), "SVC_WORKERS": "1"})
    try:
        port = int(server.base_url.rsplit(":", 1)[1])
        client = socket.socket()
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 * 1024)  # a slow reader with a small window
        client.connect(("127.0.0.1", port))
        client.sendall(b"GET /static/big.bin HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        received = [client.recv(65536)]

        server.process.send_signal(signal.SIGTERM)
        server.wait_for_output("Handling signal: term")  # the stop has begun
        assert server.process.poll() is None, "the server stopped with a response half sent"

        while chunk := client.recv(65536):
            received.append(chunk)
            time.sleep(0.001)
        client.close()
    finally:
        output = stop_server(server)

    head, _, body = b"".join(received).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ") and f"Content-Length: {BIG_FILE_SIZE}".encode() in head
    assert body == content
    assert server.process.returncode == 0, output


class Load:
    """Threads requesting `/` on fresh connections, counting failures and the data versions served."""

    def __init__(self, base_url: str, threads: int = 2) -> None:
        host, port = base_url.removeprefix("http://").split(":")
        self.address = (host, int(port))
        self.failures: list[str] = []
        self.versions: list[tuple[float, str]] = []
        self.running = True
        self.threads = [threading.Thread(target=self.run) for _ in range(threads)]
        for thread in self.threads:
            thread.start()

    def run(self) -> None:
        while self.running:
            connection = http.client.HTTPConnection(*self.address, timeout=10)
            try:
                connection.request("GET", "/")
                response = connection.getresponse()
                response.read()
                if response.status != 308:
                    self.failures.append(f"HTTP {response.status}")
                else:
                    self.versions.append((time.monotonic(), response.headers[DATA_VERSION_HEADER]))
            except OSError as error:
                self.failures.append(repr(error))
            finally:
                connection.close()

    def served_since(self, moment: float) -> set[str]:
        return {version for at, version in self.versions if at >= moment}

    def served_after(self, moment: float, count: int = 20, timeout: float = 30) -> set[str]:
        """The versions served since ``moment``, once ``count`` responses have come (a deadline, not a pause)."""
        end = time.monotonic() + timeout
        while sum(1 for at, _ in self.versions if at >= moment) < count:
            if time.monotonic() > end:
                raise TimeoutError(f"fewer than {count} responses in {timeout} s (failures: {self.failures[-3:]})")
            time.sleep(0.05)
        return self.served_since(moment)

    def wait_until_only(self, version: str, timeout: float = 20) -> None:
        """Until every response for half a second came from ``version`` (old workers are gone)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            since = time.monotonic()
            time.sleep(0.5)
            if self.served_since(since) == {version}:
                return
        raise TimeoutError(f"still serving {self.served_since(time.monotonic() - 0.5)}, expected {version}")

    def stop(self) -> None:
        self.running = False
        for thread in self.threads:
            thread.join()


def switch(link: Path, target: Path) -> None:
    """Point ``link`` at ``target`` atomically (a new link renamed over the old one)."""
    staged = link.with_name(link.name + ".new")
    staged.symlink_to(target)
    staged.replace(link)


@pytest.mark.slow
def test_sighup_reloads_without_dropping_requests_and_keeps_good_data(tmp_path: Path):
    releases, current = tmp_path / "releases", tmp_path / "current"
    first_release = write_data_set(releases / "1", ["0001"])
    switch(current, first_release)
    first = load_catalog(first_release).data_version
    server = start_server(current, {"SVC_WORKERS": "2"})
    load = Load(server.base_url)
    try:
        load.wait_until_only(first)

        # A new release with one more project, switched in: after SIGHUP every response comes from it.
        second_release = write_data_set(releases / "2", ["0001", "0002"])
        second = load_catalog(second_release).data_version
        switch(current, second_release)
        server.process.send_signal(signal.SIGHUP)
        server.wait_for_output(f"reloaded data version {second} (was {first})")
        load.wait_until_only(second)

        # A file caught half-written: the reload is refused, the complete data keeps being served.
        (second_release / "projects" / "0001.json").write_text('{"id": "project-0001", "shortc')
        server.process.send_signal(signal.SIGHUP)
        server.wait_for_output(
            "reload refused: projects/0001.json, records/0001-records.json could not be loaded; "
            f"still serving data version {second}"
        )
        assert load.served_after(time.monotonic()) == {second}

        # The data directory gone (a failed mount, a dangling link): same.
        switch(current, releases / "missing")
        server.process.send_signal(signal.SIGHUP)
        server.wait_for_output(
            f"reload refused: data directory {str(current)!r} does not exist or is not a directory; "
            f"still serving data version {second}\n"
        )

        # An empty directory (a volume that was not mounted): same, unless SVC_ALLOW_EMPTY_DATA.
        (releases / "empty").mkdir()
        switch(current, releases / "empty")
        server.process.send_signal(signal.SIGHUP)
        server.wait_for_output(
            f"reload refused: data directory {str(current)!r} holds no entity files: expected *.json files in "
            "projects/, persons/, organizations/, clusters/, collections/, records/; "
            f"still serving data version {second}"
        )
        assert load.served_after(time.monotonic()) == {second}
    finally:
        load.stop()
        output = stop_server(server)

    assert load.failures == [], output
    assert len(load.versions) > 100
    assert "Traceback" not in output, output


# -- connections across a reload or a stop (issue 21, points 4 and 5) ---------------------------------------------


@pytest.mark.slow  # SIGHUPS reloads a second apart under load, then a graceful stop: half a minute or more
def test_sighups_under_keep_alive_load_lose_no_request_and_log_no_error(tmp_path: Path):
    """Four clients reusing their connections in a loop while the server reloads: every request is answered.

    bench/reload_under_load.py runs the same with 40 SIGHUPs (docs/operations.md has the figures).
    """
    figures = reload_under_load.run(
        SAMPLE_DIR, clients=4, sighups=SIGHUPS, interval=1.0, workers=2, log_path=tmp_path / "svc.log"
    )
    log = (tmp_path / "svc.log").read_text()
    assert figures["reloads_logged"] == SIGHUPS, log
    assert figures["examples"] == [], log  # no 5xx, no request without an answer
    assert figures["error_lines"] == 0 and figures["traceback_lines"] == 0, log
    assert figures["requests"] > 100 * SIGHUPS  # the clients kept going throughout


def _connect(server) -> socket.socket:
    host, port = server.base_url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=20)


def _read_response(sock: socket.socket) -> bytes:
    """One whole response with a Content-Length body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed after {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lengths = [line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")]
    length = int(lengths[0])
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk
        body += chunk
    return head


@pytest.mark.slow
def test_sigterm_answers_a_request_being_read_and_closes_idle_connections_quietly(tmp_path: Path):
    data = write_data_set(tmp_path / "data", ["0001"])
    server = start_server(data, {"SVC_WORKERS": "1"})
    try:
        idle = _connect(server)
        idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        assert b"Connection: keep-alive" in _read_response(idle)
        reading = _connect(server)
        reading.sendall(b"GET /healthz HTTP/1.1\r\nHost: localh")  # a request half received
        _wait_until_server_read(reading)

        server.process.send_signal(signal.SIGTERM)
        assert idle.recv(1024) == b""  # closed between requests, without an unasked-for answer
        reading.sendall(b"ost\r\n\r\n")  # the rest of the request, after the stop began
        head = _read_response(reading)
        assert head.startswith(b"HTTP/1.1 200 ") and b"Connection: close" in head
        assert reading.recv(1024) == b""
        assert server.process.wait(timeout=30) == 0
    finally:
        output = stop_server(server)
    assert " ERROR " not in output and "Traceback" not in output, output


QUEUED = 300  # connections the kernel accepted while the worker could not: more than a worker accepts at once (100)


@pytest.mark.slow
def test_sigterm_answers_every_connection_the_kernel_had_accepted(tmp_path: Path):
    """A stop under load: connections waiting in the listener's queue are answered, never reset.

    The worker is stopped (SIGSTOP) while the clients connect and send their requests, so that they all wait in
    the kernel's accept queue; it is let go on once the master has told it to stop.
    """
    data = write_data_set(tmp_path / "data", ["0001"])
    server = start_server(data, {"SVC_WORKERS": "1"})
    (worker,) = worker_pids(server.process.pid)
    clients = []
    try:
        os.kill(worker, signal.SIGSTOP)
        try:
            for _ in range(QUEUED):
                client = _connect(server)
                client.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                clients.append(client)
            server.process.send_signal(signal.SIGTERM)
            _wait_until_pending(worker, signal.SIGTERM)  # the master has closed its listener and told the worker
        finally:
            os.kill(worker, signal.SIGCONT)
        answers = []
        for client in clients:
            try:
                answers.append(_read_response(client).split(b"\r\n")[0])
            except ConnectionResetError:
                answers.append(b"reset")
            client.close()
        assert server.process.wait(timeout=60) == 0
    finally:
        output = stop_server(server)
    assert answers == [b"HTTP/1.1 200 OK"] * QUEUED, f"{answers.count(b'reset')} of {QUEUED} reset"
    assert " ERROR " not in output and "Traceback" not in output, output
    # Once it stopped, nothing listens: a new client is refused, not accepted and then reset.
    with pytest.raises(ConnectionRefusedError):
        _connect(server)


def _wait_until_pending(pid: int, signum: int, timeout: float = 30) -> None:
    """Until ``signum`` waits to be delivered to process ``pid`` (stopped: it is delivered when it goes on)."""
    end = time.monotonic() + timeout
    while True:
        status = Path(f"/proc/{pid}/status").read_text()
        pending = [int(line.split()[1], 16) for line in status.splitlines() if line.startswith(("SigPnd:", "ShdPnd:"))]
        if any(mask & (1 << (signum - 1)) for mask in pending):
            return
        assert time.monotonic() < end, f"signal {signum} not sent to {pid} within {timeout} s"
        time.sleep(0.01)


def _wait_until_server_read(client: socket.socket, timeout: float = 30) -> None:
    """Until the server's end of ``client``'s connection has nothing left to read (the kernel's receive queue)."""

    def hex_address(address: tuple[str, int]) -> str:
        return f"{socket.inet_aton(address[0])[::-1].hex().upper()}:{address[1]:04X}"

    server_end, client_end = hex_address(client.getpeername()), hex_address(client.getsockname())
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            _, local, remote, _, queues, *_ = line.split()
            if (local, remote) == (server_end, client_end) and int(queues.partition(":")[2], 16) == 0:
                return
        time.sleep(0.01)
    raise TimeoutError("the server did not read the request's first bytes")


@pytest.mark.slow
def test_a_request_head_slower_than_the_deadline_is_answered_408(tmp_path: Path):
    """The protective header deadline (docs/reliability.md): 408 and a clean close, not a silent cut."""
    data = write_data_set(tmp_path / "data", ["0001"])
    server = start_server(data, {"SVC_WORKERS": "1"})
    try:
        sock = _connect(server)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # never finished
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        assert received.startswith(b"HTTP/1.1 408 Request Timeout\r\n") and b"Connection: close" in received
    finally:
        output = stop_server(server)
    assert " ERROR " not in output and "Traceback" not in output, output


@pytest.mark.slow  # STOP_TRIALS starts of `svc serve`, each waited for: a minute or more on a busy machine
def test_sigterm_right_after_start_stops_the_whole_process_tree(tmp_path: Path):
    """The stop no longer waits for the graceful timeout when it comes while the workers boot.

    A stop signal reaching a worker before its own handlers were installed
    was swallowed by the master's inherited handler (4 of 9 trials took 30 s).
    The times are printed (``pytest -s``); the bound asserted is far below
    the 30 s graceful timeout and far above the second or two a stop takes.
    """
    data = write_data_set(tmp_path / "data", ["0001"])
    times = []
    for _ in range(STOP_TRIALS):
        port = free_port()
        env = {**os.environ, "SVC_DATA_DIR": str(data), "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{port}", "SVC_WORKERS": "2"}
        process = subprocess.Popen([SVC, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_until_listening(port, process)
        children = worker_pids(process.pid)
        started = time.monotonic()
        process.terminate()
        try:
            assert process.wait(timeout=GRACEFUL_TIMEOUT / 2) == 0
        finally:
            process.kill()
        times.append(round(time.monotonic() - started, 2))
        assert not [pid for pid in children if Path(f"/proc/{pid}").exists()], "a worker outlived the master"
    print(f"SIGTERM right after start, seconds to stop: {times}")


def _wait_until_listening(port: int, process: subprocess.Popen) -> None:
    end = time.monotonic() + 60
    while time.monotonic() < end and process.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.01)
    raise AssertionError(f"svc serve did not listen (exit code {process.poll()})")


# --- what a reload says ----------------------------------------------------------------------------------


def _stamped_sample(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    shutil.copytree(SAMPLE_DIR, data)
    release_support.stamp(data, 0)
    return data


def _warnings(output: str) -> list[str]:
    return [line for line in output.splitlines() if " WARNING " in line]


def _reload(server: Server) -> str:
    """SIGHUP; once the new data is loaded, wait until the workers serving the old data are gone too."""
    old = worker_pids(server.process.pid)
    said = release_support.reload(server.process, server.output, server.base_url)
    deadline = time.monotonic() + 60
    while set(old) & set(worker_pids(server.process.pid)):
        assert time.monotonic() < deadline, "the old workers did not stop within 60 s"
        time.sleep(0.05)
    return said


def _oai(base_url: str, query: str) -> etree._Element:
    with urllib.request.urlopen(f"{base_url}{OAI_PATH}?{query}", timeout=60) as response:
        return parse_valid(response.read())


@pytest.mark.slow
def test_reloads_of_an_unchanged_release_log_info_only(tmp_path: Path):
    """A release loaded late is said once, at the reload that loaded it; reloading it again changes nothing."""
    data = _stamped_sample(tmp_path)
    server = start_server(data, {"SVC_WORKERS": "1"})
    try:
        project = next((data / "projects").glob("*.json"))
        release_support.edit_json(project, lambda value: {**value, "name": "An edited name"})
        activation = activation_of(release_support.stamp(data, 0))
        while time.time() < activation + 2:  # the release is active before this replica loads it: late
            time.sleep(0.1)
        said = _reload(server)
        assert " INFO    catalog: reloaded data version " in said
        (late,) = _warnings(server.output())
        assert "after its activation time" in late and "--activate-in" in late
        for _ in range(3):  # the same release, unchanged
            said = _reload(server)
            assert "reloaded data version" in said
        assert _warnings(server.output()) == [late]
    finally:
        stop_server(server)


@pytest.mark.slow
def test_a_reload_that_loses_or_changes_the_token_key_says_so_in_one_warning(tmp_path: Path):
    """Harvests in progress fail then (badResumptionToken): the operator must hear of it at the reload."""
    data = _stamped_sample(tmp_path)
    server = start_server(data, {"SVC_WORKERS": "1", **HIGH_LIMITS_ENV})
    key = data / TOKEN_KEY_PATH
    try:
        first = token(_oai(server.base_url, "verb=ListIdentifiers&metadataPrefix=oai_dc"))
        assert first is not None and first.text
        key.unlink()
        _reload(server)
        (lost,) = _warnings(server.output())
        assert f"{key} is missing or unreadable: every resumption token issued before this reload is refused" in lost
        resumed = _oai(server.base_url, f"verb=ListIdentifiers&resumptionToken={first.text}")
        assert errors(resumed) == ["badResumptionToken"]  # what the WARNING announced

        key.write_text(secrets.token_hex(32) + "\n")
        _reload(server)
        (_, changed) = _warnings(server.output())
        assert changed.partition(" WARNING ")[2] == lost.partition(" WARNING ")[2].replace(
            "is missing or unreadable", "changed"
        )
        _reload(server)  # the same key: nothing to say
        assert len(_warnings(server.output())) == 2
    finally:
        stop_server(server)


@pytest.mark.slow
def test_a_start_on_a_ledger_without_its_token_key_says_so(tmp_path: Path):
    data = _stamped_sample(tmp_path)
    (data / TOKEN_KEY_PATH).unlink()
    server = start_server(data, {"SVC_WORKERS": "1"})
    output = stop_server(server)
    (warning,) = _warnings(output)
    assert f"{data / TOKEN_KEY_PATH} is missing or unreadable: resumption tokens are signed with the data version" in (
        warning
    )
