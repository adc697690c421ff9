"""A release's OAI-PMH view is a fact of its ledger, whatever process serves it and whenever it started.

Every test here starts real servers over the real corpus, and most wait for a release's activation time:
the module is marked slow (left out by scripts/test --quick, kept in the suite).

Real `svc serve` processes, stopped, restarted and started side by side, on
the real corpus; harvested with Sickle over HTTP. Every response is compared
byte for byte, but for what names the moment (responseDate, and the
resumption token, which carries the moment its list began).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from email.utils import parsedate_to_datetime
from pathlib import Path

import pytest
from lxml import etree

from bench.fleet import Redis
from tests.conftest import CORPUS_DIR, SVC, Server, start_server, stop_server
from tests.oai_support import HIGH_LIMITS_ENV
from tests.release_support import (
    OAI,
    OAI_PATH,
    RELEASE_LEAD,
    activation_of,
    edit_json,
    records_file,
    reload,
    sickle_incremental,
    stamp,
    switch,
)

EDITED = "0803"  # the project with most records

pytestmark = pytest.mark.slow


def serve(data_dir: Path, **env: str) -> Server:
    return start_server(data_dir, {**HIGH_LIMITS_ENV, "SVC_WORKERS": "1", "SVC_OAI_PAGE_SIZE": "100", **env})


def oai(base_url: str, **arguments: str) -> bytes:
    query = urllib.parse.urlencode(arguments)
    with urllib.request.urlopen(f"{base_url}{OAI_PATH}?{query}", timeout=60) as response:
        return response.read()


def without_moment(body: bytes) -> bytes:
    """The response less what names the moment it was given at."""
    body = re.sub(rb"<responseDate>[^<]*</responseDate>", b"", body)
    body = re.sub(rb' resumptionToken="[^"]*"', b"", body)  # the request's
    return re.sub(rb"(<resumptionToken[^>]*expirationDate=\")[^\"]*(\"[^>]*>)[^<]*", rb"\1\2", body)


def token_of(body: bytes) -> str:
    found = etree.fromstring(body).find(f".//{OAI}resumptionToken")
    assert found is not None and found.text, body[-500:]
    return found.text


def datestamps(body: bytes) -> list[str]:
    return [element.text or "" for element in etree.fromstring(body).iter(f"{OAI}datestamp")]


def response_date(body: bytes) -> str:
    return etree.fromstring(body).findtext(f"{OAI}responseDate") or ""


def pages(base_url: str) -> list[bytes]:
    """What a harvester reads of the whole repository: Identify, ListSets, every ListIdentifiers page, records."""
    bodies = [oai(base_url, verb="Identify"), oai(base_url, verb="ListSets")]
    body = oai(base_url, verb="ListIdentifiers", metadataPrefix="oai_dc")
    bodies.append(body)
    while b"</resumptionToken>" in body:
        body = oai(base_url, verb="ListIdentifiers", resumptionToken=token_of(body))
        bodies.append(body)
    bodies.append(oai(base_url, verb="ListRecords", metadataPrefix="oai_datacite", set=f"project:{EDITED}"))
    return bodies


def copy_corpus(destination: Path) -> Path:
    shutil.copytree(CORPUS_DIR, destination)
    return destination


def test_a_restart_mid_list_changes_no_datestamp_and_the_list_goes_on_without_a_gap(tmp_path: Path):
    data_dir = copy_corpus(tmp_path / "data")
    stamp(data_dir)  # before any replica serves it: at once
    server = serve(data_dir)
    try:
        first = oai(server.base_url, verb="ListIdentifiers", metadataPrefix="oai_dc")
        identify = oai(server.base_url, verb="Identify")
        before = pages(server.base_url)
    finally:
        stop_server(server)
    server = serve(data_dir)  # SIGTERM, start: the same release
    try:
        identifiers = [element.text for element in etree.fromstring(first).iter(f"{OAI}identifier")]
        stamps = datestamps(first)
        body = first
        while b"</resumptionToken>" in body:  # the token issued before the restart goes on after it
            body = oai(server.base_url, verb="ListIdentifiers", resumptionToken=token_of(body))
            identifiers += [element.text for element in etree.fromstring(body).iter(f"{OAI}identifier")]
            stamps += datestamps(body)
        after = pages(server.base_url)
        incremental = sickle_incremental(server.base_url + OAI_PATH, response_date(first))
    finally:
        stop_server(server)
    everything = [
        identifier.text for page in before[2:-1] for identifier in etree.fromstring(page).iter(f"{OAI}identifier")
    ]
    assert len(identifiers) == len(set(identifiers)) == len(everything)  # no item skipped or repeated
    assert identifiers == everything
    assert [without_moment(page) for page in after] == [without_moment(page) for page in before]
    assert without_moment(identify) == without_moment(after[0])  # earliestDatestamp included
    assert incremental.items == []  # nothing changed: the next incremental run receives nothing


def test_two_replicas_started_apart_answer_the_same_bytes(tmp_path: Path):
    data_dir = copy_corpus(tmp_path / "data")
    stamp(data_dir)
    replicas = [tmp_path / "replica-1", tmp_path / "replica-2"]
    shutil.copytree(data_dir, replicas[0])
    first = serve(replicas[0])
    started = time.time()
    shutil.copytree(data_dir, replicas[1])
    while time.time() < started + 3:  # a start that falls in a later second than the first one's
        time.sleep(0.1)
    second = serve(replicas[1])
    try:
        one, two = pages(first.base_url), pages(second.base_url)
        # Tokens of one replica continue on the other.
        token = token_of(oai(first.base_url, verb="ListIdentifiers", metadataPrefix="oai_dc"))
        continued = [oai(server.base_url, verb="ListIdentifiers", resumptionToken=token) for server in (first, second)]
    finally:
        stop_server(first)
        stop_server(second)
    assert len(one) > 5
    assert [without_moment(page) for page in one] == [without_moment(page) for page in two]
    assert without_moment(continued[0]) == without_moment(continued[1])


def test_a_first_start_before_the_activation_serves_pages_but_no_datestamp_ahead_of_its_response(tmp_path: Path):
    data_dir = copy_corpus(tmp_path / "data")
    summary = stamp(data_dir, 300)  # svc stamp's default
    activation = activation_of(summary)
    server = serve(data_dir)
    try:
        try:
            asked = time.time()
            oai(server.base_url, verb="Identify")
            raise AssertionError("OAI-PMH answered before the release's activation time")
        except urllib.error.HTTPError as error:
            answered = time.time()
            assert error.code == 503
            assert activation - answered - 1 <= int(error.headers["Retry-After"]) <= activation - asked + 1
            assert "served over OAI-PMH from" in error.read().decode()
        with urllib.request.urlopen(f"{server.base_url}/projects/{EDITED}", timeout=60) as response:
            assert response.status == 200
            modified = parsedate_to_datetime(response.headers["Last-Modified"])
            assert modified <= parsedate_to_datetime(response.headers["Date"])  # RFC 9110 §8.8.2.1
        server.wait_for_output("is not active yet")
    finally:
        stop_server(server)


def test_a_first_start_after_the_activation_dates_everything_with_it_not_later_than_any_response(tmp_path: Path):
    data_dir = copy_corpus(tmp_path / "data")
    activation = activation_of(stamp(data_dir, 2))
    while time.time() < activation:
        time.sleep(0.1)
    server = serve(data_dir)
    try:
        identify = oai(server.base_url, verb="Identify")
        listed = oai(server.base_url, verb="ListIdentifiers", metadataPrefix="oai_dc")
    finally:
        stop_server(server)
    earliest = etree.fromstring(identify).findtext(f"{OAI}Identify/{OAI}earliestDatestamp")
    assert earliest == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(activation))
    assert earliest <= response_date(identify)
    assert max(datestamps(listed)) <= response_date(listed)


def test_a_reload_after_the_activation_says_how_late_it_is_and_keeps_the_release_s_datestamps(tmp_path: Path):
    data_dir = copy_corpus(tmp_path / "data")
    stamp(data_dir)
    server = serve(data_dir)
    try:
        edit_json(records_file(data_dir, EDITED), lambda records: records[0].update(label={"en": "late"}))
        activation = activation_of(stamp(data_dir, 0))
        while time.time() < activation + 2:  # the replica still serves the release before after this
            time.sleep(0.1)
        said = reload(server.process, server.output, server.base_url)
        assert "reloaded data version" in said
        warning = re.search(r"WARNING.*release of (\S+) served (\d+) s after its activation time", server.output())
        assert warning, server.output()[-3000:]
        assert int(warning.group(2)) >= 2
        assert warning.group(1) == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(activation))
        since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(activation))
        listed = oai(server.base_url, verb="ListIdentifiers", metadataPrefix="oai_dc", **{"from": since})
    finally:
        stop_server(server)
    # Its one change carries the release's activation time, as on every other replica: not re-dated here.
    assert datestamps(listed) == [since]


def test_a_reload_ahead_of_the_activation_switches_at_it_without_a_warning(tmp_path: Path):
    data_dir = copy_corpus(tmp_path / "data")
    stamp(data_dir)
    server = serve(data_dir, SVC_WORKERS="2")
    try:
        edit_json(records_file(data_dir, EDITED), lambda records: records[0].update(label={"en": "in time"}))
        summary = stamp(data_dir, RELEASE_LEAD)
        switch(summary, server.process, server.output, server.base_url, timeout=300)
        since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(activation_of(summary)))
        listed = oai(server.base_url, verb="ListIdentifiers", metadataPrefix="oai_dc", **{"from": since})
    finally:
        stop_server(server)
    assert "after its activation time" not in server.output()
    assert datestamps(listed) == [since]


def test_a_record_dated_in_the_future_is_warned_about_and_served_with_the_release_s_time(tmp_path: Path):
    data_dir = copy_corpus(tmp_path / "data")
    records = json.loads(records_file(data_dir, EDITED).read_text(encoding="utf-8"))
    records[0]["dateModified"] = "2030-01-01T00:00:00Z"
    records_file(data_dir, EDITED).write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    validated = subprocess.run(
        [SVC, "validate", str(data_dir), "--format", "json"], capture_output=True, text=True, timeout=300, check=False
    )
    report = json.loads(validated.stdout)
    future = [warning for warning in report["warnings"] if warning["check"] == "future-date"]
    assert future == [
        {
            "file": f"records/{EDITED}-records.json",
            "path": "[0].dateModified",
            "message": future[0]["message"],
            "check": "future-date",
        }
    ]
    assert "2030-01-01T00:00:00Z is in the future" in future[0]["message"]

    activation = activation_of(stamp(data_dir))
    server = serve(data_dir)
    try:
        body = oai(server.base_url, verb="ListIdentifiers", metadataPrefix="oai_dc", set=f"project:{EDITED}")
    finally:
        stop_server(server)
    assert "2030" not in body.decode()
    assert max(datestamps(body)) == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(activation))
    assert max(datestamps(body)) <= response_date(body)


@pytest.mark.redis
def test_replicas_sharing_redis_stop_answering_from_a_release_the_fleet_has_left(tmp_path: Path):
    """A rollout that runs late: an old replica still in rotation after a newer release activated elsewhere."""
    redis = Redis()
    old, new = copy_corpus(tmp_path / "old"), tmp_path / "new"
    stamp(old)
    shutil.copytree(old, new)
    edit_json(records_file(new, EDITED), lambda records: records[0].update(label={"en": "release 2"}))
    env = {"SVC_CACHE_URL": redis.url}
    servers = [serve(old, **env)]
    try:
        assert oai_status(servers[0].base_url) == 200
        activation = activation_of(stamp(new, RELEASE_LEAD))
        servers.append(serve(new, **env))  # a new pod (whether it starts before the activation time or not)
        while time.time() < activation:
            time.sleep(0.1)
        assert oai_status(servers[1].base_url) == 200
        assert oai_status(servers[0].base_url) == 503  # behind the fleet: harvesters ask again elsewhere
        servers[0].wait_for_output("but the fleet serves the release of")
        # A restart of the same release later is not late; a release started after its activation time while
        # the fleet still recorded the one before is, and says so.
        servers.append(serve(new, **env))
        edit_json(records_file(new, EDITED), lambda records: records[0].update(label={"en": "release 3"}))
        latest = activation_of(stamp(new, 0))
        stop_server(servers.pop(1))
        while time.time() < latest + 2:
            time.sleep(0.1)
        servers.append(serve(new, **env))
    finally:
        for server in servers:
            stop_server(server)
        redis.stop()
    assert "after its activation time" not in servers[1].output()
    warning = re.search(r"WARNING.*release of (\S+) served (\d+) s after its activation time", servers[2].output())
    assert warning and int(warning.group(2)) >= 2, servers[2].output()[-2000:]


def oai_status(base_url: str) -> int:
    try:
        with urllib.request.urlopen(f"{base_url}{OAI_PATH}?verb=Identify", timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
