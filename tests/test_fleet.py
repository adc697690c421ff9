"""The deploy/ fleet on this machine: nginx (deploy/nginx.conf) before three `svc serve` replicas sharing a Redis.

Real processes started here (bench/fleet.py): `redis-server`, the replicas on a
stamped copy of the real corpus behind a `current` link, and Debian's nginx
with the shipped configuration (only the replicas' addresses and the port
replaced). Clients go through the proxy; nginx's access log says which replica
answered. Requests held in flight for the concurrency limit go through a second
nginx with the same configuration that passes request bodies on as they come.
The phases run in this file's order on one fleet, each leaving it whole (a
killed replica is started again, Redis too).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.fleet import (
    BURST,
    LEASE_SECONDS,
    MAX_CONCURRENT,
    Fleet,
    kill_under_load,
    killed_with_leases,
    limits,
    redis_outage,
    rolling_release,
)
from bench.nginx_proxy import NGINX
from tests.conftest import CORPUS_DIR

CLIENTS = 6  # sequential harvesters loading the proxy, each from its own address

pytestmark = [
    pytest.mark.nginx,
    pytest.mark.redis,
    pytest.mark.slow,  # three replicas of the real corpus, a replica killed and restarted, a release rolled
    pytest.mark.skipif(not Path(NGINX).exists(), reason="Debian's nginx is not installed"),
]


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    fleet = Fleet(tmp_path_factory.mktemp("fleet"), CORPUS_DIR, replicas=3)
    yield fleet
    fleet.close()


def test_a_client_over_the_oai_limits_gets_503_and_retry_after_from_every_replica(fleet: Fleet):
    result = limits(fleet)
    names = {replica.name for replica in fleet.replicas}

    # Requests that overlap one held on their replica pay one bucket for the whole fleet:
    # BURST are served in all (not BURST per replica), then every replica refuses.
    assert [answer.status for answer in result.rate] == [200] * BURST + [503] * (len(result.rate) - BURST)
    refused = result.rate[BURST:]
    assert {answer.replica for answer in refused} == names
    assert all(answer.retry_after is not None and int(answer.retry_after) >= 1 for answer in refused)

    # More requests of one client at once than SVC_OAI_MAX_CONCURRENT, spread by nginx over the replicas (more than
    # the limit on each): the limit admits that many in the whole fleet, not per replica, and every replica refuses.
    at_once = result.concurrency
    refusals = len(at_once.replies) - MAX_CONCURRENT
    assert Counter(at_once.replies) == {(200, None): MAX_CONCURRENT, (503, "1"): refusals}
    assert sum(at_once.answered.values()) == len(at_once.replies)
    assert {replica for replica, status in at_once.answered if status == 503} == names
    assert at_once.leases_held == MAX_CONCURRENT  # one lease in Redis per admitted request in flight
    assert at_once.leases_after == 0  # each given back when its request ended
    # A refusal is final: nginx does not pass a 503 on to another replica.
    assert {answer.asked for answer in result.rate} == at_once.asked == {1}


def test_a_killed_replica_holds_its_clients_places_until_their_leases_lapse_and_no_longer(fleet: Fleet):
    result = killed_with_leases(fleet, fleet.replicas[-1], LEASE_SECONDS)

    # The dead replica's requests keep their places for SVC_OAI_LEASE_SECONDS at most.
    assert len(result.lapse_at) == MAX_CONCURRENT
    assert all(result.killed_at < lapse <= result.killed_at + LEASE_SECONDS for lapse in result.lapse_at)
    # Meanwhile another replica refuses the client, as if the requests were still running ...
    assert result.right_after == (503, "1")
    # ... but only while they hold all the places: once one lapses (on Redis's clock), the client is admitted.
    assert result.last_refused_sent_at < min(result.lapse_at) <= result.admitted_at
    assert fleet.replicas[-1].data_version() == fleet.replicas[0].data_version()  # started again, serving


def test_killing_a_replica_under_load_costs_clients_no_request(fleet: Fleet):
    victim = fleet.replicas[1]
    result = kill_under_load(fleet, victim, CLIENTS, seconds=4)

    # Every request is answered, by another replica if need be, except a response the killed replica
    # was sending at that moment: nginx had passed its headers on and can no longer retry it.
    assert len(result.load.errors) == len(result.cut_in_transit) <= CLIENTS
    assert all(error.startswith("IncompleteRead") for error in result.load.errors)
    assert result.answered[victim.name] > 0, "the killed replica served before it died"
    assert result.after_kill > 0, "the load went on after the kill"
    assert victim.data_version() == fleet.replicas[0].data_version()  # started again, serving


def test_with_redis_down_the_fleet_serves_and_the_limit_fails_open_until_redis_is_back(fleet: Fleet):
    result = redis_outage(fleet, CLIENTS)
    names = {replica.name for replica in fleet.replicas}

    assert result.load.errors == []
    # Twice BURST and more overlapping requests of one client: all served while Redis is down.
    assert len(result.down) > 2 * BURST and {answer.status for answer in result.down} == {200}
    # One WARNING per replica for the whole outage, not one per request; no traceback.
    assert result.warnings == dict.fromkeys(names, 1)
    assert result.log_errors == []  # no ERROR line, no traceback (a refused client is INFO)
    # Redis back: the shared limit applies again on every replica, and each says so once.
    assert [answer.status for answer in result.back] == [200] * BURST + [503] * (len(result.back) - BURST)
    assert {answer.replica for answer in result.back[BURST:]} == names
    assert result.recovered == dict.fromkeys(names, 1)


def test_a_release_rolled_through_the_fleet_under_load_costs_clients_no_request(fleet: Fleet):
    before = fleet.replicas[0].data_version()
    result = rolling_release(fleet, 2, CLIENTS)

    assert result.load.errors == []
    assert result.log_errors == []  # a reload is INFO: no ERROR line, no traceback
    assert result.late == []  # every replica loaded the release before its activation time, and switched then
    assert result.version != before
    assert result.serving == {replica.name: result.version for replica in fleet.replicas}
