"""Shared fixtures: paths to the data sets and a real `svc serve` process."""

from __future__ import annotations

import dataclasses
import functools
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import lxml.html
import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

    from catalog.domain.model import Catalog
    from tests.image_support import Image

pytest_plugins = ["tests.run_order"]  # the longest tests first (its docstring says why)

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


# What a test may need besides Python, svc and the data: one pytest marker each (registered in pyproject.toml).
# `scripts/test --quick` leaves out the tests marked with any of them (docs/testing.md).
RESOURCES = ("browser", "container", "nginx", "redis")
# Fixtures that bring a resource: a test using one (directly or through another fixture) is marked with it.
RESOURCE_FIXTURES = {"browser": "browser", "svc_image": "container", "redis": "redis", "redis_url": "redis"}
# Programs that are a resource: a test that starts one without its marker fails (the marks stay honest).
RESOURCE_PROGRAMS = {
    "redis-server": "redis",
    "nginx": "nginx",
    "chromium": "browser",
    "podman": "container",
    "build-image": "container",
}


@dataclasses.dataclass
class RunNames:
    """What tells this run apart from any other on the host: names of images, containers, shared files."""

    id: str = ""  # the same in every xdist worker of the run
    worker: str = "main"  # this process: "main" without xdist, else gw0, gw1, ...

    def name(self, what: str) -> str:
        """A name unique to this run and this worker (a container's, a file's)."""
        return f"svc-test-{self.id}-{self.worker}-{what}"

    @property
    def image_ref(self) -> str:
        """The image this run builds and tests: its own tag, never the host-wide localhost/svc:latest."""
        return f"localhost/svc-test:{self.id}"

    @property
    def shared_dir(self) -> Path:
        """A directory the workers of this run share (its image build's lock and result)."""
        path = Path(os.environ.get("TMPDIR") or "/tmp") / f"svc-test-run-{self.id}"
        path.mkdir(exist_ok=True)
        return path


RUN = RunNames()


def pytest_configure(config: pytest.Config) -> None:
    worker_input: dict[str, Any] | None = getattr(config, "workerinput", None)
    if worker_input is not None:  # an xdist worker: the controller's id
        RUN.id, RUN.worker = worker_input["testrunuid"][:12], worker_input["workerid"]
    else:
        RUN.id = uuid.uuid4().hex[:12]
        if getattr(config.option, "testrunuid", "") is None:  # xdist: its workers get the same id
            config.option.testrunuid = RUN.id
    sys.addaudithook(_audit)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with the resources its fixtures bring (its module's own marks come with it)."""
    for item in items:
        for fixture in getattr(item, "fixturenames", ()):  # the whole closure: fixtures of fixtures too
            resource = RESOURCE_FIXTURES.get(fixture)
            if resource is not None and item.get_closest_marker(resource) is None:
                item.add_marker(resource)


_started: set[str] = set()  # the resources the current test started


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event != "subprocess.Popen":
        return
    executable, argv = args[0], args[1]
    argv = [argv] if isinstance(argv, (str, bytes, os.PathLike)) else list(argv)
    program = os.path.basename(os.fsdecode(executable or argv[0]))
    resource = RESOURCE_PROGRAMS.get(program)
    if resource is None and any("playwright" in os.fsdecode(arg) for arg in argv):
        resource = "browser"  # Playwright's driver, which starts Chromium
    if resource is not None:
        _started.add(resource)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """Fail, saying what is missing, a test whose module uses ../shared when it is not there.

    Collection never touches ../shared, so the rest of the suite runs without it.
    """
    _started.clear()
    source = _source(str(item.fspath))
    for directory, names in _SHARED_NEEDS.items():
        if not directory.is_dir() and any(name in source for name in names):
            pytest.fail(f"this test needs {directory}, which is missing (check out ../shared beside the repository)")
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Fail a test that started a resource (its fixtures included) without the resource's marker."""
    result = yield
    unmarked = sorted(resource for resource in _started if item.get_closest_marker(resource) is None)
    if unmarked:
        marks = ", ".join(f"@pytest.mark.{resource}" for resource in unmarked)
        pytest.fail(f"this test starts {', '.join(unmarked)} but is not marked {marks} (tests/conftest.py RESOURCES)")
    return result


@functools.cache
def _source(path: str) -> str:
    return Path(path).read_text(encoding="utf-8")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run_svc(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run the installed `svc` console script as a user would (``timeout``: a deadline for a hung command, generous
    for a stamp of the real corpus on a machine shared with other runs)."""
    return subprocess.run(
        [SVC, *args], capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})}
    )


# How long a server may take to answer after it was started: a deadline for a server that hangs, not a pause. A
# start on the real corpus takes a few seconds alone and over 30 s on two cores shared with another whole suite.
START_DEADLINE = 180


def wait_for(
    url: str, process: subprocess.Popen, deadline: float = START_DEADLINE, output: Callable[[], str] = str
) -> None:
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

    def wait_for_output(self, text: str, timeout: float = 120) -> None:
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


# Debian's Chromium, as the browser tests drive it (Playwright).
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WITHDRAWN = "0A1F"  # a sample project without records, withdrawn for withdrawn_server


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Chromium, launched once per worker for every browser test; each test opens a context of its own."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def tab(browser: Browser) -> Iterator[Callable[..., Page]]:
    """``tab(**context_options)``: this worker's tab of that kind of browser, shared by every test that asks for it.

    A context and a tab of its own per test starts a renderer process for every page checked: most of what a
    page's check costs (the 224 reflow checks: 166 s on two workers, 40 s in shared tabs). A test navigates the
    tab it is given (a new document; the cookies are cleared first) and neither closes it nor changes its
    context; a test that needs a browser of its own (permissions, routes, a locale it changes) makes one.
    """
    import json

    opened: dict[str, Page] = {}

    def open_tab(**options: Any) -> Page:
        key = json.dumps(options, sort_keys=True)
        page = opened.get(key)
        if page is None or page.is_closed():
            page = opened[key] = browser.new_context(**options).new_page()
        page.context.clear_cookies()
        return page

    yield open_tab
    for page in opened.values():
        page.context.close()


@pytest.fixture(scope="session")
def e2e_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The real corpus served to the browser tests: one per worker, read only, shared by their modules."""
    site_root = tmp_path_factory.mktemp("site")
    running = start_server(CORPUS_DIR, {"FRAMEWORK_SITE_ROOT": str(site_root), "SVC_WORKERS": "1"})
    yield running
    stop_server(running)


@pytest.fixture(scope="session")
def withdrawn_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The sample data, stamped, then one project removed and stamped again: its page answers 410."""
    data_dir = tmp_path_factory.mktemp("withdrawn") / "data"
    shutil.copytree(SAMPLE_DIR, data_dir)
    assert run_svc("stamp", str(data_dir)).returncode == 0
    next((data_dir / "projects").glob(f"{WITHDRAWN}_*.json")).unlink()
    assert run_svc("stamp", str(data_dir)).returncode == 0
    running = start_server(data_dir, {"FRAMEWORK_SITE_ROOT": str(tmp_path_factory.mktemp("site")), "SVC_WORKERS": "1"})
    yield running
    stop_server(running)


def once_per_run(name: str, make: Callable[[Path], None]) -> Path:
    """The directory ``name`` of this run, made by ``make`` by the first worker that asks (the others wait for it)."""
    import fcntl

    made = RUN.shared_dir / name
    with (RUN.shared_dir / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if this process dies
        if not made.is_dir():
            partial = RUN.shared_dir / f"{name}.partial"
            shutil.rmtree(partial, ignore_errors=True)
            make(partial)
            partial.rename(made)
    return made


@pytest.fixture(scope="session")
def stamped_corpus() -> Path:
    """A copy of the real corpus stamped once (`svc stamp --activate-in 0`) for the whole run: read it, never change it.

    A test that changes its data stamps a copy of its own.
    """

    def stamp(data_dir: Path) -> None:
        shutil.copytree(CORPUS_DIR, data_dir, ignore=shutil.ignore_patterns(".svc"))
        result = run_svc("stamp", str(data_dir), "--activate-in", "0")
        assert result.returncode == 0, result.stderr

    return once_per_run("stamped-corpus", stamp)


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
    """The container image, tagged for this run and built once for all its workers, with local bases
    (tests/image_support.py); untagged when the run ends."""
    from tests.image_support import IMAGE_CACHE, image_of_the_run

    return image_of_the_run(IMAGE_CACHE, RUN.image_ref, RUN.shared_dir)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The run's image tag, containers and shared directory go (by the controller, once every worker is done)."""
    if hasattr(session.config, "workerinput") or not RUN.id:
        return
    shared = RUN.shared_dir
    from tests.image_support import IMAGE_CACHE, remove_run_images_and_containers

    remove_run_images_and_containers(IMAGE_CACHE, shared, f"svc-test-{RUN.id}-")
    shutil.rmtree(shared, ignore_errors=True)


def tree_of(response: Any) -> Any:
    """The parsed HTML of a page the Django test client got, which must be a 200."""
    assert response.status_code == 200, response.status_code
    return lxml.html.fromstring(response.content)
