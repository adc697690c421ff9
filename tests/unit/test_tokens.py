"""oaipmh.tokens: when a signed token is still usable (round trip and tampering are in test_oai_tokens.py)."""

from __future__ import annotations

import dataclasses

import pytest

from oaipmh import tokens

KEY = b"k" * 64
NOW = 1_800_000_000
STATE = tokens.ListState(
    "ListIdentifiers", "oai_dc", None, None, None, NOW, True, ("0803", ""), cursor=50, complete_list_size=51
)


def decoded(state: tokens.ListState, now: int = NOW) -> tokens.ListState:
    return tokens.decode(tokens.encode(state, KEY), state.verb, KEY, now)


def test_a_token_expires_its_lifetime_after_the_list_began():
    assert STATE.expires == NOW + tokens.LIFETIME
    assert decoded(STATE, now=STATE.expires) == STATE  # the last second it is good
    with pytest.raises(tokens.BadResumptionToken, match="expired"):
        decoded(STATE, now=STATE.expires + 1)


def test_a_token_from_a_replica_whose_clock_is_a_little_ahead_is_accepted():
    ahead = dataclasses.replace(STATE, issued=NOW + 300)
    assert decoded(ahead) == ahead
    with pytest.raises(tokens.BadResumptionToken, match="damaged"):
        decoded(dataclasses.replace(STATE, issued=NOW + 301))


@pytest.mark.parametrize(("cursor", "size"), [(0, 51), (51, 51), (52, 51)])
def test_a_token_is_only_issued_mid_list(cursor, size):
    with pytest.raises(tokens.BadResumptionToken, match="damaged"):
        decoded(dataclasses.replace(STATE, cursor=cursor, complete_list_size=size))


def test_no_set_and_no_bounds_survive_the_round_trip_as_none():
    assert (decoded(STATE).set_spec, decoded(STATE).low, decoded(STATE).high) == (None, None, None)


def test_anything_but_a_token_is_foreign():
    for text in ("", "not a token!", "A" * 2049, "AAAA"):
        with pytest.raises(tokens.BadResumptionToken, match="not one this repository issued"):
            tokens.decode(text, "ListRecords", KEY, NOW)
