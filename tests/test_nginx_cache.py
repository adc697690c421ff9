"""The deploy/ nginx in front of a real `svc serve`: cache hits, 304, gzip, HEAD, and a reload seen in time."""

from __future__ import annotations

import gzip
import signal
import time
from pathlib import Path

import pytest

from bench.nginx_proxy import NGINX, Nginx
from catalog.domain.loader import load_catalog
from tests.conftest import start_server, stop_server
from tests.http_support import fetch, head_and_get
from tests.ops_support import worker_pids, write_data_set
from tests.test_lifecycle import switch

MAX_AGE = 2
NGINX_CLOCK = 1  # s: the granularity of nginx's freshness
REFRESH = 1  # s: the stale answer that triggers the background refresh, and polling
GZIP = {"Accept-Encoding": "gzip"}

pytestmark = [pytest.mark.nginx, pytest.mark.skipif(not Path(NGINX).exists(), reason="Debian's nginx is not installed")]


def test_nginx_caches_what_svc_allows_and_sees_a_reload_within_max_age(tmp_path: Path):
    releases, current = tmp_path / "releases", tmp_path / "current"
    switch(current, write_data_set(releases / "1", ["0001"]))
    env = {
        "SVC_HTTP_MAX_AGE": str(MAX_AGE),
        "SVC_HTTP_STALE_WHILE_REVALIDATE": "60",
        "SVC_OAI_BASE_URL": "http://localhost/oai",
        "SVC_TRUSTED_PROXY_HOPS": "1",
    }
    server = start_server(current, env)
    nginx = Nginx(tmp_path / "nginx", int(server.base_url.rsplit(":", 1)[1]))
    try:
        proxy = nginx.base_url
        # A cache hit, compressed once by svc and not again by nginx.
        miss = fetch(proxy, "/projects", headers=GZIP)
        hit = fetch(proxy, "/projects", headers=GZIP)
        assert (miss.status, hit.status) == (200, 200)
        assert miss.headers["x-cache-status"] == "MISS" and hit.headers["x-cache-status"] == "HIT"
        assert hit.headers["content-encoding"] == "gzip" and hit.body == miss.body
        page = gzip.decompress(hit.body)
        assert b"Project 0001" in page and b"Project 0002" not in page
        # The plain variant is its own entry, never the gzip bytes.
        plain = fetch(proxy, "/projects")
        assert "content-encoding" not in plain.headers and plain.body == page

        # A 304 for the tag the client holds, from the cache.
        not_modified = fetch(proxy, "/projects", headers={**GZIP, "If-None-Match": hit.headers["etag"]})
        assert not_modified.status == 304 and not_modified.body == b""

        # HEAD: GET's length, no body (the pair on one connection proves it).
        head, get = head_and_get(proxy, "/projects", headers=GZIP)
        assert head.status == 200 and head.body == b"" and int(head.headers["content-length"]) == len(get.body)

        # OAI is never answered from the cache: each request reaches svc (and its rate limit).
        identify = fetch(proxy, "/oai?verb=Identify", headers=GZIP)
        assert identify.status == 200 and "x-cache-status" not in identify.headers
        assert b"<compression>gzip</compression>" in gzip.decompress(identify.body)

        # New data, SIGHUP: through the proxy within max-age of the reload's end — svc's new workers answer
        # and its old ones, which may answer one last request on a kept-alive connection, are gone (on a busy
        # machine that alone can take seconds). nginx counts freshness in whole seconds and, with
        # stale-while-revalidate, the first request after expiry refreshes the entry.
        second = write_data_set(releases / "2", ["0001", "0002"])
        switch(current, second)
        old_workers = worker_pids(server.process.pid)
        server.process.send_signal(signal.SIGHUP)
        server.wait_for_output(f"reloaded data version {load_catalog(second).data_version}")
        reloading = time.monotonic() + 60
        while any(Path(f"/proc/{pid}").exists() for pid in old_workers):
            assert time.monotonic() < reloading, "the old workers did not stop within a minute"
            time.sleep(0.05)
        assert b"Project 0002" in fetch(server.base_url, "/projects").body
        reloaded = time.monotonic()
        seen = None
        while time.monotonic() < reloaded + MAX_AGE + NGINX_CLOCK + REFRESH:
            if b"Project 0002" in gzip.decompress(fetch(proxy, "/projects", headers=GZIP).body):
                seen = time.monotonic() - reloaded
                break
            time.sleep(0.1)
        assert seen is not None, "the reload was not visible through the proxy within max-age"
        assert "[error]" not in nginx.errors() and "[crit]" not in nginx.errors()
    finally:
        nginx.stop()
        output = stop_server(server)
    assert "no-body response" not in output
