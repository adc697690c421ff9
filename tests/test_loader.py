"""The catalogue loader, on the real corpus and on broken data."""

import dataclasses
import json
import logging
from pathlib import Path

import pytest

from catalog.domain import loader
from catalog.domain.loader import DataDirError, JsonText, load_catalog
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


def test_person_names_are_an_index_every_catalogue_made_from_it_keeps(corpus):
    """Both orders of every person's name; a catalogue made from it for one project has the same set, not a new one."""
    person = corpus.persons[sorted(corpus.persons)[0]]
    assert {person.display_name, person.sort_name} <= corpus.person_names
    assert len(corpus.person_names) <= 2 * len(corpus.persons)
    assert all(
        any(name in (p.display_name, p.sort_name) for p in corpus.persons.values()) for name in corpus.person_names
    )
    with_table = dataclasses.replace(corpus, records={"0803": corpus.records["0803"]})
    assert with_table.person_names is corpus.person_names
    assert with_table.shared_pid_carriers is corpus.shared_pid_carriers


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


def chunked(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]


# Items that end at every kind of boundary: numbers and literals that go on in the next chunk, strings with
# escaped quotes and brackets, nested arrays, whitespace between items.
STREAMED = '[ 12345 , -1.5e3,true,null, "a\\"]b" ,{"k": [1, [2, {"x": "}]"}]]},\n\n  "ü€𝄞" , [] ,{} ]  \n'


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 64, 10_000])
def test_json_text_in_chunks_gives_the_items_of_the_whole_text(size: int):
    whole = list(JsonText([STREAMED]).items())
    assert whole == [12345, -1500.0, True, None, 'a"]b', {"k": [1, [2, {"x": "}]"}]]}, "ü€𝄞", [], {}]
    assert list(JsonText(chunked(STREAMED, size)).items()) == whole


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty file"),
        ("  \n ", "empty file"),
        ("[1, 2 3]", "expected ',' or ']' at character 6"),
        ("[1, 2]  x", "extra data at character 6"),
        ('{"a": 1} x', "extra data at character 8"),
    ],
)
@pytest.mark.parametrize("size", [1, 4, 1000])
def test_json_text_in_chunks_names_the_place_of_an_error_in_the_whole_text(text: str, message: str, size: int):
    with pytest.raises(ValueError, match=f"^{message}$"):
        list(JsonText(chunked(text, size) or [""]).items())


def test_a_records_file_is_read_in_chunks_with_the_items_errors_and_repairs_of_the_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    """Chunks of 7 bytes split UTF-8 characters, numbers and a surrogate escape; the answers stay the whole file's."""
    write(tmp_path / "projects" / "p.json", json.dumps({"id": "p", "shortcode": "AB12", "name": "P"}))
    records = [{"id": f"r{n}", "pid": f"https://ark/ab12/{n}", "label": {"de": "Grüße 𝄞"}, "n": n} for n in range(40)]
    text = json.dumps(records, indent=2, ensure_ascii=False).replace('"r7"', '"r7 \\ud800"')
    write(tmp_path / "records" / "AB12-records.json", text)
    whole = load_catalog(tmp_path)
    monkeypatch.setattr(loader, "READ_CHUNK_BYTES", 7)
    streamed = load_catalog(tmp_path)
    table = streamed.records["ab12"]
    assert [table.document(i) for i in range(len(table))] == [
        whole.records["ab12"].document(i) for i in range(len(table))
    ]
    assert "r7 \ufffd" in {table.record(i)["id"] for i in range(len(table))}  # the lone surrogate, repaired
    assert streamed.data_version == whole.data_version

    broken = text[: text.index('"r30"')] + '"r30" oops' + text[text.index('"r30"') + 5 :]
    write(tmp_path / "records" / "AB12-records.json", broken)
    with pytest.raises(json.JSONDecodeError) as error:
        json.loads(broken)
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="catalog"):
        assert "ab12" not in load_catalog(tmp_path).records
    assert f"skipped records/AB12-records.json: invalid JSON, file skipped: {error.value}" in caplog.messages


def test_a_read_error_in_the_middle_of_a_records_file_skips_it_as_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    write(tmp_path / "projects" / "p.json", json.dumps({"id": "p", "shortcode": "AB12", "name": "P"}))
    write(tmp_path / "records" / "AB12-records.json", json.dumps([{"pid": f"https://ark/ab12/{n}"} for n in range(9)]))

    whole_chunks = loader.file_chunks

    def failing(path: Path):
        if path.parent.name != "records":
            yield from whole_chunks(path)
            return
        yield path.read_bytes()[:40]
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(loader, "file_chunks", failing)
    with caplog.at_level(logging.ERROR, logger="catalog"):
        catalog = load_catalog(tmp_path)
    assert "ab12" not in catalog.records
    assert caplog.messages == ["skipped records/AB12-records.json: cannot read: Input/output error"]
