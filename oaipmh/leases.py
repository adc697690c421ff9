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

A Redis that stalls (a fork for BGSAVE, a failover) finds a request's lease
waiting when it wakes, after the worker gave up on it: such a lease must not
be taken, or a harvester with nothing in flight would be refused until it
lapsed. So each request gives Redis its deadline, the moment the worker stops
waiting, on Redis's clock (from this process's monotonic clock and the least
Redis's clock can be ahead of it, learned from each answer): past it, the
script takes nothing. A lease whose answer was lost, or that could not be
given back, is given back at the worker's next exchange with Redis.

When Redis cannot be reached the worker's own count decides alone (the limit
fails open to the per-worker one), with the rate limit's bookkeeping
(:class:`catalog.web.ratelimit.RedisOutage`): one WARNING per interval, Redis
asked again once a second.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import cast

from catalog.web.ratelimit import SOCKET_TIMEOUT, RedisStore, redis_key

KEY_PREFIX = "svc:oai-leases:"
MAX_UNRETURNED = 1000  # leases a worker remembers to give back; any more lapse on their own

# Past the caller's deadline take nothing (-1). Else drop the lapsed leases, count, add one below the limit (0 when
# at it) and expire the key with its last lease. Redis's clock goes back with the answer.
_REDIS_TAKE = """
local time = redis.call('TIME')
local now = tonumber(time[1]) + tonumber(time[2]) / 1000000
local limit, lifetime, deadline = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[4])
if now > deadline then return {-1, time[1], time[2]} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
if held >= limit then return {0, time[1], time[2]} end
redis.call('ZADD', KEYS[1], now + lifetime, ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], math.ceil(tonumber(last[2]) * 1000))
return {held + 1, time[1], time[2]}
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

        While Redis cannot be asked, or answers only after the deadline it
        was given, the lease holds nothing, and the caller's per-worker count
        is the only limit.
        """
        store = self.store
        key = redis_key(KEY_PREFIX, client)
        if store.outage.resting():
            return Lease(self, key, "")
        member = secrets.token_hex(8)
        asked_at = store.outage.clock()
        try:
            self._give_back_unreturned()
            ahead = store.clock_ahead if store.clock_ahead is not None else self._learn_clock()
            deadline = time.monotonic() + SOCKET_TIMEOUT + ahead  # on Redis's clock, no later than we give up
            held, seconds, microseconds = self._take(
                keys=[key], args=[limit, repr(self.lifetime), member, repr(deadline)]
            )
        except store.errors as error:
            self._give_back_later(key, member)  # the answer was lost: the lease may have been taken in time
            store.outage.failed(error, asked_at)
            return Lease(self, key, "")
        self._learned(int(seconds), int(microseconds))
        store.outage.answered(asked_at)
        if held < 0:  # Redis ran it past the deadline: nothing taken
            return Lease(self, key, "")
        return Lease(self, key, member) if held else None

    def leave(self, lease: Lease) -> None:
        """Give ``lease`` back; if Redis cannot be asked now, at the next exchange (it lapses anyway)."""
        if not lease.member:
            return
        if self.store.outage.resting():
            self._give_back_later(lease.key, lease.member)
            return
        asked_at = self.store.outage.clock()
        try:
            self.store.client.zrem(lease.key, lease.member)
        except self.store.errors as error:
            self._give_back_later(lease.key, lease.member)
            self.store.outage.failed(error, asked_at)
            return
        self.store.outage.answered(asked_at)

    def _learn_clock(self) -> float:
        """Ask Redis's clock (once per process: afterwards every answer brings it)."""
        seconds, microseconds = cast(tuple[int, int], self.store.client.time())
        return self._learned(seconds, microseconds)

    def _learned(self, seconds: int, microseconds: int) -> float:
        """Redis's clock as it answered: it is ahead of ours by at least that minus now (read after the answer)."""
        self.store.clock_ahead = seconds + microseconds / 1_000_000 - time.monotonic()
        return self.store.clock_ahead

    def _give_back_later(self, key: str, member: str) -> None:
        unreturned = self.store.unreturned
        unreturned.append((key, member))
        del unreturned[:-MAX_UNRETURNED]

    def _give_back_unreturned(self) -> None:
        """Give back the leases this process could not; any taken in time is there by now (its deadline passed)."""
        unreturned, self.store.unreturned = self.store.unreturned, []
        if not unreturned:
            return
        pipeline = self.store.client.pipeline(transaction=False)
        for key, member in unreturned:
            pipeline.zrem(key, member)
        try:
            pipeline.execute()
        except self.store.errors:
            self.store.unreturned[:0] = unreturned
            raise
