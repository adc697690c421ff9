#!/usr/bin/env python3
"""A fleet on one machine, as deploy/ runs it: nginx (deploy/nginx.conf) before `svc serve` replicas sharing a Redis.

    .venv/bin/python -m bench.fleet [--data-dir ../shared/corpus/dsp] [--replicas 3] [--clients 8]
                                    [--seconds 20] [--kills 1] [--releases 2] [--keep DIR]

Starts a real `redis-server`, the replicas (one gunicorn worker each, the data
directory a stamped copy reached through a `current` symlink) and nginx, all on
free ports of 127.0.0.1, then runs four phases and prints their figures:

- limits: one client goes over the shared OAI rate limit through the proxy,
  another sends more requests at once than SVC_OAI_MAX_CONCURRENT; which
  replica refused them, and with which Retry-After;
- lease: a replica holding a client's requests is killed; how long the other
  replicas still count them (until their leases lapse);
- kill: clients load the proxy while one replica is killed with SIGKILL;
- redis: Redis is killed while overlapping requests come in, then restarted;
- release: validate → stamp → switch the link → SIGHUP one replica at a time,
  waiting for each to serve the new data, under load.

tests/test_fleet.py drives the same phases briefly and asserts on their results.
Load clients are sequential harvesters, each with its own source address
(127.0.1.N), so that none of them overlaps itself and pays the rate limit; the
clients that test the limits use their own addresses (127.0.2.N).
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.nginx_proxy import Nginx, wait_listening
from bench.run import PROJECT_ROOT, SVC, activation_of, free_port

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
OAI_PATH = "/oai"
# Limits tight enough to reach with a few requests; a token takes 1000 s to come back. In flight: one
# request held on each of three replicas and one more (the rate phase), but not one per replica more.
LIMITS = {"SVC_OAI_RATE_LIMIT_PER_SECOND": "0.001", "SVC_OAI_RATE_LIMIT_BURST": "5", "SVC_OAI_MAX_CONCURRENT": "4"}
BURST = int(LIMITS["SVC_OAI_RATE_LIMIT_BURST"])
MAX_CONCURRENT = int(LIMITS["SVC_OAI_MAX_CONCURRENT"])
LEASE_SECONDS = 5  # SVC_OAI_LEASE_SECONDS of the replica killed with requests in flight
REDIS_WARNING = "Redis unreachable"
REDIS_BACK = "OAI rate and concurrency limits are shared through Redis again"
# deploy/nginx.conf reads a whole request before passing it on; this proxy passes a body on as it comes, so
# that a request whose client holds back the rest of its body stays in flight on the replica nginx chose.
STREAMING_BODIES = "    proxy_request_buffering off;\n"
HELD_REQUEST = (
    f"POST {OAI_PATH} HTTP/1.1\r\nHost: localhost\r\n"
    "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 13\r\n\r\nverb="
).encode()  # the rest of the body, b"Identify", lets it finish
_RELOADED = re.compile(r"reloaded data version (\S+)")
_LOADED_AHEAD = re.compile(r"loaded data version (\S+) \(serving")


class Redis:
    """A `redis-server` on a free port, with nothing on disk; it can be killed and started again on the same port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_listening(self.port, self.process, "redis-server")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


class Replica:
    """One `svc serve` (master and workers in their own process group), its output in a log file."""

    def __init__(self, name: str, data_dir: Path, env: dict[str, str], log_dir: Path) -> None:
        self.name = name
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.base_url = f"http://{self.address}"
        self.log_path = log_dir / f"{name}.log"
        self.env = {**os.environ, **env, "SVC_DATA_DIR": str(data_dir), "FRAMEWORK_SITE_ADDR": self.address}
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        """Start the process; :meth:`wait_ready` waits for it (replicas load their data side by side)."""
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [str(SVC), "serve"],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=PROJECT_ROOT,
                start_new_session=True,
            )

    def wait_ready(self, deadline: float = 300) -> None:
        assert self.process is not None
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}:\n{self.log()[-3000:]}")
            try:
                if get(self.base_url, "/healthz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise TimeoutError(f"{self.name}: no 200 on /healthz within {deadline} s")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL to master and workers at once, as when a container or its host dies."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def data_version(self) -> str:
        """The data version this replica answers with (asked directly, not through the proxy)."""
        status, headers, _ = get(self.base_url, f"{OAI_PATH}?verb=Identify")
        assert status == 200, f"{self.name} answered {status}"
        return headers["x-data-version"]

    def reload(self, probe_errors: list[str], deadline: float = 300) -> str:
        """SIGHUP; wait for the reload line and for the replica to answer with the new data. The new version.

        A release loaded ahead of its activation time is served from then on: its version is returned at once.

        The readiness probe goes to the replica directly (no proxy to retry
        it): a probe that fails is noted in ``probe_errors`` and repeated.
        """
        assert self.process is not None
        seen = len(self.log())
        self.process.send_signal(signal.SIGHUP)
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            new = self.log()[seen:]
            if "reload refused" in new:
                raise RuntimeError(f"{self.name}: {new}")
            ahead = _LOADED_AHEAD.search(new)
            if ahead:
                return ahead.group(1)
            reloaded = _RELOADED.search(new)
            if reloaded:
                try:
                    if self.data_version() == reloaded.group(1):
                        return reloaded.group(1)
                except (OSError, http.client.HTTPException) as error:
                    probe_errors.append(f"{self.name}: {type(error).__name__}: {error}")
            time.sleep(0.1)
        raise TimeoutError(f"{self.name}: not reloaded within {deadline} s")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=40)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def get(base_url: str, path: str, source: str | None = None, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    """One request on a fresh connection, from ``source`` (a 127.x address) if given."""
    host, port = base_url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60, source_address=(source, 0) if source else None)
    try:
        connection.request(method, path)
        response = connection.getresponse()
        body = response.read()
        return response.status, {name.lower(): value for name, value in response.getheaders()}, body
    finally:
        connection.close()


@contextmanager
def held_oai_requests(replicas: Sequence[Replica], source: str, count: int = 1) -> Iterator[None]:
    """``count`` OAI requests of client ``source`` in flight on each replica: form bodies announced, not sent yet.

    With one worker per replica, every other OAI request of that client on a
    replica overlaps them: it pays the (shared) rate limit. Each counts
    against SVC_OAI_MAX_CONCURRENT in the whole fleet.
    """
    sockets = []
    try:
        for replica in replicas:
            for _ in range(count):
                sock = socket.create_connection(("127.0.0.1", replica.port), timeout=60, source_address=(source, 0))
                sockets.append(sock)
                sock.sendall(HELD_REQUEST)
        # A worker that has read a request runs it without yielding until its view waits for the
        # body: once nothing is left unread, every held request is counted in flight.
        end = time.monotonic() + 60
        while any(unread_by_server(sock) for sock in sockets):
            if time.monotonic() > end:
                raise TimeoutError("the replicas did not read the held requests within 60 s")
            time.sleep(0.02)
        yield
    finally:
        for sock in sockets:
            try:
                sock.sendall(b"Identify")
                sock.recv(65536)
            except OSError:
                pass
            sock.close()


def read_reply(sock: socket.socket) -> tuple[int, str | None]:
    """The status and Retry-After of the response that comes on ``sock``; (0, None) if the connection closes first."""
    response = http.client.HTTPResponse(sock)
    try:
        response.begin()
        response.read()
    except (OSError, http.client.HTTPException):
        return 0, None
    return response.status, response.getheader("Retry-After")


def unread_by_server(sock: socket.socket) -> int:
    """Bytes sent on ``sock`` (IPv4, loopback) that the server has not read yet: its end's receive queue."""

    def hex_address(address: tuple[str, int]) -> str:
        return f"{int.from_bytes(socket.inet_aton(address[0]), sys.byteorder):08X}:{address[1]:04X}"

    server_end = (hex_address(sock.getpeername()), hex_address(sock.getsockname()))
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if (fields[1], fields[2]) == server_end:
            return int(fields[4].split(":")[1], 16)
    raise LookupError(f"no server end for {sock.getsockname()} in /proc/net/tcp")


# -- through the proxy ------------------------------------------------------------------------------


@dataclass
class Answer:
    status: int
    retry_after: str | None
    replica: str  # which replica answered (from the access log of nginx), "" if none
    asked: int  # how many replicas nginx asked for it


@dataclass
class LoadResult:
    requests: int = 0
    errors: list[str] = field(default_factory=list)  # "<status or exception> <path>", in order
    seconds: float = 0.0


class Load:
    """Sequential clients through the proxy, each on a kept-alive connection from its own source address."""

    def __init__(self, base_url: str, paths: Sequence[str], clients: int = 6) -> None:
        host, port = base_url.removeprefix("http://").split(":")
        self.host, self.port = host, int(port)
        self.paths = list(paths)
        self.clients = clients
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.result = LoadResult()
        self._threads = [threading.Thread(target=self._client, args=(n,), daemon=True) for n in range(clients)]

    def __enter__(self) -> Load:
        self._started = time.monotonic()
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=120)
        self.result.seconds = time.monotonic() - self._started

    def count(self) -> int:
        with self._lock:
            return self.result.requests

    def _client(self, number: int) -> None:
        source = f"127.0.1.{number + 1}"
        connection: http.client.HTTPConnection | None = None
        sent = 0
        while not self._stop.is_set():
            path = self.paths[(number + sent) % len(self.paths)].replace("{n}", f"{number}-{sent}")
            sent += 1
            if connection is None:
                connection = http.client.HTTPConnection(self.host, self.port, timeout=60, source_address=(source, 0))
            try:
                connection.request("GET", path, headers={"Accept-Encoding": "gzip"})  # as harvesters and browsers
                response = connection.getresponse()
                response.read()
                error = None if response.status == 200 else f"{response.status} {path}"
            except (OSError, http.client.HTTPException) as exception:
                error = f"{type(exception).__name__}: {exception} {path}"
                connection.close()
                connection = None
            with self._lock:
                self.result.requests += 1
                if error:
                    self.result.errors.append(error)
        if connection is not None:
            connection.close()


# -- the fleet --------------------------------------------------------------------------------------


@dataclass
class Access:
    """One line of nginx's access log (bench.nginx_proxy.ACCESS_FORMAT)."""

    client: str
    status: int
    upstreams: list[str]  # the replicas nginx asked, in order ("127.0.0.1:port")
    uri: str


def read_access_log(path: Path) -> list[Access]:
    entries = []
    for line in path.read_text().splitlines():
        match = re.fullmatch(r"(\S+) (\d+) \[(.*?)\] \[.*?\] \S+ (\S+)", line)
        if match:
            client, status, upstreams, uri = match.groups()
            addresses = [item for item in re.split(r",\s*|\s+:\s+", upstreams) if item and item != "-"]
            entries.append(Access(client, int(status), addresses, uri))
    return entries


def logged(nginx: Nginx, source: str, requests: int) -> list[Access]:
    """Client ``source``'s lines in ``nginx``'s access log, once there are ``requests`` (nginx logs answered ones)."""
    end = time.monotonic() + 30
    while len(entries := [line for line in read_access_log(nginx.access_log_path) if line.client == source]) < requests:
        if time.monotonic() > end:
            raise TimeoutError(f"nginx logged {len(entries)} of {requests} requests of {source}")
        time.sleep(0.05)
    return entries


def leases_key(source: str) -> str:
    """The Redis key of client ``source``'s leases of requests in flight."""
    from catalog.web.ratelimit import redis_key
    from oaipmh.leases import KEY_PREFIX

    return redis_key(KEY_PREFIX, source)


def redis_now(client: Any) -> float:
    """Redis's clock, the one leases lapse on."""
    seconds, microseconds = client.time()
    return float(seconds + microseconds / 1_000_000)


def switch(link: Path, target: Path) -> None:
    """Point ``link`` at ``target`` in one atomic rename, as an operator switches releases."""
    staged = link.with_name(link.name + ".new")
    staged.unlink(missing_ok=True)
    staged.symlink_to(target)
    staged.replace(link)


def svc(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(SVC), *args], capture_output=True, text=True, timeout=300, cwd=PROJECT_ROOT)


# A release is stamped to activate this far ahead: the rollout reloads every replica before then, and each
# switches to it at that moment (docs/oai-pmh.md, "Incremental harvesting").
RELEASE_LEAD = 45


def stamp(data_dir: Path, activate_in: int = 0) -> str:
    """Stamp a release; the first one, which no replica serves yet, activates at once."""
    done = svc("stamp", "--activate-in", str(activate_in), str(data_dir))
    if done.returncode != 0:
        raise RuntimeError(f"svc stamp {data_dir}: exit {done.returncode}: {done.stderr}")
    return done.stdout.strip()


def new_findings(data_dir: Path, previous: Path) -> list[str]:
    """What `svc validate` finds in ``data_dir`` that it did not find in ``previous`` (the release served now).

    The real corpus has known findings, so the gate is "nothing new", and
    nothing a reload would refuse (``--previous``).
    """
    import json

    def findings(directory: Path, *extra: str) -> set[str]:
        done = svc("validate", "--format", "json", *extra, str(directory))
        if done.returncode not in (0, 1):
            raise RuntimeError(f"svc validate {directory}: exit {done.returncode}: {done.stderr}")
        report = json.loads(done.stdout)
        return {f"{item['file']}: {item['path']}: {item['message']}" for item in report["findings"]}

    return sorted(findings(data_dir, "--previous", str(previous)) - findings(previous))


class Fleet:
    """Redis, ``replicas`` times `svc serve` on ``root``/current (a stamped copy of ``data_dir``), nginx before them."""

    def __init__(self, root: Path, data_dir: Path, replicas: int = 3, env: dict[str, str] | None = None) -> None:
        self.root = root
        self.releases = root / "releases"
        first = self.releases / "1"
        shutil.copytree(data_dir, first, ignore=shutil.ignore_patterns(".svc"))
        stamp(first)
        self.current = root / "current"
        switch(self.current, first)
        self.activation = 0  # of the latest release
        logs = root / "logs"
        logs.mkdir()
        self._stack = ExitStack()
        try:
            self.redis = Redis()
            self._stack.callback(self.redis.stop)
            settings = {
                "SVC_CACHE_URL": self.redis.url,
                "SVC_TRUSTED_PROXY_HOPS": "1",
                "SVC_OAI_BASE_URL": f"http://localhost{OAI_PATH}",
                "SVC_WORKERS": "1",  # one worker: a held request overlaps every other one of its client
                **LIMITS,
                **(env or {}),
            }
            self.replicas = [Replica(f"replica-{n + 1}", self.current, settings, logs) for n in range(replicas)]
            for replica in self.replicas:
                self._stack.callback(replica.stop)
            for replica in self.replicas:
                replica.wait_ready()
            self.nginx = Nginx(root / "nginx", [replica.port for replica in self.replicas], access_log=True)
            self._stack.callback(self.nginx.stop)
        except BaseException:
            self._stack.close()
            raise
        self.proxy = self.nginx.base_url
        self.by_address = {replica.address: replica.name for replica in self.replicas}

    def close(self) -> None:
        self._stack.close()

    def access_log(self) -> list[Access]:
        return read_access_log(self.nginx.access_log_path)

    def answered_by(self, entry: Access) -> str:
        return self.by_address.get(entry.upstreams[-1], "") if entry.upstreams else ""

    def over_limits(self, source: str, requests: int) -> list[Answer]:
        """``requests`` OAI requests of client ``source`` through the proxy, one after the other, as answered."""
        replies = [get(self.proxy, f"{OAI_PATH}?verb=Identify", source) for _ in range(requests)]
        entries = logged(self.nginx, source, requests)
        return [
            Answer(status, headers.get("retry-after"), self.answered_by(entry), len(entry.upstreams))
            for (status, headers, _), entry in zip(replies, entries[-requests:], strict=True)
        ]

    def redis_client(self) -> Any:
        import redis

        return redis.Redis.from_url(self.redis.url)

    def load_paths(self) -> list[str]:
        """What the load clients ask: OAI (never cached by nginx), /healthz, a cached page, uncached API answers."""
        status, _, body = get(self.replicas[0].base_url, f"{OAI_PATH}?verb=ListIdentifiers&metadataPrefix=oai_dc")
        identifier = re.search(rb"<identifier>([^<]+)</identifier>", body)
        assert status == 200 and identifier, "no OAI identifier to ask for"
        return [
            f"{OAI_PATH}?verb=GetRecord&metadataPrefix=oai_dc&identifier={identifier.group(1).decode()}",
            "/healthz",
            f"{OAI_PATH}?verb=Identify",
            "/projects",
            "/projects/0101?fleet={n}",  # a distinct URL each time: nginx must ask a replica
            f"{OAI_PATH}?verb=ListIdentifiers&metadataPrefix=oai_dc",
        ]

    def release(self, number: int) -> Path:
        """Release ``number``: the current one with one project renamed, validated (nothing new) and stamped."""
        import json

        previous = self.current.resolve()
        target = self.releases / str(number)
        shutil.copytree(previous, target)  # the ledger (.svc/) too: it is the history
        project_file = target / "projects" / "0101_religious-speech.json"
        project = json.loads(project_file.read_text())
        project["name"] = f"{project['name']} (release {number})"
        project_file.write_text(json.dumps(project, ensure_ascii=False, indent=4))
        problems = new_findings(target, previous)
        if problems:
            raise RuntimeError(f"release {number} refused by svc validate: {problems}")
        self.activation = activation_of(stamp(target, RELEASE_LEAD))
        return target


# -- the phases -------------------------------------------------------------------------------------


@dataclass
class ConcurrencyResult:
    """Requests of one client at once, spread over the replicas by nginx, each held in flight where admitted."""

    replies: list[tuple[int, str | None]]  # (status, Retry-After) of each request, as its client read it
    answered: Counter[tuple[str, int]]  # (replica, status) per request, from nginx's access log
    asked: set[int]  # how many replicas nginx asked for each request
    leases_held: int  # the client's leases in Redis while its admitted requests were held
    leases_after: int  # its leases in Redis once every request had ended


@dataclass
class LimitsResult:
    rate: list[Answer]  # a client whose requests overlap one held on each replica
    concurrency: ConcurrencyResult  # a client with more requests at once than SVC_OAI_MAX_CONCURRENT


def limits(fleet: Fleet) -> LimitsResult:
    """One client over the shared rate limit, another over the concurrency limit, through the proxy."""
    every_replica_thrice = BURST + 3 * len(fleet.replicas)
    with held_oai_requests(fleet.replicas, "127.0.2.1"):
        rate = fleet.over_limits("127.0.2.1", every_replica_thrice)
    # Enough requests that every replica gets more than the limit: each refuses some whatever the order.
    concurrency = at_once(fleet, "127.0.2.2", (MAX_CONCURRENT + 1) * len(fleet.replicas))
    return LimitsResult(rate, concurrency)


def at_once(fleet: Fleet, source: str, requests: int) -> ConcurrencyResult:
    """``requests`` OAI requests of client ``source`` at once, through nginx, each holding back the end of its body.

    nginx (``deploy/nginx.conf`` passing bodies on as they come) spreads them
    over the replicas. A refused request is answered at once; an admitted one
    waits in its view for the rest of its body. As admitted requests cannot
    end meanwhile, no more are refused once all but SVC_OAI_MAX_CONCURRENT
    have been; then every body is finished.
    """
    nginx = Nginx(fleet.root / "nginx-streaming", [r.port for r in fleet.replicas], STREAMING_BODIES, access_log=True)
    redis = fleet.redis_client()
    sockets: list[socket.socket] = []
    replies: list[tuple[int, str | None]] = []
    try:
        for _ in range(requests):
            sockets.append(socket.create_connection(("127.0.0.1", nginx.port), timeout=60, source_address=(source, 0)))
            sockets[-1].sendall(HELD_REQUEST)
        held = list(sockets)
        # A limit that admits too many refuses too few: stop waiting for them before nginx gives up on the bodies
        # (client_body_timeout 10s), so that what the replicas answered is seen.
        end = time.monotonic() + 8
        while len(replies) < requests - MAX_CONCURRENT and (remaining := end - time.monotonic()) > 0:
            for sock in select.select(held, [], [], remaining)[0]:
                replies.append(read_reply(sock))
                held.remove(sock)
        leases_held = redis.zcard(leases_key(source))
        for sock in held:
            sock.sendall(b"Identify")
        replies += [read_reply(sock) for sock in held]
        leases_after = redis.zcard(leases_key(source))
        entries = logged(nginx, source, requests)
    finally:
        for sock in sockets:
            sock.close()
        nginx.stop()
    return ConcurrencyResult(
        replies,
        Counter((fleet.answered_by(entry), entry.status) for entry in entries),
        {len(entry.upstreams) for entry in entries},
        leases_held,
        leases_after,
    )


@dataclass
class LeaseResult:
    """A replica killed with requests of a client in flight; another replica asked by that client until it admits it."""

    killed_at: float  # Redis's clock just after the kill
    lapse_at: list[float]  # when each lease the dead replica left behind lapses, on Redis's clock
    right_after: tuple[int, str | None]  # (status, Retry-After) of the client's first request after the kill
    refused: int  # the client's requests refused between the kill and its first one admitted
    last_refused_sent_at: float  # on Redis's clock, before that request was sent (0 if none was refused)
    admitted_at: float  # Redis's clock once another replica had admitted the client again


def killed_with_leases(fleet: Fleet, victim: Replica, lifetime: int) -> LeaseResult:
    """SIGKILL ``victim`` while SVC_OAI_MAX_CONCURRENT requests of one client are in flight on it.

    ``victim`` is first started again with SVC_OAI_LEASE_SECONDS=``lifetime``;
    afterwards it is started as it was. The client then asks another replica
    every 0.1 s until it is admitted.
    """
    source = "127.0.2.5"
    other = next(replica for replica in fleet.replicas if replica is not victim)
    redis = fleet.redis_client()
    settings = victim.env
    victim.stop()
    victim.env = {**settings, "SVC_OAI_LEASE_SECONDS": str(lifetime)}
    victim.start()
    try:
        victim.wait_ready()
        with held_oai_requests([victim], source, MAX_CONCURRENT):
            # In flight in the fleet's eyes once their leases are in Redis: a worker has read them some moments
            # before it leases them (on a busy machine, long enough for a kill to come between).
            end = time.monotonic() + 60
            while redis.zcard(leases_key(source)) < MAX_CONCURRENT:
                if time.monotonic() > end:
                    raise TimeoutError(f"{victim.name} leased {source}'s held requests not within 60 s")
                time.sleep(0.02)
            victim.kill()
            killed_at = redis_now(redis)
            lapse_at = [score for _, score in redis.zrange(leases_key(source), 0, -1, withscores=True)]
            replies: list[tuple[float, int, str | None]] = []  # (sent at, status, Retry-After)
            end = time.monotonic() + lifetime + 60
            while not replies or replies[-1][1] != 200:
                if time.monotonic() > end:
                    raise TimeoutError(f"{other.name} still refuses {source} {lifetime + 60} s after the kill")
                if replies:
                    time.sleep(0.1)
                sent_at = redis_now(redis)
                status, headers, _ = get(other.base_url, f"{OAI_PATH}?verb=Identify", source)
                replies.append((sent_at, status, headers.get("retry-after")))
            admitted_at = redis_now(redis)
    finally:
        victim.stop()  # if it was not killed
        victim.env = settings
        victim.start()
        victim.wait_ready()
    refused = [sent_at for sent_at, status, _ in replies if status == 503]
    return LeaseResult(killed_at, lapse_at, replies[0][1:], len(refused), max(refused, default=0.0), admitted_at)


@dataclass
class KillResult:
    load: LoadResult
    after_kill: int  # requests sent after the SIGKILL
    retried: int  # requests nginx sent to another replica after the killed one failed
    answered: Counter[str]  # requests each replica answered during the run
    # Responses the killed replica had begun to send (nginx had passed their headers on): cut, as no
    # proxy can retry a response it has begun to forward. nginx's error log names each.
    cut_in_transit: list[str]


def kill_under_load(fleet: Fleet, victim: Replica, clients: int, seconds: float) -> KillResult:
    """Load until ``victim`` has answered some requests; SIGKILL it (master and workers); load ``seconds`` more.

    Then start it again and wait until it is ready.
    """
    logged, errors_seen = len(fleet.access_log()), len(fleet.nginx.errors())
    with Load(fleet.proxy, fleet.load_paths(), clients) as load:
        end = time.monotonic() + 120
        while sum(fleet.answered_by(entry) == victim.name for entry in fleet.access_log()[logged:]) < 20:
            if time.monotonic() > end:
                raise TimeoutError(f"{victim.name} answered no load within 120 s")
            time.sleep(0.1)
        victim.kill()
        at_kill = load.count()
        time.sleep(seconds)
        end = time.monotonic() + 120
        while load.count() - at_kill < 100 * clients and time.monotonic() < end:  # many requests, however busy
            time.sleep(0.1)
    entries = fleet.access_log()[logged:]
    cut = [
        line
        for line in fleet.nginx.errors()[errors_seen:].splitlines()
        if "prematurely closed connection while reading upstream" in line and f"//{victim.address}/" in line
    ]
    victim.start()
    victim.wait_ready()
    return KillResult(
        load.result,
        load.result.requests - at_kill,
        sum(1 for entry in entries if len(entry.upstreams) > 1 and entry.upstreams[0] == victim.address),
        Counter(fleet.answered_by(entry) for entry in entries if entry.upstreams),
        cut,
    )


@dataclass
class RedisResult:
    load: LoadResult
    down: list[Answer]  # overlapping requests while Redis is down (fail open: all served)
    back: list[Answer]  # overlapping requests of a fresh client once Redis is back (limited again)
    warnings: dict[str, int]  # "Redis unreachable" WARNING lines per replica
    recovered: dict[str, int]  # "shared through Redis again" INFO lines per replica
    log_errors: list[str]  # ERROR lines and tracebacks the replicas wrote meanwhile


def redis_outage(fleet: Fleet, clients: int) -> RedisResult:
    """Kill Redis under load, go over the limit twice (more than RETRY_INTERVAL apart), start Redis again."""
    from catalog.web.ratelimit import RETRY_INTERVAL

    seen = {replica.name: len(replica.log()) for replica in fleet.replicas}
    names = set(seen)
    every_replica_thrice = BURST + 3 * len(fleet.replicas)
    with Load(fleet.proxy, fleet.load_paths(), clients) as load:
        fleet.redis.kill()
        with held_oai_requests(fleet.replicas, "127.0.2.3"):
            down = fleet.over_limits("127.0.2.3", every_replica_thrice)
            time.sleep(RETRY_INTERVAL * 2)  # each replica asks Redis again, and fails again: no second WARNING
            down += fleet.over_limits("127.0.2.3", every_replica_thrice)
        fleet.redis.start()
        time.sleep(RETRY_INTERVAL * 2)  # each replica's next overlapping request asks Redis again
        with held_oai_requests(fleet.replicas, "127.0.2.4"):
            back = fleet.over_limits("127.0.2.4", every_replica_thrice)
            # The other clients' load shares nginx's round robin: ask on until every replica has refused once.
            while {answer.replica for answer in back[BURST:]} != names and len(back) < 10 * every_replica_thrice:
                back += fleet.over_limits("127.0.2.4", len(fleet.replicas))
    new = {replica.name: replica.log()[seen[replica.name] :] for replica in fleet.replicas}
    return RedisResult(
        load.result,
        down,
        back,
        {name: text.count(REDIS_WARNING) for name, text in new.items()},
        {name: text.count(REDIS_BACK) for name, text in new.items()},
        [line for text in new.values() for line in text.splitlines() if " ERROR " in line or "Traceback" in line],
    )


@dataclass
class ReleaseResult:
    load: LoadResult
    version: str
    reload_seconds: dict[str, float]  # SIGHUP to serving the new data, per replica
    serving: dict[str, str]  # the data version each replica answers with afterwards
    log_errors: list[str]
    probe_errors: list[str]  # readiness probes sent straight to a reloading replica that failed
    late: list[str]  # replicas that said they served the release after its activation time


def rolling_release(fleet: Fleet, number: int, clients: int) -> ReleaseResult:
    """Release ``number`` (validated and stamped), the link switched, then SIGHUP one replica at a time, under load."""
    target = fleet.release(number)
    seen = {replica.name: len(replica.log()) for replica in fleet.replicas}
    reload_seconds = {}
    probe_errors: list[str] = []
    version = ""
    with Load(fleet.proxy, fleet.load_paths(), clients) as load:
        time.sleep(1)
        switch(fleet.current, target)
        for replica in fleet.replicas:
            started = time.monotonic()
            version = replica.reload(probe_errors)
            reload_seconds[replica.name] = time.monotonic() - started
        end = time.monotonic() + RELEASE_LEAD + 300  # every replica switches at the activation time
        while time.time() < fleet.activation or any(r.data_version() != version for r in fleet.replicas):
            if time.monotonic() > end:
                raise TimeoutError(f"release {version} not served by every replica")
            time.sleep(0.2)
        time.sleep(1)
    new = {replica.name: replica.log()[seen[replica.name] :] for replica in fleet.replicas}
    return ReleaseResult(
        load.result,
        version,
        reload_seconds,
        {replica.name: replica.data_version() for replica in fleet.replicas},
        [line for text in new.values() for line in text.splitlines() if " ERROR " in line or "Traceback" in line],
        probe_errors,
        [line for text in new.values() for line in text.splitlines() if "after its activation time" in line],
    )


# -- the long version -------------------------------------------------------------------------------


def _reply(status: int, retry_after: str | None) -> str:
    return f"{status}" + (f" (Retry-After {retry_after})" if retry_after else "")


def _answers(answers: list[Answer]) -> str:
    by_replica: dict[str, Counter[str]] = {}
    for answer in answers:
        by_replica.setdefault(answer.replica, Counter())[_reply(answer.status, answer.retry_after)] += 1
    return "; ".join(f"{replica}: {_counts(counts)}" for replica, counts in sorted(by_replica.items()))


def _counts(counts: Counter[str]) -> str:
    return ", ".join(f"{count} x {key}" for key, count in sorted(counts.items()))


def _load(result: LoadResult) -> str:
    errors = f"{len(result.errors)} errors" + (f" (first: {result.errors[:3]})" if result.errors else "")
    return f"{result.requests} requests in {result.seconds:.1f} s, {errors}"


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=PROJECT_ROOT.parent / "shared" / "corpus" / "dsp")
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8, help="load clients (sequential harvesters)")
    parser.add_argument("--seconds", type=float, default=20, help="length of the replica-kill run")
    parser.add_argument("--kills", type=int, default=1, help="replicas killed under load, one after the other")
    parser.add_argument("--releases", type=int, default=2, help="data releases rolled through the fleet")
    parser.add_argument("--keep", type=Path, help="work in this new directory and keep it (logs, nginx access log)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    with ExitStack() as stack:
        scratch = args.keep or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="svc-fleet-")))
        started = time.monotonic()
        fleet = Fleet(scratch, args.data_dir, args.replicas)
        try:
            print(f"fleet: {args.replicas} replicas, redis, nginx up in {time.monotonic() - started:.1f} s")
            shared = limits(fleet)
            print(f"limits, rate (burst {BURST} shared): {_answers(shared.rate)}")
            at_once = shared.concurrency
            print(
                f"limits, concurrency ({len(at_once.replies)} requests at once, {MAX_CONCURRENT} in flight allowed): "
                f"{_counts(Counter(_reply(*reply) for reply in at_once.replies))}; "
                f"(replica, status): {dict(sorted(at_once.answered.items()))}; "
                f"leases in Redis while held {at_once.leases_held}, after {at_once.leases_after}"
            )
            victim = fleet.replicas[-1]
            lease = killed_with_leases(fleet, victim, LEASE_SECONDS)
            print(
                f"lease ({LEASE_SECONDS} s): {victim.name} killed with {len(lease.lapse_at)} requests in flight; "
                f"the client's next request {lease.right_after}, refused {lease.refused} times, admitted again "
                f"{lease.admitted_at - lease.killed_at:.1f} s after the kill (its leases lapsed from "
                f"{min(lease.lapse_at) - lease.killed_at:.1f} s to {max(lease.lapse_at) - lease.killed_at:.1f} s)"
            )
            for kill in range(args.kills):
                victim = fleet.replicas[(kill + 1) % len(fleet.replicas)]
                killed = kill_under_load(fleet, victim, args.clients, args.seconds)
                print(
                    f"kill -9 {victim.name} under load: {_load(killed.load)}; "
                    f"{killed.after_kill} sent after the kill, {killed.retried} retried on another replica, "
                    f"{len(killed.cut_in_transit)} cut in transit; "
                    f"answered: {dict(sorted(killed.answered.items()))}"
                )
            outage = redis_outage(fleet, args.clients)
            print(
                f"redis down: {_load(outage.load)}; over the limit: {_answers(outage.down)}; "
                f"WARNING lines {outage.warnings}; ERROR lines {len(outage.log_errors)}"
            )
            print(f"redis back: {_answers(outage.back)}; INFO lines {outage.recovered}")
            for number in range(2, 2 + args.releases):
                rolled = rolling_release(fleet, number, args.clients)
                seconds = {name: round(value, 1) for name, value in rolled.reload_seconds.items()}
                print(
                    f"release {number} ({rolled.version}) rolled: {_load(rolled.load)}; "
                    f"SIGHUP to new data (s): {seconds}; serving {set(rolled.serving.values())}; "
                    f"ERROR lines {len(rolled.log_errors)}; late replicas {len(rolled.late)}; "
                    f"direct readiness probes failed: {rolled.probe_errors}"
                )
            nginx_errors = [line for line in fleet.nginx.errors().splitlines() if "[error]" in line]
            print(f"nginx error log: {len(nginx_errors)} [error] lines")
        finally:
            fleet.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
