"""catalog.domain.text_repair: lone surrogates found, replaced by U+FFFD, and everything else left as it is."""

from __future__ import annotations

import json

import pytest

from catalog.domain.text_repair import may_hold_surrogates, repair_surrogates, repair_text, surrogate_paths


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('"\\ud800"', True),
        ('"\\uDFFF"', True),
        ('"\\udbff\\udc00"', True),  # a valid pair: walked, and then nothing to repair
        ('"\\u00e9 caf\\u00e9"', False),
        ('"\\uD7FF \\uE000"', False),  # the neighbours of the surrogate block
        ('"plain é text"', False),
        ("", False),
    ],
)
def test_may_hold_surrogates_looks_for_escapes_of_the_surrogate_block(raw, expected):
    assert may_hold_surrogates(raw) is expected


def test_repair_text_replaces_each_lone_surrogate_and_keeps_a_text_without_one():
    parsed = json.loads('"a\\ud800b\\udfffc\\ud800\\udc00d"')  # two lone ones, one valid pair (U+10000)
    assert repair_text(parsed) == "a\ufffdb\ufffdc\U00010000d"
    clean = "Zürich \U0001f600"
    assert repair_text(clean) is clean


def test_repaired_value_encodes_as_utf8_and_keeps_its_shape():
    value = json.loads('{"name": "x\\ud800", "k\\udc00": [1, "y\\udbff", {"z": null}], "ok": true}')
    repaired = repair_surrogates(value)
    assert repaired == {"name": "x\ufffd", "k\ufffd": [1, "y\ufffd", {"z": None}], "ok": True}
    json.dumps(repaired, ensure_ascii=False).encode("utf-8")  # raises on any surrogate left


def test_a_value_without_surrogates_is_returned_as_the_same_object():
    value = json.loads('{"name": "caf\\u00e9", "list": ["a", {"b": 2}], "n": 1.5}')
    assert repair_surrogates(value) is value


def test_only_the_branch_with_a_surrogate_is_copied():
    value = json.loads('{"clean": {"a": ["b"]}, "dirty": ["\\ud800"]}')
    repaired = repair_surrogates(value)
    assert repaired is not value
    assert repaired["clean"] is value["clean"]
    assert repaired["dirty"] == ["\ufffd"]


def test_surrogate_paths_name_each_string_and_key_with_the_key_repaired():
    value = json.loads('[{"id": "p\\ud800", "names": ["ok", "b\\udc01"], "k\\ud801": "v"}]')
    assert list(surrogate_paths(value)) == [
        ((0, "id"), False),
        ((0, "names", 1), False),
        ((0, "k\ufffd"), True),
    ]
    assert list(surrogate_paths(json.loads('{"a": ["\\ud800\\udc00", "x"]}'))) == []
