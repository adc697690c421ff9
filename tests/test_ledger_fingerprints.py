"""What `svc stamp` fingerprints is byte for byte what `svc serve` publishes, for every item of the real corpus.

If the two ever rendered differently (a dependency the stamp does not see,
such as a project's issue date taken from its records), a change could reach
harvesters without moving its datestamp; this compares them item by item.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from catalog.domain.ledger import iter_entries, ledger_path
from catalog.domain.loader import load_catalog
from catalog.publishing.changes import published_fingerprint
from catalog.publishing.datestamps import DateRange
from catalog.publishing.formats import FORMATS
from catalog.publishing.oai_identifiers import site_url
from catalog.runtime import with_ledger
from oaipmh.repository import Repository
from tests.conftest import CORPUS_DIR, run_svc

SITE = "https://repository.dasch.swiss/dpe/oai"  # svc's default SVC_OAI_BASE_URL, which the stamp runs with


def test_every_ledger_fingerprint_is_the_digest_of_what_is_served(tmp_path: Path):
    data_dir = tmp_path / "data"
    shutil.copytree(CORPUS_DIR, data_dir)
    assert run_svc("stamp", str(data_dir), "--activate-in", "0").returncode == 0
    with ledger_path(data_dir).open(encoding="utf-8") as lines:
        stamped = {entry.key: entry.fingerprint for entry in iter_entries(lines) if entry.kind in ("P", "R")}

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
    assert len(served) == len(stamped) > 4000
    assert {key: fingerprint for key, fingerprint in served.items() if stamped[key] != fingerprint} == {}
