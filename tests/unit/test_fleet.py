"""catalog/web/fleet.py: the release the replicas record in Redis, against a real redis-server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench.fleet import Redis
from catalog.web.fleet import RELEASE_KEY, FleetRelease
from catalog.web.ratelimit import RedisStore


@pytest.fixture
def redis() -> Iterator[Redis]:
    server = Redis()
    yield server
    server.stop()


def test_each_start_records_its_release_and_learns_the_one_before(redis: Redis):
    fleet = FleetRelease(RedisStore(redis.url))
    assert fleet.newest() is None and fleet.publish(1_800_000_000) is None
    assert fleet.publish(1_800_000_600) == 1_800_000_000  # the last start or reload wins, a rollback too
    assert fleet.publish(1_800_000_000) == 1_800_000_600
    assert fleet.newest() == 1_800_000_000


def test_what_another_program_left_under_the_key_is_no_release(redis: Redis):
    store = RedisStore(redis.url)
    store.client.set(RELEASE_KEY, b"not a time")
    fleet = FleetRelease(store)
    assert fleet.newest() is None
    assert fleet.publish(1_800_000_000) is None
    assert fleet.newest() == 1_800_000_000


def test_an_unreachable_redis_records_nothing_and_knows_nothing(redis: Redis):
    fleet = FleetRelease(RedisStore(redis.url))
    redis.stop()
    assert fleet.publish(1_800_000_000) is None and fleet.newest() is None
