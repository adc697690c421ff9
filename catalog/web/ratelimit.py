"""Per-client limits of the OAI-PMH endpoint (SPEC §5.5): requests in flight, and a token bucket.

Each client may make ``burst`` requests at once and ``rate`` per second
sustained. The bucket is kept in GCRA form, the token bucket's arithmetic
form: one number per client, the time its bucket will be full again. Over
the limit the caller answers 503 with ``Retry-After`` (harvesters retry a 503;
many give up on a 429).

Where the number lives decides who shares the limit: in the process by
default (each worker counts alone), or in Redis when ``SVC_CACHE_URL`` names
one, so that every worker of every replica counts against the same bucket.
Both update it in one atomic step (a lock in the process, a Lua script in
Redis), so concurrent requests of one client never wait on each other.
When Redis cannot be reached the limit fails open: requests are admitted,
one WARNING per process says so every ``WARN_INTERVAL`` seconds, and Redis is
asked again after ``RETRY_INTERVAL`` seconds (one INFO line when it answers).
The fleet-wide count of requests in flight (:mod:`oaipmh.leases`) keeps its
leases in the same Redis and shares that bookkeeping (:class:`RedisOutage`).
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

KEY_PREFIX = "svc:oai-rate:"
_EPSILON = 1e-9
MAX_LOCAL_CLIENTS = 100_000  # clients whose buckets one process keeps at most
WARN_INTERVAL = 60.0  # s: at most one "Redis unreachable" WARNING per process in this time
RETRY_INTERVAL = 1.0  # s: while Redis fails, requests are admitted without asking it for this long
SOCKET_TIMEOUT = 1.0  # s: how long a request waits for Redis's answer before it gives up on it

logger = logging.getLogger("oaipmh.ratelimit")  # the name operators know these lines by (docs/operations.md)


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    retry_after: int = 0  # whole seconds until a request will be accepted again


class BucketStore(Protocol):
    def take(self, client: str, interval: float, tolerance: float) -> float:
        """Count one request; 0 when allowed, else the seconds to wait."""


def gcra_step(full_at: float | None, now: float, interval: float, tolerance: float) -> tuple[float | None, float]:
    """(the new full-at time, 0) when one more request fits, else (None, seconds to wait)."""
    next_full_at = max(full_at if full_at is not None else now, now) + interval
    ahead = next_full_at - now
    if ahead > tolerance + _EPSILON:
        return None, ahead - tolerance
    return next_full_at, 0.0


class LocalStore:
    """Buckets of this process."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._full_at: dict[str, float] = {}
        self._lock = threading.Lock()

    def take(self, client: str, interval: float, tolerance: float) -> float:
        with self._lock:
            now = self.clock()
            full_at, wait = gcra_step(self._full_at.get(client), now, interval, tolerance)
            if full_at is not None:
                if len(self._full_at) >= MAX_LOCAL_CLIENTS:
                    self._forget_full_buckets(now)
                self._full_at[client] = full_at
            return wait

    def _forget_full_buckets(self, now: float) -> None:
        """Drop the buckets that are full again; under a flood of distinct clients, the older half too.

        A forgotten client starts again with a full burst: the store stays
        bounded whatever number of addresses send requests.
        """
        kept = {client: full_at for client, full_at in self._full_at.items() if full_at > now}
        if len(kept) >= MAX_LOCAL_CLIENTS:
            kept = dict(list(kept.items())[len(kept) // 2 :])
        self._full_at = kept

    def __len__(self) -> int:
        return len(self._full_at)


# gcra_step in Lua, run atomically by Redis on its own clock (one clock for all replicas).
_REDIS_GCRA = """
local time = redis.call('TIME')
local now = tonumber(time[1]) + tonumber(time[2]) / 1000000
local interval, tolerance = tonumber(ARGV[1]), tonumber(ARGV[2])
local full_at = tonumber(redis.call('GET', KEYS[1]) or now)
if full_at < now then full_at = now end
local ahead = full_at + interval - now
if ahead > tolerance + 1e-9 then return tostring(ahead - tolerance) end
redis.call('SET', KEYS[1], string.format('%.6f', full_at + interval), 'PX', math.ceil(ahead * 1000) + 1000)
return '0'
"""


class RedisStore:
    """Buckets shared by every process that uses the same Redis; open (everything admitted) while it is unreachable.

    A harvester must not be refused, nor a request fail, because the limit's
    store is down; the per-worker concurrency limit still bounds a flood.
    """

    def __init__(self, url: str, clock: Callable[[], float] = time.monotonic) -> None:
        import redis  # only deployments with a shared Redis need the client

        self.errors = redis.RedisError
        self.client = redis.Redis.from_url(url, socket_timeout=SOCKET_TIMEOUT)
        self._script = self.client.register_script(_REDIS_GCRA)
        self.outage = RedisOutage(clock)
        # For the leases kept in this Redis (oaipmh.leases): how far Redis's clock is ahead of time.monotonic() at
        # least (learned from its answers), and the leases (key, member) to give back at the next exchange.
        self.clock_ahead: float | None = None
        self.unreturned: list[tuple[str, str]] = []

    def take(self, client: str, interval: float, tolerance: float) -> float:
        if self.outage.resting():
            return 0.0
        asked_at = self.outage.clock()
        try:
            wait = float(self._script(keys=[redis_key(KEY_PREFIX, client)], args=[repr(interval), repr(tolerance)]))
        except self.errors as error:
            self.outage.failed(error, asked_at)
            return 0.0
        self.outage.answered(asked_at)
        return wait


class RedisOutage:
    """When to ask a failing Redis again, and when to say so: one per Redis URL, for every limit kept there.

    After a failure Redis is left alone for ``RETRY_INTERVAL`` so that an
    unresponsive one (a 1 s socket timeout) does not slow every request.

    Requests of one worker ask Redis concurrently, so an answer may come back
    after another request's failure though it was asked before it (and a
    failure after a recovery). Each report carries when its question was
    asked (``asked_at``, on :attr:`clock`): one asked before Redis was last
    found failing, or answering again, is older than what is known and
    changes nothing. Otherwise an answer already on its way when Redis went
    down would say "shared again" at the start of the outage.
    """

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._retry_at = 0.0  # while failing: when to ask Redis again
        self._warned_at: float | None = None  # when the last WARNING was written
        self._failing = False
        self._changed_at = -math.inf  # when Redis was last found failing, or answering again

    def resting(self) -> bool:
        """Whether Redis failed less than ``RETRY_INTERVAL`` ago: not to be asked now."""
        return self._failing and self.clock() < self._retry_at

    def failed(self, error: Exception, asked_at: float) -> None:
        if asked_at < self._changed_at:
            return  # asked before the last news of Redis: not news
        now = self.clock()  # after the failure: a timeout may have taken a second
        if not self._failing:
            self._changed_at = now
        self._failing = True
        self._retry_at = now + RETRY_INTERVAL
        if self._warned_at is None or now - self._warned_at >= WARN_INTERVAL:
            self._warned_at = now
            logger.warning(
                "Redis unreachable (%s): OAI rate limits not applied, concurrent requests counted per worker; "
                "next warning in %d s at the earliest",
                _one_line(str(error)),
                WARN_INTERVAL,
            )

    def answered(self, asked_at: float) -> None:
        if self._failing and asked_at >= self._changed_at:
            self._failing = False
            self._changed_at = self.clock()
            logger.info("OAI rate and concurrency limits are shared through Redis again")


def redis_key(prefix: str, client: str) -> str:
    """The key of ``client``'s entry under ``prefix``: a short digest, whatever the address looks like."""
    return prefix + hashlib.blake2b(client.encode(), digest_size=12).hexdigest()


def _one_line(text: str) -> str:
    return " ".join(text.split())


class TokenBucket:
    def __init__(self, store: BucketStore, rate: float, burst: int) -> None:
        self.store = store
        self.interval = 1.0 / rate  # seconds one request costs
        self.tolerance = burst * self.interval  # how far ahead of now a full burst may run

    def take(self, client: str) -> Decision:
        """Count one request of ``client``; say whether it may be served."""
        wait = self.store.take(client, self.interval, self.tolerance)
        return Decision(True) if wait <= 0 else Decision(False, max(1, math.ceil(wait - _EPSILON)))


class ConcurrencyLimit:
    """Requests of one client in flight in this process, at most ``limit`` at once.

    The rate limit applies only to requests that overlap another of the same
    client, so a harvester that waits for each answer before asking again is
    never refused, however fast it is; a client opening many requests at once
    is refused the ones beyond ``limit`` and pays the rate limit on the others.
    """

    def __init__(self) -> None:
        self._in_flight: dict[str, int] = {}
        self._lock = threading.Lock()

    def enter(self, client: str, limit: int) -> int | None:
        """Count one more request of ``client``: how many it now has in flight, or None if over ``limit``."""
        with self._lock:
            count = self._in_flight.get(client, 0) + 1
            if count > limit:
                return None
            self._in_flight[client] = count
            return count

    def leave(self, client: str) -> None:
        with self._lock:
            count = self._in_flight.pop(client) - 1
            if count:
                self._in_flight[client] = count


class Limits:
    """The OAI-PMH limits of one process: requests in flight, and one bucket store per cache URL.

    Part of the application state (:class:`catalog.runtime.AppState`), kept
    across reloads; tests build their own instead of resetting a module's.
    """

    def __init__(self) -> None:
        self.in_flight = ConcurrencyLimit()
        self._stores: dict[str | None, BucketStore] = {}
        self._lock = threading.Lock()

    def store_for(self, cache_url: str | None) -> BucketStore:
        """One store per cache URL: in-process buckets, or Redis's."""
        store = self._stores.get(cache_url)
        if store is None:
            with self._lock:
                store = self._stores.get(cache_url) or self._stores.setdefault(
                    cache_url, RedisStore(cache_url) if cache_url else LocalStore()
                )
        return store
