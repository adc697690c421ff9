"""catalog.domain.model: the helpers every reader of the data shares (placeholders, frozen JSON, languages, times)."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from catalog.domain.model import (
    freeze,
    is_placeholder,
    language_items,
    parse_timestamp,
    pick_language,
    record_datestamp,
    thaw,
    to_json_bytes,
)


@pytest.mark.parametrize(
    "value, placeholder",
    [("MISSING", True), ("CALCULATED", True), ("missing", False), (" MISSING", False), (None, False), (0, False)],
)
def test_only_the_exact_placeholder_strings_are_placeholders(value, placeholder):
    assert is_placeholder(value) is placeholder


def test_frozen_json_is_read_only_and_thaws_back_to_the_same_document():
    document = {"name": {"en": "Lakes", "de": "Seen"}, "keywords": [{"en": "Jura"}, "x"], "count": 2, "gone": None}
    frozen = freeze(document)
    assert isinstance(frozen, MappingProxyType) and isinstance(frozen["keywords"], tuple)
    with pytest.raises(TypeError):
        frozen["name"]["en"] = "changed"
    assert thaw(frozen) == document
    assert to_json_bytes(frozen) == (
        b'{"name":{"en":"Lakes","de":"Seen"},"keywords":[{"en":"Jura"},"x"],"count":2,"gone":null}'
    )
    assert to_json_bytes(freeze({"place": "Neuchâtel"})) == '{"place":"Neuchâtel"}'.encode()  # UTF-8, not escaped


@pytest.mark.parametrize(
    "value, preferred, text",
    [
        ("Plain", ("en",), "Plain"),
        (freeze({"fr": "Lacs", "de": "Seen", "en": "Lakes"}), ("en", "de"), "Lakes"),
        (freeze({"fr": "Lacs", "de": "Seen", "en": ""}), ("en", "de"), "Seen"),  # an empty text is no text
        (freeze({"fr": "Lacs"}), ("en", "de"), "Lacs"),  # else the first text there is
        (freeze({"en": None}), ("en",), ""),
        (None, ("en",), ""),
        (freeze(["Lakes"]), ("en",), ""),
    ],
)
def test_pick_language(value, preferred, text):
    assert pick_language(value, preferred) == text


def test_language_items():
    assert language_items(freeze({"en": "Lakes", "de": "", "fr": None, "it": "Laghi"})) == (
        ("en", "Lakes"),
        ("it", "Laghi"),
    )
    assert language_items("Lakes") == ((None, "Lakes"),)
    assert language_items("") == () and language_items(None) == ()


@pytest.mark.parametrize(
    "value, stamp",
    [
        ("2012-06-19T14:33:33Z", 1340116413),
        ("2012-06-19T14:33:33z", 1340116413),
        ("2012-06-19T16:33:33+02:00", 1340116413),
        ("2012-06-19T14:33:33", 1340116413),  # no zone: UTC
        (" 2012-06-19 ", 1340064000),  # a date is its first second
        ("2012-06-19T14:33:33.9Z", 1340116413),  # whole seconds
        ("19.06.2012", None),
        ("MISSING", None),
        ("", None),
        (1340116413, None),  # numbers are not timestamps in the data
    ],
)
def test_parse_timestamp(value, stamp):
    assert parse_timestamp(value) == stamp


def test_a_records_datestamp_is_modified_then_published_then_created():
    created, published, modified = "2010-01-01", "2011-01-01", "2012-01-01"
    assert record_datestamp({"dateCreated": created, "datePublished": published, "dateModified": modified}) == (
        parse_timestamp(modified)
    )
    assert record_datestamp({"dateCreated": created, "datePublished": published, "dateModified": "MISSING"}) == (
        parse_timestamp(published)
    )
    assert record_datestamp({"dateCreated": created, "datePublished": "not a date"}) == parse_timestamp(created)
    assert record_datestamp({}) is None
