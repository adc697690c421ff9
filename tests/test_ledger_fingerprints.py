"""What `svc stamp` fingerprints is byte for byte what `svc serve` publishes, for every item of the real corpus.

If the two ever rendered differently (a dependency the stamp does not see,
such as a project's issue date taken from its records), a change could reach
harvesters without moving its datestamp; this compares them item by item.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog.domain.ledger import iter_entries, ledger_path
from catalog.domain.loader import load_catalog
from catalog.publishing.changes import Publication, published_fingerprint
from catalog.publishing.datestamps import DateRange
from catalog.publishing.formats import FORMATS
from catalog.publishing.oai_identifiers import site_url
from catalog.runtime import with_ledger
from oaipmh.repository import Repository
from tests import datadir
from tests.conftest import CORPUS_DIR, run_svc

LICENCE = {"licenseIdentifier": "CC BY 4.0", "licenseURI": "https://creativecommons.org/licenses/by/4.0/"}
SITE = "https://repository.dasch.swiss/dpe/oai"  # svc's default SVC_OAI_BASE_URL, which the stamp runs with


def test_every_ledger_fingerprint_is_the_digest_of_what_is_served(stamped_corpus: Path):
    data_dir = stamped_corpus
    with ledger_path(data_dir).open(encoding="utf-8") as lines:
        stamped = {entry.key: entry.fingerprint for entry in iter_entries(lines) if entry.kind in ("P", "R")}

    served = served_fingerprints(data_dir)
    assert len(served) == len(stamped) > 4000
    assert {key: fingerprint for key, fingerprint in served.items() if stamped[key] != fingerprint} == {}


def served_fingerprints(data_dir: Path) -> dict[str, str]:
    """The fingerprint of what svc serves of each project (by shortcode) and record (by pid)."""
    catalog = with_ledger(load_catalog(data_dir))
    repository = Repository(catalog, "dasch.swiss", site_url(SITE))
    served: dict[str, str] = {}
    for position in repository.scan(repository.selection(None), DateRange(), (0, -1), 10**9):
        project, record = position
        specs = repository.sets.project_specs[project] if record < 0 else repository.sets.record_specs[project]
        rendered = [repository.metadata(position, metadata_format) for metadata_format in FORMATS.values()]
        table = repository.tables[project]
        key = catalog.projects[project].shortcode if record < 0 or table is None else table.pids[record]
        served[key] = published_fingerprint(specs, rendered)
    return served


def stamped_entries(data_dir: Path) -> dict[str, tuple[str, int]]:
    with ledger_path(data_dir).open(encoding="utf-8") as lines:
        return {
            entry.key: (entry.fingerprint, entry.changed) for entry in iter_entries(lines) if entry.kind in ("P", "R")
        }


@pytest.mark.slow
def test_a_person_renamed_or_added_moves_exactly_the_records_that_give_the_name_as_text(tmp_path: Path):
    """A free-text name (rights holder, author) is a person (Personal) or not (Organizational) in the metadata:
    the records giving a person's old or new name change; the stamp renders the others only when they did."""
    names = {
        "a": (" Jonas Keller ", ["Mira Sommer"]),
        "b": ("Lake Society", ["Mira Sommer"]),
        "c": ("Lake Society", "Keller, Jonas"),
    }
    records = [
        datadir.record("0AA1", suffix, legalInfo={"license": LICENCE, "copyrightHolder": holder, "authorship": authors})
        for suffix, (holder, authors) in names.items()
    ]
    jonas = datadir.person("person-002", "Jonas", "Keller")
    data_dir = datadir.write_data_dir(tmp_path / "data", persons=[datadir.person(), jonas], records={"0AA1": records})
    assert run_svc("stamp", str(data_dir), "--activate-in", "0").returncode == 0
    before = stamped_entries(data_dir)
    pids = {suffix: f"https://ark.example.org/ark:/99999/1/0AA1/{suffix}" for suffix in "abc"}

    (data_dir / "persons" / "person-002.json").write_text(json.dumps({**jonas, "familyNames": ["Keller-Roth"]}))
    assert run_svc("stamp", str(data_dir), "--activate-in", "0").stdout.startswith("added 0, changed 3, deleted 0,")
    renamed = stamped_entries(data_dir)
    moved = {key for key, (_, changed) in renamed.items() if changed != before[key][1]}
    assert moved == {pids["a"], pids["c"]}  # and the person's own line: the third change
    assert served_fingerprints(data_dir) == {key: fingerprint for key, (fingerprint, _) in renamed.items()}

    # A person now bears the name that b and c give as their rights holder.
    society = datadir.person("person-003", "Lake", "Society")
    (data_dir / "persons" / "person-003.json").write_text(json.dumps(society))
    assert run_svc("stamp", str(data_dir), "--activate-in", "0").stdout.startswith("added 1, changed 2, deleted 0,")
    added = stamped_entries(data_dir)
    assert {key for key, (_, changed) in added.items() if changed != renamed[key][1]} == {pids["b"], pids["c"]}
    assert served_fingerprints(data_dir) == {key: fingerprint for key, (fingerprint, _) in added.items()}


def test_a_record_whose_source_the_ledger_holds_keeps_its_fingerprint_unrendered():
    catalog = load_catalog(CORPUS_DIR)
    project = next(p for p in catalog.projects if len(catalog.records.get(p.key) or ()) >= 2)
    table = catalog.records[project.key]
    publication = Publication(catalog, site_url(SITE))

    def stamps(known: bytes) -> tuple[list[str], list[str]]:
        each, result = publication.records(project.key, table, known)
        for row in range(len(table)):
            each(row, table.record(row))
        return result().sources, result().fingerprints

    sources, rendered = stamps(b"")
    assert all(rendered) and len(set(sources)) == len(table)
    # The first record's source is the ledger's: its fingerprint is the ledger's, not rendered again.
    # The second's source differs from the ledger's: rendered, whatever the ledger held.
    known = f"R\t{table.pids[0]}\tkept\t1\t\t\t{sources[0]}\nR\t{table.pids[1]}\tstale\t1\t\t\tanother\n"
    assert stamps(known.encode())[1][:2] == ["kept", rendered[1]]
