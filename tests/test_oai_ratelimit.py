"""Per-client rate limiting of the OAI endpoint (SPEC §5.5), in process and shared through Redis."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import signal
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest

from bench.fleet import Redis
from catalog.domain.loader import load_catalog
from catalog.web.ratelimit import (
    MAX_LOCAL_CLIENTS,
    RETRY_INTERVAL,
    WARN_INTERVAL,
    LocalStore,
    RedisOutage,
    RedisStore,
    TokenBucket,
)
from tests.conftest import CORPUS_DIR, SAMPLE_DIR, start_server, stop_server
from tests.oai_support import HIGH_LIMITS_ENV, OAI_PATH, config, parse_valid, request_in_flight


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_token_bucket_allows_a_burst_then_the_sustained_rate():
    clock = Clock()
    bucket = TokenBucket(LocalStore(clock), rate=2, burst=3)
    assert [bucket.take("a").allowed for _ in range(3)] == [True, True, True]
    refused = bucket.take("a")
    assert not refused.allowed and refused.retry_after == 1
    assert bucket.take("b").allowed  # other clients have their own bucket
    clock.now += 0.5  # one request's worth at 2/s
    assert bucket.take("a").allowed
    assert not bucket.take("a").allowed
    clock.now += 10  # a full bucket again, but no more than the burst
    assert [bucket.take("a").allowed for _ in range(4)] == [True, True, True, False]


def test_retry_after_is_the_wait_in_whole_seconds():
    clock = Clock()
    bucket = TokenBucket(LocalStore(clock), rate=0.1, burst=1)
    assert bucket.take("a").allowed
    assert bucket.take("a").retry_after == 10
    clock.now += 7.5
    assert bucket.take("a").retry_after == 3


def test_the_local_store_stays_bounded_under_a_flood_of_clients():
    """Buckets that are not full yet count too: a flood of addresses cannot grow a worker without limit."""
    store = LocalStore(Clock())  # the clock never moves: no bucket is ever full again
    bucket = TokenBucket(store, rate=0.001, burst=10)
    for number in range(MAX_LOCAL_CLIENTS * 2):
        assert bucket.take(f"client-{number}").allowed
    assert len(store) <= MAX_LOCAL_CLIENTS


@pytest.fixture(scope="module")
def corpus():
    return load_catalog(CORPUS_DIR)


@pytest.fixture
def throttled(settings, corpus):
    """A tight rate limit, and for each test client one more request in flight, so that the limit applies."""
    from catalog import runtime

    runtime.install(corpus)  # with fresh limits: the app_state fixture gave this test its own state
    settings.SVC = config(oai_rate_limit_per_second=0.01, oai_rate_limit_burst=3)
    overlapping = ("192.0.2.1", "192.0.2.2", "198.51.100.1", "198.51.100.2", "127.0.0.1")
    in_flight = runtime.state().oai_limits.in_flight
    for client in overlapping:
        in_flight.enter(client, 100)
    yield settings


def test_the_endpoint_answers_503_with_retry_after_over_the_limit(client, throttled):
    for _ in range(3):
        response = client.get(OAI_PATH, {"verb": "Identify"}, REMOTE_ADDR="192.0.2.1")
        assert response.status_code == 200
        parse_valid(response.content)
    refused = client.get(OAI_PATH, {"verb": "Identify"}, REMOTE_ADDR="192.0.2.1")
    assert refused.status_code == 503
    assert refused["Retry-After"].isdigit() and int(refused["Retry-After"]) >= 1
    # POST counts too, and another client is not affected.
    form = "application/x-www-form-urlencoded"
    assert client.post(OAI_PATH, "verb=Identify", form, REMOTE_ADDR="192.0.2.1").status_code == 503
    assert client.get(OAI_PATH, {"verb": "Identify"}, REMOTE_ADDR="192.0.2.2").status_code == 200


def test_clients_behind_trusted_proxies_are_told_apart(client, throttled):
    throttled.SVC = config(oai_rate_limit_per_second=0.01, oai_rate_limit_burst=1, trusted_proxy_hops=1)
    proxy = {"REMOTE_ADDR": "10.0.0.1"}
    assert client.get(OAI_PATH, {"verb": "Identify"}, HTTP_X_FORWARDED_FOR="198.51.100.1", **proxy).status_code == 200
    assert client.get(OAI_PATH, {"verb": "Identify"}, HTTP_X_FORWARDED_FOR="198.51.100.2", **proxy).status_code == 200
    again = client.get(OAI_PATH, {"verb": "Identify"}, HTTP_X_FORWARDED_FOR="198.51.100.1", **proxy)
    assert again.status_code == 503


def test_healthz_is_never_limited(client, throttled):
    for _ in range(5):
        client.get(OAI_PATH, {"verb": "Identify"}, REMOTE_ADDR="127.0.0.1")
    from svc_site.wsgi import application

    statuses = []
    application({"PATH_INFO": "/healthz", "REQUEST_METHOD": "GET"}, lambda status, headers: statuses.append(status))
    assert statuses == ["200 OK"]


# --- replicas sharing one Redis ----------------------------------------------------------


@pytest.fixture
def redis_url():
    redis = Redis()
    yield redis.url
    redis.stop()


def status(url: str) -> tuple[int, str | None]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, None
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Retry-After")


def test_replicas_share_the_limit_through_redis(redis_url):
    env = {
        "SVC_CACHE_URL": redis_url,
        "SVC_OAI_RATE_LIMIT_PER_SECOND": "0.01",
        "SVC_OAI_RATE_LIMIT_BURST": "5",
        "SVC_WORKERS": "1",
    }
    replicas = [start_server(CORPUS_DIR, env), start_server(CORPUS_DIR, env)]
    try:
        urls = [replica.base_url + OAI_PATH + "?verb=Identify" for replica in replicas]
        # Only requests that overlap another of the same client pay; hold one open on each replica.
        with contextlib.ExitStack() as held:
            for replica in replicas:
                held.enter_context(request_in_flight(replica.base_url))
            # Five requests in all, alternating between the replicas, use up the one shared bucket.
            assert [status(urls[n % 2])[0] for n in range(5)] == [200] * 5
            for url in urls:
                code, retry_after = status(url)
                assert code == 503 and retry_after is not None and int(retry_after) >= 1
    finally:
        for replica in replicas:
            stop_server(replica)


@pytest.mark.redis
def test_an_unreachable_redis_admits_everyone_with_one_warning_per_interval(caplog: pytest.LogCaptureFixture):
    redis = Redis()
    try:
        clock = Clock()  # the store's own timing (retry, warnings); the buckets run on Redis's clock
        bucket = TokenBucket(RedisStore(redis.url, clock), rate=0.001, burst=2)
        assert [bucket.take("harvester").allowed for _ in range(3)] == [True, True, False]

        def lines(level: int) -> list[str]:
            return [record.getMessage() for record in caplog.records if record.levelno == level]

        redis.kill()
        with caplog.at_level(logging.INFO, logger="oaipmh.ratelimit"):
            assert all(bucket.take("harvester").allowed for _ in range(20))
            clock.now += RETRY_INTERVAL  # Redis is asked again, and fails again
            assert all(bucket.take("harvester").allowed for _ in range(20))
            (warning,) = lines(logging.WARNING)
            assert warning.startswith("Redis unreachable (") and "\n" not in warning
            clock.now += WARN_INTERVAL
            assert bucket.take("harvester").allowed
            assert len(lines(logging.WARNING)) == 2

            redis.start()  # empty: the buckets are full again
            clock.now += RETRY_INTERVAL
            assert [bucket.take("harvester").allowed for _ in range(3)] == [True, True, False]
            assert lines(logging.INFO) == ["OAI rate and concurrency limits are shared through Redis again"]
    finally:
        redis.stop()


BACK = "OAI rate and concurrency limits are shared through Redis again"


def _outage_lines(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    """Each line's level and message, without the error it names."""
    return [(record.levelname, record.getMessage().partition(" (")[0]) for record in caplog.records]


def test_an_answer_asked_before_redis_failed_does_not_end_the_outage(caplog: pytest.LogCaptureFixture):
    """Seen in the fleet under load: a request's answer came back just after another's failure, and said "again"."""
    clock = Clock()
    outage = RedisOutage(clock)
    with caplog.at_level(logging.INFO, logger="oaipmh.ratelimit"):
        answered_before = clock.now  # on its way when Redis went down
        clock.now += 0.001
        outage.failed(OSError("Connection closed by server."), clock.now)
        clock.now += 0.001
        outage.answered(answered_before)
        assert outage.resting()  # still failing: not asked again before RETRY_INTERVAL
        clock.now += RETRY_INTERVAL
        outage.answered(clock.now)  # asked after the failure: Redis answers again
        assert not outage.resting()
    assert _outage_lines(caplog) == [("WARNING", "Redis unreachable"), ("INFO", BACK)]


def test_a_failure_asked_before_redis_answered_again_does_not_start_another_outage(caplog: pytest.LogCaptureFixture):
    clock = Clock()
    outage = RedisOutage(clock)
    with caplog.at_level(logging.INFO, logger="oaipmh.ratelimit"):
        outage.failed(OSError("Connection refused"), clock.now)
        clock.now += RETRY_INTERVAL
        timed_out = clock.now  # asked while Redis was still down, given up on after the socket timeout
        clock.now += 0.001
        outage.answered(clock.now)
        clock.now += 1.0
        outage.failed(OSError("Timeout reading from socket"), timed_out)
        assert not outage.resting()
        outage.failed(OSError("Connection refused"), clock.now)  # asked after: Redis is down again
        assert outage.resting()
        clock.now += RETRY_INTERVAL
        outage.answered(clock.now)
    # One WARNING per WARN_INTERVAL; each end of an outage is said.
    assert _outage_lines(caplog) == [("WARNING", "Redis unreachable"), ("INFO", BACK), ("INFO", BACK)]


def test_a_redis_that_hangs_costs_one_timeout_per_retry_interval_not_one_per_request():
    import redis

    clock = Clock()
    store = RedisStore("redis://127.0.0.1:1/0", clock)  # never asked: the script below stands for a hung Redis
    asked = []

    def hung(**_arguments: object) -> str:
        asked.append(clock.now)
        clock.now += 1.0  # the socket timeout
        raise redis.TimeoutError("Timeout reading from socket")

    store._script = hung
    bucket = TokenBucket(store, rate=0.001, burst=2)
    assert all(bucket.take("harvester").allowed for _ in range(20))
    assert asked == [1000.0]  # once, not before RETRY_INTERVAL has passed since the timeout ended
    clock.now += RETRY_INTERVAL
    assert bucket.take("harvester").allowed and len(asked) == 2


def test_concurrent_requests_of_one_client_are_counted_exactly():
    from concurrent.futures import ThreadPoolExecutor

    bucket = TokenBucket(LocalStore(Clock()), rate=1, burst=25)
    with ThreadPoolExecutor(max_workers=8) as pool:
        decisions = list(pool.map(lambda _: bucket.take("harvester").allowed, range(100)))
    assert decisions.count(True) == 25


# --- real harvesters with the default limits -----------------------------------------------


@pytest.fixture(scope="module")
def default_limits_server():
    server = start_server(CORPUS_DIR)  # SVC_OAI_* limits at their defaults
    yield server
    stop_server(server)


@pytest.mark.slow  # the whole corpus harvested
def test_sickle_with_default_settings_harvests_the_whole_corpus(default_limits_server):
    from sickle import Sickle

    harvester = Sickle(default_limits_server.base_url + OAI_PATH)  # no retries
    for prefix in ("oai_dc", "oai_datacite"):
        identifiers = [record.header.identifier for record in harvester.ListRecords(metadataPrefix=prefix)]
        assert len(identifiers) == len(set(identifiers)) == 4283, prefix


@pytest.mark.slow  # the whole corpus harvested
def test_scythe_with_default_settings_harvests_the_whole_corpus(default_limits_server):
    from oaipmh_scythe import Scythe

    with Scythe(default_limits_server.base_url + OAI_PATH) as harvester:  # max_retries=0
        for prefix in ("oai_dc", "oai_datacite"):
            headers = [header.identifier for header in harvester.list_identifiers(metadata_prefix=prefix)]
            records = [record.header.identifier for record in harvester.list_records(metadata_prefix=prefix)]
            assert len(set(headers)) == len(records) == 4283, prefix


def test_a_client_with_twenty_requests_in_flight_is_throttled(default_limits_server):
    from concurrent.futures import ThreadPoolExecutor

    url = default_limits_server.base_url + OAI_PATH + "?verb=ListRecords&metadataPrefix=oai_datacite"
    with ThreadPoolExecutor(max_workers=20) as pool:
        codes = list(pool.map(lambda _: status(url)[0], range(200)))
    assert codes.count(503) > 0 and codes.count(200) > 0
    assert set(codes) == {200, 503}


# --- a Redis that stalls while a lease is being taken ---------------------------------------------


class StallingRelay:
    """A TCP relay between svc and a real redis-server that stops Redis (SIGSTOP) while one lease is being taken.

    Once armed, the first time the lease script passes through on its way to
    Redis, Redis is stopped before the bytes reach it — a latency spike (a
    fork for BGSAVE, a failover) that begins just after the request was sent.
    Redis is let go on again (SIGCONT) only once svc has given up on that
    request and closed its connection: Redis then finds the request waiting
    and runs it, as a stalled Redis does.
    """

    def __init__(self, redis: Redis, trigger: bytes) -> None:
        self.redis, self.trigger = redis, trigger
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"redis://127.0.0.1:{self.listener.getsockname()[1]}/0"
        self.armed = threading.Event()
        self.resumed = threading.Event()  # Redis stalled on a lease, svc gave up on it, Redis runs again
        self._stalled = False
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.redis.port))
            threading.Thread(target=self._to_redis, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._to_svc, args=(upstream, client), daemon=True).start()

    def _to_redis(self, client: socket.socket, upstream: socket.socket) -> None:
        stalled_here = False
        with contextlib.suppress(OSError):
            while chunk := client.recv(65536):
                if self.trigger in chunk and self.armed.is_set():
                    with self._lock:
                        stalled_here, self._stalled = not self._stalled, True
                    if stalled_here:
                        assert self.redis.process is not None
                        self.redis.process.send_signal(signal.SIGSTOP)
                upstream.sendall(chunk)
        # svc closed the connection (it gave up on the request, or it is done with it): Redis reads what was sent.
        with contextlib.suppress(OSError):
            upstream.shutdown(socket.SHUT_WR)
        if stalled_here:
            assert self.redis.process is not None
            self.redis.process.send_signal(signal.SIGCONT)
            self.resumed.set()

    @staticmethod
    def _to_svc(upstream: socket.socket, client: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while chunk := upstream.recv(65536):
                client.sendall(chunk)
        with contextlib.suppress(OSError):
            client.close()
        upstream.close()

    def close(self) -> None:
        self.listener.close()


@pytest.mark.redis
def test_a_redis_stall_while_a_lease_is_taken_refuses_no_later_request_of_a_sequential_harvester():
    """A lease svc gave up on (Redis did not answer in time) must not hold a place once Redis runs again.

    With one request in flight allowed, a lease left behind would refuse every request of the harvester
    (503, Retry-After: 1) until it lapsed, SVC_OAI_LEASE_SECONDS later.
    """
    from oaipmh.leases import _REDIS_TAKE

    redis = Redis()
    relay = StallingRelay(redis, hashlib.sha1(_REDIS_TAKE.encode()).hexdigest().encode())
    env = {"SVC_CACHE_URL": relay.url, "SVC_OAI_MAX_CONCURRENT": "1", "SVC_WORKERS": "1", **HIGH_LIMITS_ENV}
    server = start_server(SAMPLE_DIR, env)
    try:
        url = server.base_url + OAI_PATH + "?verb=ListIdentifiers&metadataPrefix=oai_dc"
        assert [status(url)[0] for _ in range(3)] == [200] * 3  # the lease script is loaded in Redis by now
        relay.armed.set()
        during = []  # one request after the other, as a harvester makes them
        deadline = time.monotonic() + 60
        while not relay.resumed.is_set():
            during.append(status(url))
            assert time.monotonic() < deadline, "svc sent no lease to Redis within 60 s"
        assert during and all(code == 200 for code, _ in during), during  # Redis's stall refuses no one
        # Redis answers svc again (one INFO line says so) and ran the lease svc gave up on.
        after = []
        while "shared through Redis again" not in server.output():
            after.append(status(url))
            assert time.monotonic() < deadline, "svc did not find Redis again within 60 s"
        after += [status(url) for _ in range(10)]
        assert after == [(200, None)] * len(after)
    finally:
        output = stop_server(server)
        relay.close()
        redis.stop()
    assert "Redis unreachable (Timeout reading from socket)" in output
