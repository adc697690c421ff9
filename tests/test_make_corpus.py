"""bench/make_corpus.py: a generated data directory loads cleanly, resolves every reference, is reproducible."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from catalog.domain.loader import load_catalog
from catalog.domain.model import Catalog
from tests.conftest import PROJECT_ROOT

MAKE_CORPUS = PROJECT_ROOT / "bench" / "make_corpus.py"
RECORDS = 2_000
RECORD_PID = re.compile(r"^https://ark\.dasch\.swiss/ark:/72163/1/(?P<shortcode>[0-9A-F]{4}[a-z]?)/[\w=-]+$")


def make_corpus(dest: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(MAKE_CORPUS), str(dest), *args], capture_output=True, text=True, timeout=120
    )


def tree_digest(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("generated") / "data"
    completed = make_corpus(dest, "--records", str(RECORDS), "--seed", "7")
    assert completed.returncode == 0, completed.stderr
    assert f"wrote {RECORDS} records, 10 projects" in completed.stderr
    return dest


@pytest.fixture(scope="module")
def catalog(corpus_dir: Path) -> Catalog:
    return load_catalog(corpus_dir)


def test_counts_are_proportionate_and_load_without_problems(catalog: Catalog) -> None:
    assert catalog.counts() == {
        "projects": 10,
        "persons": 50,
        "organizations": 17,
        "clusters": 2,
        "collections": 2,
        "records": RECORDS,
    }
    assert catalog.problems == ()


def test_every_reference_resolves(catalog: Catalog) -> None:
    for project in catalog.projects:
        for attribution in project.attributions:
            assert catalog.contributor(attribution.contributor_id), (project.shortcode, attribution)
        for contributor_id in (*project.contact_point_ids, *project.funder_ids):
            assert catalog.contributor(contributor_id), (project.shortcode, contributor_id)
        for collection_id in project.collection_ids:
            assert collection_id in catalog.collections
    for person in catalog.persons.values():
        for organization_id in person.affiliation_ids:
            assert organization_id in catalog.organizations, (person.id, organization_id)
    for cluster in catalog.clusters.values():
        assert cluster.project_shortcodes
        assert all(catalog.get_project(shortcode) for shortcode in cluster.project_shortcodes)
    record_ids = {record_id for table in catalog.records.values() for record_id in table.ids}
    for collection in catalog.collections.values():
        assert all(catalog.get_project(shortcode) for shortcode in collection.project_shortcodes)
        assert collection.record_ids and set(collection.record_ids) <= record_ids
        assert set(collection.collection_ids) <= set(catalog.collections)
    assert any(collection.collection_ids for collection in catalog.collections.values()), "one collection nests"


def test_no_orphans(catalog: Catalog) -> None:
    assert set(catalog.projects_by_person) == set(catalog.persons)
    referenced = set(catalog.projects_by_organization) | set(catalog.persons_by_organization)
    assert referenced == set(catalog.organizations)
    clustered = {shortcode.lower() for c in catalog.clusters.values() for shortcode in c.project_shortcodes}
    assert clustered <= set(catalog.project_by_key)


def test_records_are_shaped_like_the_production_export(catalog: Catalog) -> None:
    sizes = []
    for key, table in catalog.records.items():
        shortcode = catalog.project_by_key[key].shortcode
        assert list(table.pids) == sorted(table.pids)
        for index in range(len(table)):
            match = RECORD_PID.match(table.pids[index])
            assert match and match["shortcode"] == shortcode, table.pids[index]
            assert table.ids[index].startswith(f"http://rdfh.ch/{shortcode}/")
            assert table.datestamp(index) is not None
        record = table.record(0)
        assert {"label", "accessRights", "legalInfo", "howToCite", "publisher", "dateCreated", "datePublished"} <= set(
            record
        )
        sizes.append(len(table))
    sizes.sort(reverse=True)
    assert sizes[0] == RECORDS // 4 and sizes[0] > sizes[1], "one very large project"
    assert len(sizes) < len(catalog.projects), "some projects have no records"


def test_datestamps_spread_over_years(catalog: Catalog) -> None:
    years = Counter(
        time.gmtime(stamp).tm_year for table in catalog.records.values() for stamp in table.datestamps if stamp > 0
    )
    assert len(years) >= 5, years


def test_projects_sharing_a_pid_and_placeholders(catalog: Catalog) -> None:
    pids = Counter(project.pid for project in catalog.projects)
    shared = [pid for pid, count in pids.items() if count > 1]
    assert len(shared) == 1 and pids[shared[0]] == 3
    project = catalog.projects[0]
    assert project.get("legalInfo")[0]["authorship"] == ("CALCULATED",)


def test_same_seed_same_bytes_other_seed_other_data(corpus_dir: Path, tmp_path: Path) -> None:
    assert make_corpus(tmp_path / "again", "--records", str(RECORDS), "--seed", "7").returncode == 0
    assert tree_digest(tmp_path / "again") == tree_digest(corpus_dir)
    assert make_corpus(tmp_path / "other", "--records", str(RECORDS), "--seed", "8").returncode == 0
    assert tree_digest(tmp_path / "other") != tree_digest(corpus_dir)


def test_refuses_to_write_into_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    completed = make_corpus(tmp_path, "--records", "10")
    assert completed.returncode == 2
    assert "exists and is not an empty directory" in completed.stderr
    assert [path.name for path in tmp_path.iterdir()] == ["keep.txt"]
