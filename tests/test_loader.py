"""The catalogue loader, on the real corpus and on broken data."""

import json
import logging
from pathlib import Path

import pytest

from catalog.domain.loader import DataDirError, load_catalog
from catalog.domain.model import is_placeholder
from tests.conftest import CORPUS_DIR


@pytest.fixture(scope="module")
def corpus():
    return load_catalog(CORPUS_DIR)


def test_corpus_counts(corpus):
    assert corpus.counts() == {
        "projects": 85,
        "persons": 416,
        "organizations": 142,
        "clusters": 5,
        "collections": 0,
        "records": 4198,
    }
    assert corpus.problems == ()


def test_corpus_references_all_resolve(corpus):
    for project in corpus.projects:
        for attribution in project.attributions:
            assert corpus.contributor(attribution.contributor_id), (project.shortcode, attribution)
        for contact in project.contact_point_ids:
            assert corpus.contributor(contact), (project.shortcode, contact)
        for funder in project.funder_ids:
            assert corpus.contributor(funder), (project.shortcode, funder)
    for person in corpus.persons.values():
        for organization_id in person.affiliation_ids:
            assert organization_id in corpus.organizations, (person.id, organization_id)


def test_ordering_and_case_insensitive_shortcodes(corpus):
    keys = [project.key for project in corpus.projects]
    assert keys == sorted(keys)
    assert corpus.get_project("080A") is corpus.get_project("080a")
    table = corpus.records["0803"]
    pids = list(table.pids)
    assert pids == sorted(pids) and len(pids) == 4198


def test_reverse_indexes(corpus):
    project = corpus.get_project("0803")
    person_id = project.attributions[0].contributor_id
    assert any(p is project for p, _ in corpus.projects_by_person.get(person_id, ())) or any(
        p is project for p, _ in corpus.projects_by_organization.get(person_id, ())
    )
    for cluster in corpus.clusters.values():
        for shortcode in cluster.project_shortcodes:
            assert cluster in corpus.clusters_by_project[shortcode.lower()]


def test_records_lookup(corpus):
    table = corpus.records["0803"]
    record = table.record(10)
    assert table.index_of_pid(record["pid"]) == 10
    assert table.index_of_suffix(record["pid"].rsplit("/", 1)[1]) == 10
    assert table.index_of_suffix("no-such-record") is None


def test_catalog_is_immutable(corpus):
    project = corpus.projects[0]
    with pytest.raises(TypeError):
        project.raw["name"] = "changed"
    with pytest.raises(AttributeError):
        project.name = "changed"


def test_placeholder_helper():
    assert is_placeholder("MISSING") and is_placeholder("CALCULATED")
    assert not is_placeholder("missing") and not is_placeholder(None)


def write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)


def test_bad_file_is_logged_and_skipped(tmp_path: Path, caplog):
    write(tmp_path / "projects" / "good.json", json.dumps({"id": "p", "shortcode": "AB12", "name": "Good"}))
    write(tmp_path / "projects" / "broken.json", '{"id": "x", ')
    write(tmp_path / "persons" / "people.json", json.dumps([{"id": "person-1"}, "not an object"]))
    with caplog.at_level(logging.ERROR, logger="catalog"):
        catalog = load_catalog(tmp_path)
    assert [p.shortcode for p in catalog.projects] == ["AB12"]
    assert list(catalog.persons) == ["person-1"]
    messages = [record.getMessage() for record in caplog.records]
    assert any("projects/broken.json" in m and "invalid JSON" in m for m in messages)
    assert any("persons/people.json" in m and "not a JSON object" in m for m in messages)


def test_missing_data_dir(tmp_path: Path):
    with pytest.raises(DataDirError, match="does not exist"):
        load_catalog(tmp_path / "nope")


def test_data_version_follows_content(tmp_path: Path):
    write(tmp_path / "projects" / "a.json", json.dumps({"id": "p", "shortcode": "AB12"}))
    first = load_catalog(tmp_path).data_version
    assert load_catalog(tmp_path).data_version == first
    write(tmp_path / "projects" / "a.json", json.dumps({"id": "p", "shortcode": "AB13"}))
    assert load_catalog(tmp_path).data_version != first
