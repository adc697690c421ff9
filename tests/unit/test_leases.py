"""Leases of OAI requests in flight shared through Redis (oaipmh.leases), against a real redis-server."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterator

import pytest

from bench.fleet import Redis
from catalog.web.ratelimit import RETRY_INTERVAL, RedisStore, TokenBucket, redis_key
from oaipmh.leases import KEY_PREFIX, FleetLeases

LONG = 600.0  # s: a lease that cannot lapse during a test


class Clock:
    """The stores' own timing (when to ask a failing Redis again, when to warn); leases run on Redis's clock."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def redis() -> Iterator[Redis]:
    server = Redis()
    yield server
    server.stop()


def worker(redis: Redis, lifetime: float = LONG, clock: Clock | None = None) -> FleetLeases:
    """The leases of one worker process (its own store and connection), on the shared Redis."""
    return FleetLeases(RedisStore(redis.url, clock or Clock()), lifetime)


def leases_of(leases: FleetLeases, client: str) -> list[tuple[bytes, float]]:
    return leases.store.client.zrange(redis_key(KEY_PREFIX, client), 0, -1, withscores=True)


def wait_for_redis_clock(leases: FleetLeases, moment: float, deadline: float = 10) -> None:
    """Until Redis's clock (the one leases and keys lapse on) is past ``moment``, in seconds.

    Past in whole milliseconds: Redis expires a key once its millisecond clock is beyond the expiry time, not
    at it, so a clock a few microseconds past ``moment`` may still find the key there.
    """
    end = time.monotonic() + deadline
    while True:
        seconds, microseconds = leases.store.client.time()
        if seconds * 1000 + microseconds // 1000 > moment * 1000:
            return
        assert time.monotonic() < end, f"Redis's clock did not pass {moment} within {deadline} s"
        time.sleep(0.01)


def test_a_client_has_at_most_the_limit_in_flight_across_workers(redis: Redis):
    one, other = worker(redis), worker(redis)
    held = [one.enter("harvester", 3), other.enter("harvester", 3), one.enter("harvester", 3)]
    assert all(lease is not None and lease.member for lease in held)
    assert other.enter("harvester", 3) is None
    assert one.enter("harvester", 3) is None
    assert other.enter("another harvester", 3) is not None  # each client has its own set

    held[0].release()  # one request ends on the first worker: the second may start one
    assert other.enter("harvester", 3) is not None
    assert one.enter("harvester", 3) is None


def test_every_lease_given_back_leaves_nothing_in_redis(redis: Redis):
    leases = worker(redis)
    held = [leases.enter("harvester", 4) for _ in range(4)]
    assert len(leases_of(leases, "harvester")) == 4
    for lease in held:
        assert lease is not None
        lease.release()
    assert leases.store.client.exists(redis_key(KEY_PREFIX, "harvester")) == 0


def test_a_lease_lasts_at_most_its_lifetime_and_so_does_the_key(redis: Redis):
    leases = worker(redis, lifetime=30)
    assert leases.enter("harvester", 2) is not None
    before = leases.store.client.time()
    assert leases.enter("harvester", 2) is not None
    now = before[0] + before[1] / 1e6
    (_, _), (_, last) = leases_of(leases, "harvester")
    assert now < last <= now + 30 + 1  # on Redis's clock, a second of slack for the call itself
    # The key expires with its last lease (in whole milliseconds), not later.
    assert leases.store.client.pexpiretime(redis_key(KEY_PREFIX, "harvester")) == math.ceil(last * 1000)


def test_leases_of_a_worker_that_died_lapse_and_their_key_expires(redis: Redis):
    dead = worker(redis, lifetime=0.2)  # a worker killed with its requests in flight: nothing is given back
    assert dead.enter("harvester", 2) is not None and dead.enter("harvester", 2) is not None
    alive = worker(redis, lifetime=0.2)
    assert alive.enter("harvester", 2) is None
    wait_for_redis_clock(alive, max(until for _, until in leases_of(alive, "harvester")))  # both have lapsed
    late = alive.enter("harvester", 2)
    assert late is not None
    assert [member for member, _ in leases_of(alive, "harvester")] == [late.member.encode()]
    wait_for_redis_clock(alive, alive.store.client.pexpiretime(redis_key(KEY_PREFIX, "harvester")) / 1000)
    assert alive.store.client.exists(redis_key(KEY_PREFIX, "harvester")) == 0


def test_a_lapsed_lease_given_back_late_does_not_free_another(redis: Redis):
    leases = worker(redis, lifetime=0.2)
    slow = leases.enter("harvester", 1)  # a request that ran longer than its lease
    assert slow is not None
    wait_for_redis_clock(leases, max(until for _, until in leases_of(leases, "harvester")))  # it has lapsed
    leases.lifetime = LONG
    current = leases.enter("harvester", 1)
    assert current is not None
    slow.release()
    assert leases.enter("harvester", 1) is None  # the current request still holds the one place


def test_with_redis_down_every_request_is_admitted_and_both_limits_warn_once(
    redis: Redis, caplog: pytest.LogCaptureFixture
):
    clock = Clock()
    store = RedisStore(redis.url, clock)
    leases, bucket = FleetLeases(store, LONG), TokenBucket(store, rate=0.001, burst=1)
    held = leases.enter("harvester", 1)
    assert held is not None and leases.enter("harvester", 1) is None

    def lines(level: int) -> list[str]:
        return [record.getMessage() for record in caplog.records if record.levelno == level]

    redis.kill()
    with caplog.at_level(logging.INFO, logger="oaipmh.ratelimit"):
        admitted = [leases.enter("harvester", 1) for _ in range(10)]
        assert all(lease is not None and lease.member == "" for lease in admitted)  # nothing held: the worker counts
        assert all(bucket.take("harvester").allowed for _ in range(10))
        held.release()  # cannot be given back: it lapses in Redis on its own
        clock.now += RETRY_INTERVAL  # Redis is asked again, and fails again
        assert leases.enter("harvester", 1) is not None
        (warning,) = lines(logging.WARNING)  # one for both limits
        assert warning.startswith("Redis unreachable (") and "concurrent requests counted per worker" in warning

        redis.start()  # empty: no lease survived the restart
        clock.now += RETRY_INTERVAL
        again = leases.enter("harvester", 1)
        assert again is not None and again.member
        assert leases.enter("harvester", 1) is None
        assert lines(logging.INFO) == ["OAI rate and concurrency limits are shared through Redis again"]


def test_a_redis_that_hangs_costs_one_timeout_per_retry_interval_for_both_limits():
    import redis

    clock = Clock()
    store = RedisStore("redis://127.0.0.1:1/0", clock)  # never asked: the scripts below stand for a hung Redis
    asked = []

    def hung(**_arguments: object) -> str:
        asked.append(clock.now)
        clock.now += 1.0  # the socket timeout
        raise redis.TimeoutError("Timeout reading from socket")

    class HungPipeline:  # giving back the lease whose answer was lost hangs too
        def zrem(self, *_arguments: object) -> None:
            pass

        def execute(self) -> str:
            return hung()

    leases = FleetLeases(store, LONG)
    store._script = leases._take = hung
    store.client.pipeline = lambda transaction: HungPipeline()  # type: ignore[method-assign,assignment]
    store.clock_ahead = 0.0  # Redis's clock already learned: a request asks Redis once
    bucket = TokenBucket(store, rate=0.001, burst=1)
    for _ in range(10):
        assert leases.enter("harvester", 1) is not None
        assert bucket.take("harvester").allowed
    assert asked == [1000.0]  # once, not before RETRY_INTERVAL has passed since the timeout ended
    clock.now += RETRY_INTERVAL
    assert leases.enter("harvester", 1) is not None and len(asked) == 2  # one call: the give-back, which hangs


def test_a_take_that_reaches_redis_after_its_deadline_takes_nothing(redis: Redis):
    """Redis stalled and ran the request once the worker had given up: no lease may outlive that."""
    leases = worker(redis)
    assert leases.enter("harvester", 1) is not None  # Redis's clock is learned
    assert leases.store.clock_ahead is not None
    leases.store.clock_ahead -= 10  # as if the request had waited 10 s in a stalled Redis
    late = leases.enter("harvester", 2)
    assert late is not None and late.member == ""  # admitted on the worker's own count, nothing held in Redis
    assert len(leases_of(leases, "harvester")) == 1
    again = leases.enter("harvester", 2)  # the answer brought Redis's clock: the next take is in time again
    assert again is not None and again.member and len(leases_of(leases, "harvester")) == 2


def test_leases_that_could_not_be_given_back_are_given_back_at_the_next_exchange(redis: Redis):
    clock = Clock()
    leases = worker(redis, clock=clock)
    held = [leases.enter("harvester", 2) for _ in range(2)]
    assert all(lease is not None and lease.member for lease in held)
    leases.store.outage.failed(OSError("a request of another client timed out"), clock.now)  # Redis rests for a second
    for lease in held:
        assert lease is not None
        lease.release()  # not asked now: remembered
    assert len(leases_of(leases, "harvester")) == 2
    clock.now += RETRY_INTERVAL
    fresh = leases.enter("harvester", 2)  # the next exchange gives them back first
    assert fresh is not None and fresh.member
    assert [member for member, _ in leases_of(leases, "harvester")] == [fresh.member.encode()]
    assert leases.store.unreturned == []
