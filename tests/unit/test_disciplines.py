"""catalog.domain.disciplines: one facet value per SNSF code, one label each."""

from __future__ import annotations

import pytest

from catalog.domain.disciplines import facet_label, facet_value


@pytest.mark.parametrize(
    "text, value",
    [
        ("10404 Kunstgeschichte", "10404"),
        ("10404 Visual arts and Art history", "10404"),
        ("  10404   Visual arts ", "10404"),
        ("10404", "10404"),
        ("104045 Not a code", "104045 Not a code"),  # six digits: no SNSF code
        ("60404 Not SNSF", "60404 Not SNSF"),  # SNSF codes begin with 1 to 5
        ("UNESCO  5501 History", "UNESCO 5501 History"),  # other text: trimmed, spaces collapsed
    ],
)
def test_facet_value_is_the_snsf_code_else_the_trimmed_text(text, value):
    assert facet_value(text) == value


@pytest.mark.parametrize(
    "value, label",
    [
        ("10404", "10404 Visual arts and Art history"),
        ("10402", "10402 Archaeology"),
        ("19999", "SNSF 19999"),  # a code the list does not name
        ("UNESCO 5501 History", "UNESCO 5501 History"),
    ],
)
def test_facet_label(value, label):
    assert facet_label(value) == label


def test_spellings_of_one_discipline_share_one_value_and_label():
    texts = ["10404 Kunstgeschichte", "10404 Visual arts and Art history", "10404 Histoire de l'art"]
    assert {facet_label(facet_value(text)) for text in texts} == {"10404 Visual arts and Art history"}
