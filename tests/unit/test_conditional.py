"""catalog.web.conditional: Last-Modified only for a known, real moment."""

from __future__ import annotations

import pytest

from catalog.domain.model import NO_DATESTAMP
from catalog.web.conditional import set_last_modified


def test_a_known_moment_is_an_http_date_in_gmt():
    response: dict[str, str] = {}
    set_last_modified(response, 1_700_000_000)
    assert response == {"Last-Modified": "Tue, 14 Nov 2023 22:13:20 GMT"}


def test_the_epoch_itself_is_a_moment():
    response: dict[str, str] = {}
    set_last_modified(response, 0)
    assert response == {"Last-Modified": "Thu, 01 Jan 1970 00:00:00 GMT"}


@pytest.mark.parametrize("stamp", [None, NO_DATESTAMP, -1])
def test_an_unknown_moment_sets_nothing(stamp):
    response: dict[str, str] = {}
    set_last_modified(response, stamp)
    assert response == {}
