"""Lifecycle of a real `svc serve`: graceful stop on SIGTERM, data reload on SIGHUP, both under load."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import threading
import time
from pathlib import Path

from catalog.domain.loader import load_catalog
from svc_site.middleware import DATA_VERSION_HEADER
from tests.conftest import start_server, stop_server
from tests.ops_support import write_data_set

BIG_FILE_SIZE = 16 * 1024 * 1024  # far more than the socket buffers hold: the worker is still sending


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
        time.sleep(0.5)
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
        time.sleep(1)

        # The data directory gone (a failed mount, a dangling link): same.
        switch(current, releases / "missing")
        server.process.send_signal(signal.SIGHUP)
        server.wait_for_output(f"reload failed; still serving data version {second}")
        moment = time.monotonic()
        time.sleep(1)
        assert load.served_since(moment) == {second}
    finally:
        load.stop()
        output = stop_server(server)

    assert load.failures == [], output
    assert len(load.versions) > 100
