"""catalog.domain.roles: role strings split into single roles (whole strings are in test_item_metadata.py)."""

from __future__ import annotations

import pytest

from catalog.domain.roles import is_leading_part, role_parts


@pytest.mark.parametrize(
    "role, parts",
    [
        ("Project Leader, Data Collector", ["Project Leader", "Data Collector"]),
        ("Editor; Translator / Reviewer & Curator", ["Editor", "Translator", "Reviewer", "Curator"]),
        ("Initiant des Projekts und Leiter des Teams", ["Initiant des Projekts", "Leiter des Teams"]),
        ("auteur et directeur", ["auteur", "directeur"]),
        ("Author AND Editor", ["Author", "Editor"]),
        ("Grandmother", ["Grandmother"]),  # "and" inside a word does not split
        ("  Data Curator ,, ", ["Data Curator"]),
        ("", []),
    ],
)
def test_role_parts(role, parts):
    assert role_parts(role) == parts


@pytest.mark.parametrize(
    "part, leading",
    [
        ("Project Leader", True),
        ("projektleiterin", True),
        ("cheffe de projet", True),
        ("Director", True),
        ("Director of Photography 2017", False),  # a craft, not the lead of the project
        ("Field Director", False),
        ("Data Curator", False),
    ],
)
def test_is_leading_part(part, leading):
    assert is_leading_part(part) is leading
