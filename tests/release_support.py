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

SVC = str(Path(sys.executable).parent / "svc")
OAI_PATH = "/dpe/oai"
OAI = "{http://www.openarchives.org/OAI/2.0/}"
PREFIXES = ("oai_dc", "oai_datacite")


def stamp(data_dir: Path, activate_in: int = 0) -> str:
    """``svc stamp`` as the publishing pipeline runs it; its summary line."""
    result = subprocess.run(
        [SVC, "stamp", str(data_dir), "--activate-in", str(activate_in)],
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


def _reload_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.search(r"(re)?loaded data version|reload refused", line)]


def data_version(base_url: str) -> str:
    with urllib.request.urlopen(f"{base_url}{OAI_PATH}?verb=Identify", timeout=60) as response:
        return response.headers["X-Data-Version"]


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

    received = Received()
    with Scythe(oai_url) as harvester:
        try:
            for record in harvester.list_records(from_=since, metadata_prefix=prefix):
                received.items.append((record.header.identifier, record.header.deleted))
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
