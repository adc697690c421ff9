"""The deployment example stays consistent with the configuration svc reads and the server it proxies.

What the example runs is checked by running it: tests/test_fleet.py runs
deploy/nginx.conf as shipped before three replicas sharing a Redis (one
trusted proxy hop, each client by its own address), and tests/test_image.py
runs the compose service's volume, environment and probe in the real image.
"""

from __future__ import annotations

import re

import yaml

from svc_site.config import load_config
from tests.conftest import PROJECT_ROOT

DEPLOY = PROJECT_ROOT / "deploy"


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def test_the_compose_environment_is_configuration_svc_reads_and_accepts():
    services = compose()["services"]
    svc = services["svc"]
    _, read = load_config({})
    assert set(svc["environment"]) <= set(read), "compose sets a variable svc does not read"
    cache = re.fullmatch(r"redis://(\w+):6379/\d+", svc["environment"]["SVC_CACHE_URL"])
    assert cache and cache.group(1) in services
    load_config({key: str(value) for key, value in svc["environment"].items()})  # valid values


def test_the_proxy_closes_idle_upstream_connections_before_svc_does():
    """Else nginx may send a request on a kept-alive connection at the moment svc closes it."""
    from svc_site.server import gunicorn_options

    nginx = (DEPLOY / "nginx.conf").read_text()
    upstream = nginx[nginx.index("upstream svc_replicas {") :].split("}", 1)[0]
    (timeout,) = re.findall(r"keepalive_timeout (\d+)s;", upstream)
    assert "keepalive " in upstream and int(timeout) < gunicorn_options("127.0.0.1:8080", 1)["keepalive"]
