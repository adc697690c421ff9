"""catalog.domain.dates: dates as stored become ISO 8601 dates (the issue rule's cases are in test_item_metadata.py)."""

from __future__ import annotations

import pytest

from catalog.domain.dates import earliest_record_published, iso_date, project_issued, year
from catalog.domain.loader import load_catalog
from tests import datadir


@pytest.mark.parametrize(
    "value, expected",
    [
        ("2012-06-19T14:33:33Z", "2012-06-19"),
        ("2012-06-19 14:33", "2012-06-19"),
        ("  2012-06-19  ", "2012-06-19"),
        ("2012", "2012"),
        (2012, "2012"),
        (98, "0098"),  # a year is four digits
        ("2012-06", None),  # neither a year nor a date
        ("20120619", None),
        ("June 2012", None),
        ("MISSING", None),  # a placeholder
        ("", None),
        (0, None),
        (10000, None),
        (True, None),  # a boolean is no year
        (None, None),
        (2012.0, None),
    ],
)
def test_iso_date(value, expected):
    assert iso_date(value) == expected


def test_year_of_an_issue_date():
    assert [year("2012-06-19"), year("2012"), year(None), year("")] == ["2012", "2012", None, None]


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    root = datadir.write_data_dir(
        tmp_path_factory.mktemp("dates"),
        projects=[
            datadir.project("0AA1", dataPublicationYear=None),
            datadir.project("0AA2", dataPublicationYear=None),
        ],
        records={
            "0AA1": [
                datadir.record("0AA1", "b", datePublished="2023-05-04T08:00:00Z"),
                datadir.record("0AA1", "a", datePublished="2021-11-30T23:59:59Z"),
                datadir.record("0AA1", "c", datePublished="2022-01-01T00:00:00Z"),
            ]
        },
    )
    return load_catalog(root)


def test_the_earliest_record_date_of_a_project(catalog):
    with_records, without = (catalog.get_project(code) for code in ("0AA1", "0AA2"))
    assert earliest_record_published(catalog.records_of(with_records)) == "2021-11-30"
    assert earliest_record_published(catalog.records_of(without)) is None
    assert earliest_record_published(None) is None


def test_a_project_without_a_publication_year_is_issued_with_its_first_record(catalog):
    assert project_issued(catalog, catalog.get_project("0AA1")) == "2021-11-30"
    assert project_issued(catalog, catalog.get_project("0AA2")) == "2024-01-01"  # no records: its licence date
