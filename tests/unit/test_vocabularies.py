"""catalog.formats.vocabularies: resource types and language codes (the others: test_item_metadata.py, test_dcat.py)."""

from __future__ import annotations

import pytest

from catalog.formats.vocabularies import dcmi_type, language_alpha3, resource_type_general


@pytest.mark.parametrize(
    "type_of_data, general",
    [
        ("Image", "Image"),
        ("  image ", "Image"),  # case and spaces do not matter
        ("Video", "Audiovisual"),
        ("Text", "Text"),
        ("3D", "Model"),
        ("Something else", "Other"),
        ("", "Other"),
    ],
)
def test_resource_type_general(type_of_data, general):
    assert resource_type_general(type_of_data) == general


def test_every_resource_type_has_a_dcmi_type():
    assert [dcmi_type(resource_type_general(t)) for t in ("Image", "Video", "Text", "3D")] == [
        "StillImage",
        "MovingImage",
        "Text",
        "Dataset",
    ]


@pytest.mark.parametrize(
    "code, alpha3",
    [
        ("de", "deu"),
        ("fr", "fra"),
        ("de-CH", "deu"),
        ("rm", "roh"),
        ("cop", "cop"),
        ("x-cpa", None),  # private use
        ("qaa", None),  # reserved for local use
        ("not a tag", None),
        ("", None),
    ],
)
def test_language_alpha3(code, alpha3):
    assert language_alpha3(code) == alpha3
