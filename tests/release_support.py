"""Harvesting through data releases, as aggregators do: real clients (Sickle, oaipmh-scythe) over HTTP.

Used by tests/test_oai_releases.py (the real corpus and a small generated
one) and by bench/releases.py (a generated corpus of 100k records and more).
What a harvester received is compared with what the repository publishes,
itself read by a full harvest: the oracle is the wire, not svc's own code.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree
from oaipmh_scythe import Scythe
from sickle import Sickle
from sickle.oaiexceptions import NoRecordsMatch

from bench.run import activation_of

SVC = str(Path(sys.executable).parent / "svc")
OAI_PATH = "/dpe/oai"
OAI = "{http://www.openarchives.org/OAI/2.0/}"
PREFIXES = ("oai_dc", "oai_datacite")


# How far ahead a release is stamped when a running replica is to switch to it: it must load the release
# before its activation time (docs/oai-pmh.md, rule 2), even on a busy machine.
RELEASE_LEAD = 40


def stamp(data_dir: Path, activate_in: int = 0, *options: str) -> str:
    """``svc stamp`` as the publishing pipeline runs it; its summary line."""
    result = subprocess.run(
        [SVC, "stamp", str(data_dir), "--activate-in", str(activate_in), *options],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def reload(process: subprocess.Popen, output: Callable[[], str], base_url: str, timeout: float = 300) -> str:
    """SIGHUP, wait until the server has loaded the new data (or refused it); the line it said so with.

    A reload served at once is waited for until every answer comes from it
    (the old worker may answer a moment longer); one waiting for its
    activation time is not.
    """
    seen = len(_reload_lines(output()))
    process.send_signal(signal.SIGHUP)
    end = time.monotonic() + timeout
    while len(lines := _reload_lines(output())) == seen:
        if time.monotonic() > end:
            raise TimeoutError(f"no reload in {timeout} s:\n{output()[-3000:]}")
        time.sleep(0.1)
    said = lines[-1]
    served = re.search(r"reloaded data version (\w+)", said)
    agreeing = 0
    while served and agreeing < 3:  # the old worker stops a moment after the new one starts
        agreeing = agreeing + 1 if data_version(base_url) == served.group(1) else 0
        if time.monotonic() > end:
            raise TimeoutError(f"still not serving {served.group(1)}")
        time.sleep(0.1)
    return said


def publish(
    data_dir: Path, process: subprocess.Popen, output: Callable[[], str], base_url: str, lead: int = RELEASE_LEAD
) -> str:
    """A release as svc's docs publish it to a running replica: stamp ahead, SIGHUP, wait until it is served.

    Returns the stamp's summary line.
    """
    summary = stamp(data_dir, lead)
    switch(summary, process, output, base_url, timeout=lead + 300)
    return summary


def switch(summary: str, process: subprocess.Popen, output: Callable[[], str], base_url: str, timeout: float) -> None:
    """SIGHUP a replica with a release stamped ahead (``summary``), and wait until it serves it, at its activation.

    The replica must load the release before its activation time: not late.
    """
    said = reload(process, output, base_url, timeout=timeout)
    loaded = re.search(r"loaded data version (\w+) \(serving", said)
    assert loaded, said
    activation = activation_of(summary)
    end = time.monotonic() + timeout
    while data_version(base_url) != loaded.group(1) or time.time() < activation:
        if time.monotonic() > end:
            raise TimeoutError(f"release {loaded.group(1)} not served by {summary}")
        time.sleep(0.2)
    assert "after its activation time" not in output()


def wait_until_served(oai_url: str, timeout: float) -> None:
    """Wait until the OAI-PMH endpoint answers (a start before its release's activation answers 503 until then)."""
    end = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{oai_url}?verb=Identify", timeout=60):
                return
        except urllib.error.HTTPError as error:
            if error.code != 503 or time.monotonic() > end:
                raise
        time.sleep(0.2)


def _reload_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.search(r"(re)?loaded data version|reload refused", line)]


def data_version(base_url: str, timeout: float = 60) -> str:
    """The data version OAI-PMH answers from; a 503 (a worker a reload replaced, on a newer release) is retried."""
    end = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{base_url}{OAI_PATH}?verb=Identify", timeout=60) as response:
                return response.headers["X-Data-Version"]
        except urllib.error.HTTPError as error:
            if error.code != 503 or time.monotonic() > end:
                raise
        time.sleep(0.1)


def response_date(oai_url: str) -> str:
    """The responseDate of a fresh Identify: what a harvester's run is dated with."""
    with urllib.request.urlopen(f"{oai_url}?verb=Identify", timeout=60) as response:
        return etree.fromstring(response.read()).findtext(f"{OAI}responseDate")


@dataclass(frozen=True)
class Published:
    """One item as a full harvest sees it: deleted or not, its sets and its metadata in every format."""

    deleted: bool
    specs: tuple[str, ...]
    metadata: tuple[bytes, ...]


def snapshot(oai_url: str) -> dict[str, Published]:
    """Everything the repository publishes now, read with Sickle (ListRecords, every format)."""
    parts: dict[str, dict[str, Any]] = {}
    for prefix in PREFIXES:
        for record in Sickle(oai_url, max_retries=0, timeout=120).ListRecords(metadataPrefix=prefix):
            header = record.header
            item = parts.setdefault(header.identifier, {"deleted": header.deleted, "specs": tuple(header.setSpecs)})
            metadata = record.xml.find(f"{OAI}metadata")
            item[prefix] = b"" if metadata is None else etree.tostring(metadata[0], method="c14n")
    return {
        identifier: Published(item["deleted"], item["specs"], tuple(item.get(prefix, b"") for prefix in PREFIXES))
        for identifier, item in parts.items()
    }


def changed_between(before: dict[str, Published], after: dict[str, Published]) -> dict[str, bool]:
    """Identifiers whose published form differs (a new item, a change, a deletion), with their deleted flag."""
    return {
        identifier: item.deleted
        for identifier, item in after.items()
        if before.get(identifier) != item and not (item.deleted and identifier not in before)
    }


@dataclass
class Received:
    """What one incremental harvest received: (identifier, deleted) per item, in order, and its responseDate."""

    items: list[tuple[str, bool]] = field(default_factory=list)
    response_date: str = ""

    @property
    def duplicates(self) -> list[str]:
        return [identifier for identifier, count in Counter(i for i, _ in self.items).items() if count > 1]

    def as_dict(self) -> dict[str, bool]:
        return dict(self.items)


def sickle_incremental(oai_url: str, since: str, prefix: str = "oai_dc", verb: str = "ListIdentifiers") -> Received:
    """``verb&from=since`` with Sickle; the responseDate is that of the first response."""
    received = Received()
    try:
        iterator = getattr(Sickle(oai_url, max_retries=0, timeout=120), verb)(metadataPrefix=prefix, **{"from": since})
        for item in iterator:
            header = item if verb == "ListIdentifiers" else item.header
            received.items.append((header.identifier, header.deleted))
            if not received.response_date:
                received.response_date = iterator.oai_response.xml.findtext(f"{OAI}responseDate")
    except NoRecordsMatch:
        pass
    received.response_date = received.response_date or response_date(oai_url)
    return received


def scythe_incremental(oai_url: str, since: str, prefix: str = "oai_datacite") -> Received:
    """ListRecords&from=since with oaipmh-scythe."""
    from oaipmh_scythe.exceptions import NoRecordsMatch as ScytheNoRecordsMatch
    from oaipmh_scythe.models import Record as ScytheRecord

    received = Received()
    with Scythe(oai_url) as harvester:
        try:
            for record in harvester.list_records(from_=since, metadata_prefix=prefix):
                assert isinstance(record, ScytheRecord)
                received.items.append((str(record.header.identifier), record.header.deleted))
        except ScytheNoRecordsMatch:
            pass
    return received


class PausedHarvest:
    """A full ListRecords harvest with Sickle that the caller advances item by item (releases land meanwhile)."""

    def __init__(self, oai_url: str, prefix: str = "oai_dc") -> None:
        self._iterator = Sickle(oai_url, max_retries=0, timeout=120).ListRecords(metadataPrefix=prefix)
        self.items: list[tuple[str, bool]] = []
        self.first_response_date = ""

    def take(self, count: int) -> None:
        for _ in range(count):
            record = next(self._iterator)
            self.items.append((record.header.identifier, record.header.deleted))
            if not self.first_response_date:
                self.first_response_date = self._iterator.oai_response.xml.findtext(f"{OAI}responseDate")

    def finish(self) -> None:
        for record in self._iterator:
            self.items.append((record.header.identifier, record.header.deleted))

    def live(self) -> Counter[str]:
        return Counter(identifier for identifier, deleted in self.items if not deleted)

    def deleted(self) -> set[str]:
        return {identifier for identifier, deleted in self.items if deleted}


def records_file(data_dir: Path, shortcode: str) -> Path:
    return data_dir / "records" / f"{shortcode}-records.json"


def edit_json(path: Path, change: Callable[[Any], Any]) -> None:
    """Rewrite a data file with ``change`` applied (which may edit in place or return a new value)."""
    value = json.loads(path.read_text(encoding="utf-8"))
    changed = change(value)
    path.write_text(json.dumps(value if changed is None else changed, ensure_ascii=False), encoding="utf-8")


def every_record(data_dir: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for path in sorted((data_dir / "records").glob("*-records.json")):
        for record in json.loads(path.read_text(encoding="utf-8")):
            yield path.name.split("-")[0], record


def make_corpus(destination: Path, records: int) -> None:
    """A generated data directory (bench/make_corpus.py) of ``records`` records."""
    script = Path(__file__).resolve().parent.parent / "bench" / "make_corpus.py"
    subprocess.run([sys.executable, str(script), str(destination), "--records", str(records)], check=True, timeout=900)


def largest_records_file(data_dir: Path) -> str:
    """The shortcode of the project with the most records."""
    path = max((data_dir / "records").glob("*-records.json"), key=lambda path: path.stat().st_size)
    return path.name.split("-")[0]


def suffix_of(identifier: str) -> str:
    return identifier.rsplit("/", 1)[1]


@dataclass
class InterruptedReport:
    """A full harvest interrupted by two releases, and the incremental harvest after it."""

    before: dict[str, Published]
    after: dict[str, Published]
    harvest: PausedHarvest
    added: set[str]  # items the releases added during the harvest
    withdrawn: set[str]  # items they withdrew
    incremental: Received  # ``from=<the harvest's first responseDate>`` after it

    @property
    def final_live(self) -> set[str]:
        return {identifier for identifier, item in self.after.items() if not item.deleted}

    @property
    def duplicated(self) -> list[str]:
        return [identifier for identifier, count in self.harvest.live().items() if count > 1]

    @property
    def missed(self) -> set[str]:
        """Items of the final release (that existed when the list began) the harvest did not receive."""
        return self.final_live - self.added - set(self.harvest.live())

    @property
    def unexpected(self) -> set[str]:
        return set(self.harvest.live()) - self.final_live

    @property
    def changed(self) -> dict[str, bool]:
        return changed_between(self.before, self.after)

    def summary(self) -> str:
        return (
            f"full harvest: expected {len(self.final_live - self.added)} live items of the final release, "
            f"received {len(self.harvest.live())} live ({len(self.unexpected)} of them withdrawn later) "
            f"+ {len(self.harvest.deleted())} deleted headers, "
            f"duplicated {len(self.duplicated)}, missed {len(self.missed)}; "
            f"next incremental: expected {len(self.changed)}, received {len(self.incremental.items)}, "
            f"duplicated {len(self.incremental.duplicates)}, "
            f"missed {len(set(self.changed) - set(self.incremental.as_dict()))}"
        )


def interrupted_harvest(
    data_dir: Path, base_url: str, release: Callable[[], object], shortcode: str, person: str
) -> InterruptedReport:
    """Harvest everything with Sickle while two releases land (``release``: stamp, SIGHUP), then incrementally.

    The cursor is inside the records of ``shortcode`` when the releases land:
    each changes and withdraws records behind it and ahead of it, the first
    adds one, the second also renames ``person`` (reaching projects through it).
    """
    oai_url = base_url + OAI_PATH
    before = snapshot(oai_url)
    path = records_file(data_dir, shortcode)
    pids = sorted(record["pid"] for record in json.loads(path.read_text(encoding="utf-8")))
    order = {identifier: index for index, identifier in enumerate(before)}
    ids = {suffix_of(identifier): identifier for identifier in before}
    first = min(order[ids[suffix_of(pid)]] for pid in pids)
    harvest = PausedHarvest(oai_url)
    harvest.take(first + len(pids) // 3)
    delivered = set(harvest.live())
    behind = [pid for pid in pids if ids[suffix_of(pid)] in delivered]
    ahead = [pid for pid in pids if ids[suffix_of(pid)] not in delivered]
    added_pid = ahead[0].rsplit("/", 1)[0] + "/zzzz-added"

    def release_one(records: list) -> list:
        by_pid = {record["pid"]: record for record in records}
        for pid in (behind[2], ahead[5]):
            by_pid[pid]["label"] = {"en": "changed in release 1"}
        added = dict(by_pid[ahead[0]], pid=added_pid, id=by_pid[ahead[0]]["id"] + "-added")
        return [record for pid, record in by_pid.items() if pid not in (behind[3], ahead[6])] + [added]

    edit_json(path, release_one)
    release()
    harvest.take(len(pids) // 3)

    def release_two(records: list) -> list:
        for record in records:
            if record["pid"] == ahead[-2]:
                record["label"] = {"en": "changed in release 2"}
        return [record for record in records if record["pid"] != ahead[-3]]

    edit_json(path, release_two)
    edit_json(data_dir / "persons" / f"{person}.json", lambda value: value.update(givenNames=["Renamed"]))
    release()
    harvest.finish()

    after = snapshot(oai_url)
    added = {identifier for identifier in after if identifier.endswith("/zzzz-added")}
    withdrawn = {ids[suffix_of(pid)] for pid in (behind[3], ahead[6], ahead[-3])}
    incremental = sickle_incremental(oai_url, harvest.first_response_date)
    return InterruptedReport(before, after, harvest, added, withdrawn, incremental)
