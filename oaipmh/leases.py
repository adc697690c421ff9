"""Requests of one client in flight across every worker and replica (SPEC §5.5): leases in Redis that lapse.

``SVC_OAI_MAX_CONCURRENT`` bounds the OAI requests a client has in flight.
Each worker counts its own (:class:`catalog.web.ratelimit.ConcurrencyLimit`); with
``SVC_CACHE_URL`` every request also takes a lease in Redis, so that the
limit holds for the whole fleet however the proxy spreads the requests.

A client's leases are one sorted set: a member per request, scored with the
moment it lapses on Redis's clock (one clock for all replicas). One Lua
script drops the lapsed leases, counts the others and adds one if the client
is below the limit, and makes the key expire with its last lease: nothing in
Redis outlives ``SVC_OAI_LEASE_SECONDS``. A request gives its lease back when
it ends; one whose replica is killed keeps it until it lapses, no longer.

When Redis cannot be reached the worker's own count decides alone (the limit
fails open to the per-worker one), with the rate limit's bookkeeping
(:class:`catalog.web.ratelimit.RedisOutage`): one WARNING per interval, Redis
asked again once a second.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from catalog.web.ratelimit import RedisStore, redis_key

KEY_PREFIX = "svc:oai-leases:"

# Drop lapsed leases, count, add one below the limit (0 when at it), expire the key with its last lease.
_REDIS_TAKE = """
local time = redis.call('TIME')
local now = tonumber(time[1]) + tonumber(time[2]) / 1000000
local limit, lifetime = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
if held >= limit then return 0 end
redis.call('ZADD', KEYS[1], now + lifetime, ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], math.ceil(tonumber(last[2]) * 1000))
return held + 1
"""


@dataclass(frozen=True, slots=True)
class Lease:
    """One request's place in its client's set; ``member`` is empty when Redis could not be asked."""

    leases: FleetLeases
    key: str
    member: str

    def release(self) -> None:
        """Give the place back when the request ends."""
        self.leases.leave(self)


class FleetLeases:
    """Leases of requests in flight, in the Redis of a rate-limit store (same connection, same outage bookkeeping)."""

    def __init__(self, store: RedisStore, lifetime: float) -> None:
        self.store = store
        self.lifetime = lifetime  # seconds a lease lasts at most: the longest a request is counted
        self._take = store.client.register_script(_REDIS_TAKE)

    def enter(self, client: str, limit: int) -> Lease | None:
        """A lease for one more request of ``client``; None when it already has ``limit`` in flight in the fleet.

        While Redis cannot be asked the lease holds nothing, and the caller's
        per-worker count is the only limit.
        """
        key = redis_key(KEY_PREFIX, client)
        if self.store.outage.resting():
            return Lease(self, key, "")
        member = secrets.token_hex(8)
        try:
            held = int(self._take(keys=[key], args=[limit, repr(self.lifetime), member]))
        except self.store.errors as error:
            self.store.outage.failed(error)
            return Lease(self, key, "")
        self.store.outage.answered()
        return Lease(self, key, member) if held else None

    def leave(self, lease: Lease) -> None:
        """Give ``lease`` back; if Redis cannot be asked, it lapses on its own."""
        if not lease.member or self.store.outage.resting():
            return
        try:
            self.store.client.zrem(lease.key, lease.member)
        except self.store.errors as error:
            self.store.outage.failed(error)
            return
        self.store.outage.answered()
