"""catalog.domain.values: one URI and one name per licence."""

from __future__ import annotations

import pytest

from catalog.domain.values import canonical_licence_uri, licence_label


@pytest.mark.parametrize(
    "written",
    [
        "https://creativecommons.org/licenses/by/4.0/",
        "https://creativecommons.org/licenses/by/4.0",
        "http://creativecommons.org/licenses/by/4.0/",
        "https://creativecommons.org/licenses/by/4.0/deed.de",
        "https://creativecommons.org/licenses/by/4.0/deed.en ",
        "https://creativecommons.org/licenses/by/4.0/legalcode",
    ],
)
def test_a_creative_commons_licence_has_one_uri(written):
    assert canonical_licence_uri(written) == "https://creativecommons.org/licenses/by/4.0/"


def test_ported_zero_and_other_licences():
    assert canonical_licence_uri("https://creativecommons.org/licenses/by-nc/3.0/ch") == (
        "https://creativecommons.org/licenses/by-nc/3.0/ch/"
    )
    assert canonical_licence_uri("https://creativecommons.org/publicdomain/zero/1.0") == (
        "https://creativecommons.org/publicdomain/zero/1.0/"
    )
    other = "https://www.volkskunde.ch/sgv/archive-und-sammlungen/volksliederarchiv"
    assert canonical_licence_uri(other) == other


@pytest.mark.parametrize(
    ("uri", "label"),
    [
        ("https://creativecommons.org/licenses/by-nc-sa/4.0/", "CC BY-NC-SA 4.0"),
        ("https://creativecommons.org/licenses/by-nc/3.0/ch/", "CC BY-NC 3.0 CH"),
        ("https://creativecommons.org/publicdomain/zero/1.0/", "CC0 1.0"),
        ("public domain", "public domain"),
    ],
)
def test_a_licence_is_named_as_people_name_it(uri, label):
    assert licence_label(uri) == label
