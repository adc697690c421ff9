"""Per-client rate limit of the OAI-PMH endpoint (SPEC §5.5): a token bucket in Django's cache.

Each client may make ``burst`` requests at once and ``rate`` per second
sustained (GCRA, the token bucket's arithmetic form: one number per client,
the time its bucket will be full again). The number lives in Django's cache,
so with a shared cache (Redis, ``SVC_CACHE_URL``) every replica and worker
counts against the same limit; with the default in-process cache each
process counts alone. Read-modify-write runs under a short lock taken with
the cache's atomic ``add`` (SET NX on Redis), so concurrent requests of one
client are counted exactly. Over the limit the caller answers 503 with
``Retry-After`` (harvesters retry a 503; many give up on a 429).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.core.cache import BaseCache

KEY_PREFIX = "svc:oai-rate:"
_LOCK_TIMEOUT = 1  # seconds; a crashed holder blocks its client at most this long
_LOCK_ATTEMPTS = 50
_LOCK_WAIT = 0.002


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    retry_after: int = 0  # whole seconds until a request will be accepted again


class TokenBucket:
    def __init__(self, cache: BaseCache, rate: float, burst: int, clock: Callable[[], float] = time.time) -> None:
        self.cache = cache
        self.interval = 1.0 / rate  # seconds one request costs
        self.tolerance = burst * self.interval  # how far ahead of now a full burst may run
        self.clock = clock

    def take(self, client: str) -> Decision:
        """Count one request of ``client``; say whether it may be served."""
        key = KEY_PREFIX + hashlib.blake2b(client.encode(), digest_size=12).hexdigest()
        lock = key + ":lock"
        for _ in range(_LOCK_ATTEMPTS):
            if self.cache.add(lock, 1, timeout=_LOCK_TIMEOUT):
                break
            time.sleep(_LOCK_WAIT)
        else:
            # The lock outlived its holder: rather serve than refuse on our own failure.
            return Decision(True)
        try:
            now = self.clock()
            full_at = self.cache.get(key)
            next_full_at = max(full_at if isinstance(full_at, float | int) else now, now) + self.interval
            ahead = next_full_at - now
            if ahead > self.tolerance + 1e-9:
                return Decision(False, max(1, math.ceil(ahead - self.tolerance)))
            self.cache.set(key, next_full_at, timeout=math.ceil(ahead) + 1)
            return Decision(True)
        finally:
            self.cache.delete(lock)
