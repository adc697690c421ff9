"""Data releases that harvesters can trust, tried as aggregators harvest: Sickle and oaipmh-scythe over a
real `svc serve` while the data changes, is stamped and reloaded (SIGHUP), one replica or two behind nginx.

The oracle is what the repository publishes, read by full harvests before and
after a release: an incremental harvest ``from=<responseDate of the last
run>`` must receive exactly the items whose published form changed (their
sets, or their metadata in any format), deletions as deleted headers.
"""

from __future__ import annotations

import calendar
import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sickle import Sickle

from bench.nginx_proxy import NGINX
from tests.conftest import CORPUS_DIR, START_DEADLINE, SVC, Server, free_port, start_server, stop_server
from tests.oai_support import HIGH_LIMITS_ENV
from tests.release_support import (
    OAI_PATH,
    RELEASE_LEAD,
    changed_between,
    data_version,
    edit_json,
    interrupted_harvest,
    largest_records_file,
    make_corpus,
    publish,
    records_file,
    reload,
    response_date,
    scythe_incremental,
    sickle_incremental,
    snapshot,
    stamp,
    suffix_of,
    switch,
    wait_until_served,
)

PROJECT_EDITED = "0102"  # its own file changes
PERSON = "person-001"  # a creator of 0101: its metadata changes through the person
ORGANIZATION = "organization-003"  # named by 0108
PROJECT_REMOVED = "0110"
EMPTIED = "0803"  # the project with records: its records file is removed in the last release


def copy_corpus(destination: Path) -> Path:
    shutil.copytree(CORPUS_DIR, destination)
    return destination


def project_file(data_dir: Path, shortcode: str) -> Path:
    return next((data_dir / "projects").glob(f"{shortcode}_*.json"))


def serve(data_dir: Path, **env: str) -> Server:
    return start_server(data_dir, {**HIGH_LIMITS_ENV, "SVC_WORKERS": "1", **env})


@pytest.mark.slow  # a corpus stamped, served and harvested around a release: a minute under load
def test_an_incremental_harvest_gets_exactly_what_a_release_changed_also_through_linked_entities(tmp_path: Path):
    data_dir = copy_corpus(tmp_path / "data")
    stamp(data_dir)
    server = serve(data_dir)
    oai_url = server.base_url + OAI_PATH
    try:
        before = snapshot(oai_url)

        # The edits of a release: a project's own file, a linked person, a linked organization, deletions.
        edit_json(project_file(data_dir, PROJECT_EDITED), lambda project: project.update(name="An edited name"))
        edit_json(data_dir / "persons" / f"{PERSON}.json", lambda person: person.update(givenNames=["Renamed"]))
        edit_json(data_dir / "organizations" / f"{ORGANIZATION}.json", lambda org: org.update(name="Renamed Org"))
        project_file(data_dir, PROJECT_REMOVED).unlink()
        removed_record = {}
        edit_json(records_file(data_dir, EMPTIED), lambda records: removed_record.update(records.pop(10)))
        summary = stamp(data_dir, RELEASE_LEAD)
        # A harvest between the stamp and the reload (the 08:26:37): its responseDate is the next `from`.
        last_run = response_date(oai_url)
        switch(summary, server.process, server.output, server.base_url, timeout=300)
        after = snapshot(oai_url)

        expected = changed_between(before, after)
        ids = {suffix_of(identifier): identifier for identifier in after}
        # The linked changes reached these items (their metadata changed), the removals are deletions.
        for shortcode in ("0101", "0108", PROJECT_EDITED):
            assert expected.get(ids[shortcode]) is False, shortcode
        assert expected.get(ids[PROJECT_REMOVED]) is True
        assert expected.get(ids[suffix_of(removed_record["pid"])]) is True

        for prefix, verb in (("oai_dc", "ListIdentifiers"), ("oai_datacite", "ListRecords")):
            received = sickle_incremental(oai_url, last_run, prefix, verb)
            assert received.duplicates == []
            assert received.as_dict() == expected, (prefix, verb)
        received = scythe_incremental(oai_url, last_run)
        assert received.duplicates == [] and received.as_dict() == expected
    finally:
        stop_server(server)


def refused_start(data_dir: Path) -> list[str]:
    """``svc serve`` on data it must refuse: exit status 1 and the one line saying why."""
    port = free_port()
    env = {**HIGH_LIMITS_ENV, "SVC_DATA_DIR": str(data_dir), "FRAMEWORK_SITE_ADDR": f"127.0.0.1:{port}"}
    refused = subprocess.run([SVC, "serve"], env=env, capture_output=True, text=True, timeout=300, check=False)
    assert refused.returncode == 1, refused.stderr[-2000:]
    return [line for line in refused.stderr.splitlines() if "start refused" in line]


@pytest.mark.slow  # a corpus stamped, served, reloaded and started three times: minutes under load
def test_a_mass_deletion_is_refused_until_its_release_is_accepted_then_every_start_serves_it(tmp_path: Path):
    data_dir = copy_corpus(tmp_path / "data")
    stamp(data_dir)
    server = serve(data_dir)
    oai_url = server.base_url + OAI_PATH
    try:
        before = snapshot(oai_url)
        last_run = response_date(oai_url)
        records = json.loads(records_file(data_dir, EMPTIED).read_text())
        records_file(data_dir, EMPTIED).unlink()
        summary = stamp(data_dir, RELEASE_LEAD)
        reload(server.process, server.output, server.base_url)
        assert "reload refused: it would lose records" in server.output()
    finally:
        stop_server(server)

    # A restart would publish it: refused the same way, in one line, exit 1, saying how to accept it.
    lines = refused_start(data_dir)
    assert len(lines) == 1 and "records" in lines[0] and "svc stamp --accept-shrink" in lines[0]

    # Accepted once, for this release: the ledger keeps its bytes, and every later start serves it, without a flag.
    ledger_bytes = (data_dir / ".svc" / "ledger.tsv").read_bytes()
    accepted = stamp(data_dir, RELEASE_LEAD, "--accept-shrink")
    assert accepted.endswith(f"withdrawals of the release of {summary.rsplit(' ', 1)[1]} accepted"), accepted
    assert (data_dir / ".svc" / "ledger.tsv").read_bytes() == ledger_bytes
    served = []
    for _ in range(2):
        server = serve(data_dir)
        try:
            oai_url = server.base_url + OAI_PATH
            wait_until_served(oai_url, timeout=RELEASE_LEAD + 60)
            served.append(snapshot(oai_url))
            headers = list(Sickle(oai_url, max_retries=0).ListIdentifiers(metadataPrefix="oai_dc"))
            in_set = [
                (header.identifier, header.deleted)
                for header in Sickle(oai_url, max_retries=0).ListIdentifiers(
                    metadataPrefix="oai_dc", set=f"project:{EMPTIED}"
                )
            ]
            received = sickle_incremental(oai_url, last_run)
        finally:
            stop_server(server)
        assert len(in_set) == len({record["pid"] for record in records}) and all(deleted for _, deleted in in_set)
        assert received.duplicates == [] and received.as_dict() == changed_between(before, served[-1])
        served.append({header.identifier: header.datestamp for header in headers})
    assert served[0] == served[2] and served[1] == served[3]  # a restart changes nothing, datestamps included

    # A new withdrawal, not accepted, is refused again (the acceptance named the release before).
    for path in sorted((data_dir / "projects").glob("*.json"))[:60]:
        path.unlink()
    stamp(data_dir)
    lines = refused_start(data_dir)
    assert len(lines) == 1 and "projects" in lines[0], lines


@pytest.mark.slow  # full harvests across two releases: a minute or more each
@pytest.mark.parametrize("corpus", ["real", "generated"])
def test_a_full_harvest_interrupted_by_two_releases_gets_every_item_once(corpus: str, tmp_path: Path):
    data_dir = tmp_path / "data"
    if corpus == "real":
        copy_corpus(data_dir)
        shortcode, person = EMPTIED, PERSON
    else:  # the generated corpus's shapes; bench/releases.py runs the same with 100k records and more
        make_corpus(data_dir, 6000)
        shortcode = largest_records_file(data_dir)
        person = sorted(path.stem for path in (data_dir / "persons").glob("*.json"))[0]
    stamp(data_dir)
    server = serve(data_dir, SVC_OAI_PAGE_SIZE="500")
    try:
        report = interrupted_harvest(data_dir, server.base_url, reload_of(server, data_dir), shortcode, person)
    finally:
        stop_server(server)
    assert report.duplicated == []  # no item twice
    assert report.missed == set()  # nothing of the final release skipped
    assert report.unexpected <= report.withdrawn  # only what was delivered before it went
    assert report.withdrawn <= report.harvest.deleted()  # and every deletion arrives as a deleted header
    # The item added meanwhile, and every change, reach the next incremental harvest.
    assert report.incremental.duplicates == [] and report.incremental.as_dict() == report.changed
    assert report.added <= set(report.incremental.as_dict())
    assert not report.added & set(report.harvest.live())  # first published after the list began: not in it


def reload_of(server: Server, data_dir: Path) -> Callable[[], str]:
    return lambda: publish(data_dir, server.process, server.output, server.base_url)


NGINX_CONF = """daemon off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
{user}events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {root}/tmp; proxy_temp_path {root}/tmp; fastcgi_temp_path {root}/tmp;
    uwsgi_temp_path {root}/tmp; scgi_temp_path {root}/tmp;
    upstream replicas {{ server 127.0.0.1:{first}; server 127.0.0.1:{second}; }}
    server {{
        listen 127.0.0.1:{port};
        location / {{ proxy_pass http://replicas; proxy_next_upstream off; }}
    }}
}}
"""


@pytest.mark.nginx
@pytest.mark.skipif(not Path(NGINX).exists(), reason="Debian's nginx is not installed")
def test_a_harvester_alternating_between_two_replicas_switching_one_after_the_other_misses_nothing(tmp_path: Path):
    staging = copy_corpus(tmp_path / "staging")
    stamp(staging)
    replicas = [tmp_path / "replica-1", tmp_path / "replica-2"]
    for replica in replicas:
        shutil.copytree(staging, replica)
    servers = [serve(replica) for replica in replicas]
    root = tmp_path / "nginx"
    (root / "tmp").mkdir(parents=True)
    port = free_port()
    ports = [server.base_url.rsplit(":", 1)[1] for server in servers]
    user = "user root;\n" if os.geteuid() == 0 else ""
    (root / "nginx.conf").write_text(
        NGINX_CONF.format(root=root, user=user, first=ports[0], second=ports[1], port=port)
    )
    nginx = subprocess.Popen([NGINX, "-p", str(root), "-c", str(root / "nginx.conf"), "-e", str(root / "error.log")])
    oai_url = f"http://127.0.0.1:{port}{OAI_PATH}"
    try:
        _wait_for(oai_url)
        before = snapshot(servers[0].base_url + OAI_PATH)
        received: dict[str, bool] = {}
        since = response_date(oai_url)

        def harvest_once() -> None:
            nonlocal since
            run = sickle_incremental(oai_url, since)  # through nginx: each run's requests alternate replicas
            received.update(run.items)
            since = run.response_date

        edit_json(project_file(staging, PROJECT_EDITED), lambda project: project.update(name="An edited name"))
        edit_json(data_dir_person(staging), lambda person: person.update(givenNames=["Renamed"]))
        edit_json(records_file(staging, EMPTIED), lambda records: records[:3] + records[4:])
        # Long enough for both replicas to load the release before it activates (and their old workers to stop).
        old_version = data_version(servers[0].base_url)
        summary = stamp(staging, activate_in=45)
        assert "served from" in summary
        for server, replica in zip(servers, replicas, strict=True):
            harvest_once()
            shutil.rmtree(replica)
            shutil.copytree(staging, replica)  # rsync to this replica …
            # … and SIGHUP it; the other replica still serves the old release.
            assert "until its activation" in reload(server.process, server.output, server.base_url)
            assert data_version(server.base_url) == old_version  # loaded, but not served before its time
            harvest_once()
            harvest_once()
        activation = calendar.timegm(time.strptime(summary.rsplit(" ", 1)[1], "%Y-%m-%dT%H:%M:%SZ"))
        while time.time() < activation + 2:  # the replicas switch at the activation time, each on its own
            harvest_once()
            time.sleep(1)
        harvest_once()
        harvest_once()
        after = snapshot(servers[1].base_url + OAI_PATH)
        assert snapshot(servers[0].base_url + OAI_PATH) == after
        expected = changed_between(before, after)
        assert expected and {identifier: received[identifier] for identifier in expected} == expected
    finally:
        nginx.terminate()
        nginx.wait(timeout=10)
        for server in servers:
            stop_server(server)


def data_dir_person(data_dir: Path) -> Path:
    return data_dir / "persons" / f"{PERSON}.json"


def _wait_for(url: str) -> None:
    end = time.monotonic() + START_DEADLINE
    while time.monotonic() < end:
        try:
            response_date(url)
            return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(url)
