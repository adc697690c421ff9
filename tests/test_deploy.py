"""The deployment example stays consistent with the image and the configuration svc reads."""

from __future__ import annotations

import re

import yaml

from svc_site.config import load_config
from tests.conftest import PROJECT_ROOT
from tests.ops_support import final_stage, image_environment, instruction

DEPLOY = PROJECT_ROOT / "deploy"


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def test_replicas_share_a_cache_behind_one_trusted_proxy():
    services = compose()["services"]
    svc = services["svc"]
    assert svc["deploy"]["replicas"] >= 2
    _, read = load_config({})
    assert set(svc["environment"]) <= set(read), "compose sets a variable svc does not read"
    cache = re.fullmatch(r"redis://(\w+):6379/\d+", svc["environment"]["SVC_CACHE_URL"])
    assert cache and cache.group(1) in services
    load_config({key: str(value) for key, value in svc["environment"].items()})  # valid values

    # One proxy appends the peer to X-Forwarded-For: svc trusts exactly one hop.
    nginx = (DEPLOY / "nginx.conf").read_text()
    assert svc["environment"]["SVC_TRUSTED_PROXY_HOPS"] == "1"
    assert nginx.count("$proxy_add_x_forwarded_for") == 1 and "svc:8080" in nginx
    assert services["proxy"]["depends_on"]["svc"]["condition"] == "service_healthy"


def test_data_is_mounted_read_only_where_the_image_expects_it():
    svc = compose()["services"]["svc"]
    data_dir = image_environment(final_stage())["SVC_DATA_DIR"]
    assert [volume for volume in svc["volumes"] if volume.endswith(f":{data_dir}:ro")]
    assert svc["read_only"] is True


def test_probe_is_the_image_healthcheck():
    healthcheck = instruction(final_stage(), "HEALTHCHECK")
    image_probe = yaml.safe_load(healthcheck[healthcheck.index("CMD ") + 4 :])
    assert compose()["services"]["svc"]["healthcheck"]["test"] == ["CMD", *image_probe]


def test_the_proxy_closes_idle_upstream_connections_before_svc_does():
    """Else nginx may send a request on a kept-alive connection at the moment svc closes it."""
    from svc_site.server import gunicorn_options

    nginx = (DEPLOY / "nginx.conf").read_text()
    upstream = nginx[nginx.index("upstream svc_replicas {") :].split("}", 1)[0]
    (timeout,) = re.findall(r"keepalive_timeout (\d+)s;", upstream)
    assert "keepalive " in upstream and int(timeout) < gunicorn_options("127.0.0.1:8080", 1)["keepalive"]
