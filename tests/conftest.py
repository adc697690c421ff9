"""Shared fixtures: paths to the data sets and a real `svc serve` process."""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from catalog.domain.model import Catalog
    from tests.image_support import Image

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CORPUS_DIR = PROJECT_ROOT.parent / "shared" / "corpus" / "dsp"
SAMPLE_DIR = PROJECT_ROOT / "modules" / "svc" / "server" / "data"
SVC = str(Path(sys.executable).with_name("svc"))
SHARED_SCHEMAS_DIR = PROJECT_ROOT.parent / "shared" / "schemas"

# What lives outside the repository, and the names by which a test module uses it.
_SHARED_NEEDS = {
    CORPUS_DIR: ("CORPUS_DIR", "corpus_catalog", "corpus_server"),
    SHARED_SCHEMAS_DIR: ("oai_support", "SHARED_SCHEMAS_DIR"),
}


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail, saying what is missing, a test whose module uses ../shared when it is not there.

    Collection never touches ../shared, so the rest of the suite runs without it.
    """
    source = Path(str(item.fspath)).read_text(encoding="utf-8")
    for directory, names in _SHARED_NEEDS.items():
        if not directory.is_dir() and any(name in source for name in names):
            pytest.fail(f"this test needs {directory}, which is missing (check out ../shared beside the repository)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run_svc(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run the installed `svc` console script as a user would."""
    return subprocess.run(
        [SVC, *args], capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})}
    )


def wait_for(url: str, process: subprocess.Popen, deadline: float = 30, output: Callable[[], str] = str) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}: {output()}")
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(url)


class Server:
    """A running `svc serve`; its output is drained continuously so that a busy server never blocks on a full pipe."""

    def __init__(self, process: subprocess.Popen, base_url: str) -> None:
        self.process = process
        self.base_url = base_url
        self._lines: list[str] = []
        self._readers = [
            threading.Thread(target=self._drain, args=(stream,), daemon=True)
            for stream in (process.stdout, process.stderr)
            if stream is not None
        ]
        for reader in self._readers:
            reader.start()

    def _drain(self, stream) -> None:
        for line in stream:
            self._lines.append(line)

    def output(self) -> str:
        """Everything the server wrote so far (stdout and stderr, interleaved by arrival)."""
        return "".join(self._lines)

    def wait_for_output(self, text: str, timeout: float = 30) -> None:
        end = time.monotonic() + timeout
        while text not in self.output():
            if time.monotonic() > end:
                raise TimeoutError(f"{text!r} not in server output:\n{self.output()}")
            time.sleep(0.05)

    def finish(self) -> str:
        for reader in self._readers:
            reader.join(timeout=10)
        return self.output()


def start_server(data_dir: Path, extra_env: dict[str, str] | None = None, *args: str) -> Server:
    port = free_port()
    env = {**os.environ, "SVC_DATA_DIR": str(data_dir), "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{port}", **(extra_env or {})}
    process = subprocess.Popen(
        [SVC, "serve", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    server = Server(process, f"http://127.0.0.1:{port}")
    try:
        wait_for(server.base_url + "/healthz", process, output=server.finish)
    except Exception:
        process.kill()
        raise
    return server


def stop_server(server: Server) -> str:
    server.process.terminate()
    try:
        server.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()
    return server.finish()


@pytest.fixture(scope="session")
def corpus_server() -> Iterator[Server]:
    server = start_server(CORPUS_DIR)
    yield server
    stop_server(server)


@pytest.fixture(scope="session")
def static_assets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The CSS/JS package built into a temporary static root (pages need its manifest)."""
    from django.test.utils import override_settings

    from svc_site.assets import ensure_built

    root = tmp_path_factory.mktemp("site")
    with override_settings(STATIC_ROOT=str(root)):
        ensure_built()
        yield root


_loaded_catalogs: dict[Path, Catalog] = {}


def loaded_catalog(data_dir: Path) -> Catalog:
    """The catalogue of ``data_dir``, loaded once per session (catalogues are immutable)."""
    from catalog.domain.loader import load_catalog

    if data_dir not in _loaded_catalogs:
        _loaded_catalogs[data_dir] = load_catalog(data_dir)
    return _loaded_catalogs[data_dir]


@pytest.fixture(autouse=True)
def app_state() -> Iterator:
    """Each test is served from a fresh application state: the configured data, empty caches, its own limits.

    What `svc serve` builds at start-up; the state served before comes back
    afterwards. A test serves other states through the yielded function.
    """
    from django.conf import settings

    from catalog import runtime

    fresh = runtime.AppState().serving(loaded_catalog(settings.SVC.data_dir))
    previous = runtime.application.swap(dataclasses.replace(fresh, telemetry=runtime.state().telemetry))

    def serve(state: runtime.AppState) -> runtime.AppState:
        runtime.application.swap(state)
        return state

    yield serve
    runtime.application.swap(previous)


@pytest.fixture
def install_catalog() -> Iterator:
    """Serve the catalogue of a data directory for a test, with empty caches; the test's state comes back after."""
    from catalog import runtime

    previous = runtime.application.state()

    def install(data_dir: Path):
        catalog = loaded_catalog(data_dir)
        runtime.install(catalog)
        return catalog

    yield install
    runtime.application.swap(previous)


@pytest.fixture(scope="session")
def svc_image() -> Image:
    """The container image, built once per session with local bases (tests/image_support.py)."""
    from tests.image_support import IMAGE_CACHE, build_image

    return build_image(IMAGE_CACHE)
