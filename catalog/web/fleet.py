"""The release the replicas of a fleet serve, shared through the Redis of the OAI-PMH limits (``SVC_CACHE_URL``).

A replica records its release's activation time in Redis when it starts or
reloads. A replica that still holds an older release once a newer one is
active in the fleet — a Kubernetes rollout or a round of reloads that ran
late, its old pods still in rotation — answers harvesters no more (HTTP 503),
and a replica that starts after its release's activation time while the
fleet still recorded an older release says it was late (docs/oai-pmh.md,
"Incremental harvesting"). The last replica to start or reload wins, so a
rollback to an older release is recorded as what the fleet serves.

One data set per Redis (or per database number): replicas of two data sets
sharing one would take each other's releases for their own. While Redis is
unreachable every replica decides alone (with the rate limit's outage
bookkeeping: asked again once a second, one WARNING per interval).
"""

from __future__ import annotations

from typing import cast

from catalog.web.ratelimit import Limits, RedisStore

RELEASE_KEY = "svc:release:activation"


class FleetRelease:
    """The activation time of the release a replica of the fleet started or reloaded with last."""

    def __init__(self, store: RedisStore) -> None:
        self.store = store

    def publish(self, activation: int) -> int | None:
        """Record the release this replica serves; the one recorded before (None: none, or Redis unreachable)."""
        store = self.store
        if store.outage.resting():
            return None
        asked_at = store.outage.clock()
        try:
            previous = cast(bytes | None, store.client.set(RELEASE_KEY, activation, get=True))
        except store.errors as error:
            store.outage.failed(error, asked_at)
            return None
        store.outage.answered(asked_at)
        return _activation(previous)

    def newest(self) -> int | None:
        """The release the fleet serves (None: none recorded, or Redis unreachable)."""
        store = self.store
        if store.outage.resting():
            return None
        asked_at = store.outage.clock()
        try:
            recorded = cast(bytes | None, store.client.get(RELEASE_KEY))
        except store.errors as error:
            store.outage.failed(error, asked_at)
            return None
        store.outage.answered(asked_at)
        return _activation(recorded)


def _activation(recorded: bytes | None) -> int | None:
    """An activation time read back from Redis; anything else under the key (another program's) is none."""
    try:
        return None if recorded is None else int(recorded)
    except ValueError:
        return None


def fleet_release(limits: Limits, cache_url: str | None) -> FleetRelease | None:
    """The fleet's release record in the Redis of ``cache_url`` (None: no Redis, each replica on its own)."""
    store = limits.store_for(cache_url) if cache_url else None
    return FleetRelease(store) if isinstance(store, RedisStore) else None
