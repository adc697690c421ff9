"""catalog.publishing.changes without a catalogue: the ledger's sources, fingerprints, the persons a record names."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog.domain.model import RecordTable
from catalog.formats import item_metadata
from catalog.publishing.changes import FreeTextPersons, KnownSources, known_stamps, published_fingerprint
from catalog.publishing.formats import FORMATS

LEDGER = (
    "svc-ledger\t2\t300\n"
    "P\t0001\tf\t100\t\t\tA\tark:/1/0001\tp/\tentityType\tentityType\n"
    "R\tp/1\tf1\t100\t\t\ts1\n"
    "R\tp/2\tf2\t100\t\t200\ts2\tentityType\tp/\n"
    "P\t0003\tf\t100\t\t\tC\tark:/1/0003\tq/\tentityType\tentityType\n"
    "R\tq/1\tf3\t100\t\t\ts3\n"
    "E\tpersons\tperson-1\tf4\t100\t\t\n"
)


def test_the_ledger_gives_each_projects_record_lines_and_their_stamps(tmp_path: Path) -> None:
    ledger_file = tmp_path / "ledger.tsv"
    ledger_file.write_text(LEDGER)
    known = KnownSources(ledger_file)
    assert known.of("0003") == b"R\tq/1\tf3\t100\t\t\ts3\n"  # asked in any order
    assert list(known_stamps(known.of("0001"))) == [("p/1", "s1", "f1"), ("p/2", "s2", "f2")]
    assert list(known_stamps(known.of("0003"))) == [("q/1", "s3", "f3")]
    assert known.of("0002") == known.of("0004") == b""


def test_a_version_1_ledger_or_none_knows_no_sources(tmp_path: Path) -> None:
    version_1 = tmp_path / "ledger.tsv"
    version_1.write_text("svc-ledger\t1\nP\t0001\tf\t100\t\t\nR\tp/1\tf1\t100\t\t\n")
    assert KnownSources(version_1).of("0001") == b""
    assert KnownSources(None).of("0001") == b""


def test_the_fingerprint_covers_the_sets_and_every_format() -> None:
    base = published_fingerprint(("a", "b"), ("<dc/>", "<datacite/>"))
    assert base != published_fingerprint(("a",), ("<dc/>", "<datacite/>"))
    assert base != published_fingerprint(("a", "b"), ("<dc/>", "<datacite x='1'/>"))
    assert base == published_fingerprint(["a", "b"], iter(["<dc/>", "<datacite/>"]))


def _strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value.strip()}
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return {text for item in items for text in _strings(item)}


def _rendered(record: dict, person_names: frozenset[str]) -> list[str]:
    context = item_metadata.ProjectContext(
        None, "2020", ("de",), person_names, None, item_metadata.RecordSharing(person_names)
    )
    metadata = item_metadata.record_metadata(record, context)
    return [metadata_format.render(metadata) for metadata_format in FORMATS.values()]


LICENCE = {"licenseIdentifier": "CC BY 4.0", "licenseURI": "https://creativecommons.org/licenses/by/4.0/"}
RECORDS = [
    {"pid": "https://ark.example.org/1", "label": "Mira Sommer", "publisher": "Mira Sommer"},
    {
        "pid": "https://ark.example.org/2",
        "label": {"en": "Letter"},
        "publisher": "Example Press",
        "legalInfo": {
            "license": LICENCE,
            "copyrightHolder": " Mira Sommer ",
            "authorship": ["Sommer, Mira", 7, "", "Mira [ed.]"],
        },
    },
    {
        "pid": "https://ark.example.org/3",
        "legalInfo": [{"copyrightHolder": 'Jonas "J" Keller\\', "authorship": "Keller, Jonas"}, "no entry"],
        "description": {"en": "Jonas Keller wrote it."},
    },
    {
        "pid": "https://ark.example.org/4",
        "legalInfo": {"authorship": ["Zoë Ruiz"] + [f"Author {n}" for n in range(40)]},
    },
]


def stored(record: dict) -> bytes:
    """A record's JSON as svc stamp reads it: from a record table."""
    return RecordTable.build("0001", [record]).document(0)


@pytest.mark.parametrize("record", RECORDS, ids=lambda record: record["pid"])
def test_only_the_free_text_names_found_can_change_a_records_bytes(record: dict) -> None:
    """Rendered with every string of the record as a person's name, or with only the names found: the same bytes."""
    everything = frozenset(_strings(record))
    persons = FreeTextPersons(everything)
    found = frozenset(persons.named_in(stored(record)).decode().split("\n")) - {""}
    assert _rendered(record, everything) == _rendered(record, found)
    assert (_rendered(record, found) != _rendered(record, frozenset())) == bool(found)


def test_the_free_text_persons_of_records() -> None:
    names = {
        "Mira Sommer",
        "Sommer, Mira",
        "Mira [ed.]",
        "Keller, Jonas",
        'Jonas "J" Keller\\',
        "Zoë Ruiz",
        "Example Press",
    }
    persons = FreeTextPersons(frozenset(names))
    found = [persons.named_in(stored(record)).decode() for record in [*RECORDS, *RECORDS]]  # again: remembered
    assert found == 2 * ["", "Mira Sommer\nMira [ed.]\nSommer, Mira", 'Jonas "J" Keller\\\nKeller, Jonas', "Zoë Ruiz"]
    assert FreeTextPersons(frozenset()).named_in(stored(RECORDS[1])) == b""
