"""Debian's nginx with deploy/nginx.conf in front of local `svc serve` replicas: unprivileged port, own temp dirs.

Used by the end-to-end tests (tests/test_nginx_cache.py, tests/test_fleet.py) and the
benchmarks (bench/wire.py, bench/fleet.py).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.run import PROJECT_ROOT, free_port

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
DEPLOY_CONF = PROJECT_ROOT / "deploy" / "nginx.conf"


def _replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"deploy/nginx.conf changed: {old!r} is expected exactly once"
    return text.replace(old, new)


def wait_listening(
    port: int, process: subprocess.Popen, what: str, deadline: float = 30, output: Callable[[], str] = str
) -> None:
    """Wait until ``process`` accepts connections on ``port`` of 127.0.0.1; say what it wrote if it exits."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}: {output()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"{what} does not listen on {port}")


# The one upstream server line: Docker's service name, re-resolved, and the failover parameters.
_DOCKER_SERVER = re.compile(r"^(\s*)server svc:8080 resolve(?P<parameters>[^;]*);$", re.MULTILINE)


def local_conf(upstream_ports: int | Sequence[int], listen_port: int, cache_dir: Path, extra: str = "") -> str:
    """deploy/nginx.conf with what only Docker has replaced (DNS, the replicas, port 80), plus ``extra`` directives.

    The replicas' server lines keep the shipped parameters (max_fails, fail_timeout, …).
    """
    ports = [upstream_ports] if isinstance(upstream_ports, int) else list(upstream_ports)
    conf = DEPLOY_CONF.read_text()
    conf = _replace_once(conf, "resolver 127.0.0.11 valid=10s ipv6=off;", "")
    (server,) = _DOCKER_SERVER.finditer(conf)  # deploy/nginx.conf changed if this fails
    indent, parameters = server.group(1), server.group("parameters")
    servers = "\n".join(f"{indent}server 127.0.0.1:{port}{parameters};" for port in ports)
    conf = conf[: server.start()] + servers + conf[server.end() :]
    conf = _replace_once(conf, "/var/cache/nginx/svc", str(cache_dir))
    conf = _replace_once(conf, "listen 80;", f"listen 127.0.0.1:{listen_port};")
    body, closing = conf.rstrip().rsplit("}", 1)
    assert not closing.strip(), "deploy/nginx.conf should end with its server block"
    return f"{body}{extra}}}\n"


# The access log of a fleet: who asked, what nginx answered, and which replicas it asked (in order).
ACCESS_FORMAT = "$remote_addr $status [$upstream_addr] [$upstream_status] $request_method $request_uri"


class Nginx:
    def __init__(
        self, root: Path, upstream_ports: int | Sequence[int], extra: str = "", access_log: bool = False
    ) -> None:
        self.root = root
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        for name in ("cache", "client", "proxy", "fastcgi", "uwsgi", "scgi", "logs"):
            (root / name).mkdir(parents=True, exist_ok=True)
        (root / "svc.conf").write_text(local_conf(upstream_ports, self.port, root / "cache", extra))
        self.access_log_path = root / "logs" / "access.log"
        access = (
            f"    log_format fleet '{ACCESS_FORMAT}';\n    access_log {self.access_log_path} fleet;\n"
            if access_log
            else "    access_log off;\n"
        )
        temp_paths = "\n".join(
            f"    {kind}_temp_path {root / name};"
            for kind, name in (
                ("client_body", "client"),
                ("proxy", "proxy"),
                ("fastcgi", "fastcgi"),
                ("uwsgi", "uwsgi"),
                ("scgi", "scgi"),
            )
        )
        # As root, nginx would hand its workers to "nobody", who cannot enter the test's directories.
        user = "user root;\n" if os.geteuid() == 0 else ""
        (root / "nginx.conf").write_text(
            f"{user}daemon off;\nworker_processes 1;\npid {root / 'nginx.pid'};\n"
            f"error_log {root / 'logs' / 'error.log'} warn;\n"
            "events { worker_connections 512; }\n"
            f"http {{\n{access}{temp_paths}\n    include {root / 'svc.conf'};\n}}\n"
        )
        self.process = subprocess.Popen(
            [NGINX, "-p", str(root), "-c", str(root / "nginx.conf"), "-e", str(root / "logs" / "error.log")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        wait_listening(self.port, self.process, "nginx", deadline=15, output=self._stderr)

    def _stderr(self) -> str:
        return self.process.stderr.read() if self.process.stderr else ""

    def errors(self) -> str:
        return (self.root / "logs" / "error.log").read_text()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
