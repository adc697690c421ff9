"""Reloads (SIGHUP) under keep-alive load: every request answered, no 5xx, no ERROR in the log.

Starts `svc serve` on a free port, runs ``--clients`` threads that each
reuse one keep-alive connection in a loop (reconnecting only when a response
says ``Connection: close``), sends ``--sighups`` SIGHUPs ``--interval`` s
apart (each once the master has begun the previous reload), then stops the
server and counts: requests, 5xx answers, dropped connections (a request
sent on an open connection that got no response), and the ERROR and
Traceback lines of the server's log.

    .venv/bin/python bench/reload_under_load.py --sighups 40
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SVC = str(Path(sys.executable).with_name("svc"))
PATHS = ("/healthz", "/", "/api/v2/projects", "/robots.txt")


@dataclass
class Tally:
    requests: int = 0
    server_errors: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    reconnects: int = 0


class KeepAliveClients:
    """Threads each reusing one connection, counting what they are answered."""

    def __init__(self, port: int, clients: int) -> None:
        self.port = port
        self.running = True
        self.tallies = [Tally() for _ in range(clients)]
        self.threads = [threading.Thread(target=self._run, args=(tally,)) for tally in self.tallies]
        for thread in self.threads:
            thread.start()

    def _run(self, tally: Tally) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        number = 0
        while self.running:
            path = PATHS[number % len(PATHS)]
            number += 1
            reused = connection.sock is not None
            if not reused:
                tally.reconnects += 1
            try:
                connection.request("GET", path)
                response = connection.getresponse()
                response.read()
            except (OSError, http.client.HTTPException) as error:
                tally.dropped.append(f"{path} ({'reused' if reused else 'new'} connection): {error!r}")
                connection.close()
                continue
            tally.requests += 1
            if response.status >= 500:
                tally.server_errors.append(f"{path}: HTTP {response.status}")
        connection.close()

    def stop(self) -> Tally:
        self.running = False
        for thread in self.threads:
            thread.join()
        total = Tally()
        for tally in self.tallies:
            total.requests += tally.requests
            total.server_errors += tally.server_errors
            total.dropped += tally.dropped
            total.reconnects += tally.reconnects
        return total


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(data_dir: Path, workers: int, log_path: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = {**os.environ, "SVC_DATA_DIR": str(data_dir), "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{port}"}
    env["SVC_WORKERS"] = str(workers)
    with log_path.open("w") as log:
        process = subprocess.Popen([SVC, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    end = time.monotonic() + 60
    while time.monotonic() < end:
        probe = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
        try:
            probe.request("GET", "/healthz")
            if probe.getresponse().status == 200:
                return process, port
        except OSError:
            time.sleep(0.1)
        finally:
            probe.close()
        if process.poll() is not None:
            break
    process.kill()
    raise RuntimeError(f"svc serve did not start: {log_path.read_text()}")


def _wait_for_log(log_path: Path, text: str, count: int, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while log_path.read_text().count(text) < count:
        if time.monotonic() > end:
            raise TimeoutError(f"{text!r} not logged {count} times")
        time.sleep(0.05)


def run(data_dir: Path, clients: int, sighups: int, interval: float, workers: int, log_path: Path) -> dict:
    """Reload ``sighups`` times under load; the figures of the run."""
    process, port = start(data_dir, workers, log_path)
    load = KeepAliveClients(port, clients)
    started = time.monotonic()
    try:
        time.sleep(interval)
        for sent in range(1, sighups + 1):
            process.send_signal(signal.SIGHUP)
            _wait_for_log(log_path, "Hang up", sent)  # one reload at a time: the master queues the others
            time.sleep(interval)
    finally:
        tally = load.stop()
        process.terminate()
        process.wait(timeout=60)
    log = log_path.read_text()
    reloads = log.count("Hang up")
    return {
        "clients": clients,
        "sighups": sighups,
        "reloads_logged": reloads,
        "seconds": round(time.monotonic() - started, 1),
        "requests": tally.requests,
        "server_errors": len(tally.server_errors),
        "dropped": len(tally.dropped),
        "reconnects": tally.reconnects,
        "error_lines": sum(1 for line in log.splitlines() if " ERROR " in line or '"level": "ERROR"' in line),
        "traceback_lines": log.count("Traceback"),
        "examples": (tally.server_errors + tally.dropped)[:5],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=PROJECT_ROOT / "modules" / "svc" / "server" / "data")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--sighups", type=int, default=40)
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between SIGHUPs")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--log", type=Path, default=Path("/tmp/svc-reload-under-load.log"))
    args = parser.parse_args()
    figures = run(args.data_dir, args.clients, args.sighups, args.interval, args.workers, args.log)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
