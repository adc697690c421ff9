"""Datestamps and selective harvesting by date (SPEC §5.3): granularity, inclusive bounds, errors."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from catalog.domain.loader import load_catalog
from catalog.publishing.datestamps import DateArgumentError, format_datestamp, parse_range
from tests.conftest import CORPUS_DIR
from tests.oai_support import NS, errors, harvest, identifiers, load, oai, project, record, serving, token

serve = pytest.fixture(serving)


def stamp(text: str) -> int:
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).replace(tzinfo=UTC).timestamp())


def test_format_is_seconds_in_utc():
    assert format_datestamp(0) == "1970-01-01T00:00:00Z"
    assert format_datestamp(stamp("2012-06-19T14:33:33Z")) == "2012-06-19T14:33:33Z"
    assert format_datestamp(stamp("0500-01-02T03:04:05Z")) == "0500-01-02T03:04:05Z"


def test_parse_range_bounds_are_inclusive_and_a_day_until_covers_the_day():
    day = parse_range("2012-06-19", "2012-06-19")
    assert (day.low, day.high) == (stamp("2012-06-19T00:00:00Z"), stamp("2012-06-19T23:59:59Z"))
    seconds = parse_range("2012-06-19T14:33:33Z", "2012-06-19T14:33:33Z")
    assert seconds.low == seconds.high == stamp("2012-06-19T14:33:33Z")
    assert parse_range(None, None).unbounded


@pytest.mark.parametrize(
    ("from_value", "until_value"),
    [
        ("2012-06-19", "2012-06-19T00:00:00Z"),  # mixed granularity
        ("2013-01-01", "2012-01-01"),  # from after until
        ("2012-06-19T10:00:01Z", "2012-06-19T10:00:00Z"),
        ("2012-02-30", None),  # no such day
        ("2012-6-1", None),
        ("2012-06-19T14:33Z", None),  # minutes only
        ("2012-06-19T14:33:33", None),  # no Z
        ("2012-06-19T14:33:33+01:00", None),
        ("2012-06-19T14:33:33.5Z", None),  # fractions
        ("0000-01-01", None),
        (None, "tomorrow"),
        ("\uff12\uff10\uff11\uff12-06-19", None),  # full-width digits are no ASCII digits
    ],
)
def test_invalid_ranges(from_value, until_value):
    with pytest.raises(DateArgumentError):
        parse_range(from_value, until_value)


@pytest.fixture(scope="module")
def corpus_catalog():
    return load_catalog(CORPUS_DIR)


@pytest.fixture
def corpus(serve, corpus_catalog):
    return serve(corpus_catalog)


def test_headers_carry_second_granularity_datestamps(client, corpus):
    document = oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc", set="project:0803")
    stamps = document.xpath("//o:header/o:datestamp/text()", namespaces=NS)
    assert stamps and all(len(value) == 20 and value.endswith("Z") and "T" in value for value in stamps)
    # Projects have their start date when nothing newer is known.
    project_header = oai(
        client, verb="GetRecord", identifier="oai:dasch.swiss:ark:/72163/1/0803", metadataPrefix="oai_dc"
    )
    assert project_header.xpath("//o:datestamp/text()", namespaces=NS) == ["2008-06-01T00:00:00Z"]


def test_record_datestamp_prefers_modified_then_published_then_created(client, corpus):
    with open(CORPUS_DIR / "records" / "0803-records.json", encoding="utf-8") as file:
        records = json.load(file)
    modified = next(r for r in records if r.get("dateModified"))
    identifier = "oai:dasch.swiss:ark:/72163/1/0803/" + modified["pid"].rpartition("/")[2]
    document = oai(client, verb="GetRecord", identifier=identifier, metadataPrefix="oai_dc")
    expected = format_datestamp(stamp(modified["dateModified"]))
    assert document.xpath("//o:datestamp/text()", namespaces=NS) == [expected]


def expected_items(catalog, low: int, high: int) -> set[str]:
    """Independently of the OAI code: the items whose datestamp is within [low, high]."""
    found = set()
    for item in catalog.projects:
        if low <= item.datestamp <= high:
            found.add(item.shortcode)
    table = catalog.records["0803"]
    for index in range(len(table)):
        if low <= table.datestamp(index) <= high:
            found.add(table.pids[index].rpartition("/")[2])
    return found


def names(listed: list[str]) -> set[str]:
    return {identifier.rpartition("/")[2] for identifier in listed}


@pytest.mark.parametrize(
    ("from_value", "until_value"),
    [
        ("2012-06-19", "2012-06-19"),
        ("2012-06-19T14:33:33Z", "2012-06-19T14:33:33Z"),
        ("2020-01-01", None),
        (None, "2012-01-01"),
        ("2012-06-19T14:00:00Z", "2012-06-20T09:30:00Z"),
    ],
)
def test_from_and_until_select_inclusively(client, corpus, from_value, until_value):
    arguments = {key: value for key, value in (("from", from_value), ("until", until_value)) if value}
    listed, pages = harvest(client, metadataPrefix="oai_dc", **arguments)
    dates = parse_range(from_value, until_value)
    low = dates.low if dates.low is not None else -(10**12)
    high = dates.high if dates.high is not None else 10**12
    assert names(listed) == expected_items(corpus, low, high)
    assert len(listed) == len(set(listed))
    if token(pages[0]) is not None:
        assert token(pages[0]).get("completeListSize") == str(len(listed))


def test_bad_dates_are_bad_arguments(client, corpus):
    for arguments in (
        {"from": "2012-06-19", "until": "2012-06-19T00:00:00Z"},
        {"from": "2013-01-01", "until": "2012-01-01"},
    ):
        document = oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc", **arguments)
        assert errors(document) == ["badArgument"]


def test_items_without_dates(client, serve, tmp_path):
    """A record without dates carries its project's datestamp; a project without any, the epoch."""
    catalog = serve(
        load(
            tmp_path,
            {
                "projects/a.json": project("0AAA", startDate="2019-05-05"),
                "projects/b.json": project("0BBB", startDate="MISSING"),
                "records/0AAA-records.json": [record("0AAA", "r1", dateCreated=None, datePublished=None)],
            },
        )
    )
    assert catalog.records["0aaa"].datestamp(0) is None
    document = oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc")
    stamps = dict(zip(identifiers(document), document.xpath("//o:datestamp/text()", namespaces=NS), strict=True))
    assert stamps == {
        "oai:dasch.swiss:ark:/72163/1/0AAA": "2019-05-05T00:00:00Z",
        "oai:dasch.swiss:ark:/72163/1/0AAA/r1": "2019-05-05T00:00:00Z",
        "oai:dasch.swiss:ark:/72163/1/0BBB": "1970-01-01T00:00:00Z",
    }
    selected = oai(
        client, verb="ListIdentifiers", metadataPrefix="oai_dc", **{"from": "2019-05-05", "until": "2019-05-05"}
    )
    assert identifiers(selected) == ["oai:dasch.swiss:ark:/72163/1/0AAA", "oai:dasch.swiss:ark:/72163/1/0AAA/r1"]
    earliest = oai(client, verb="Identify").xpath("//o:earliestDatestamp/text()", namespaces=NS)
    assert earliest == ["1970-01-01T00:00:00Z"]
