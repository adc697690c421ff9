"""Resumption tokens: stateless, URL-safe, verb-specific, bound to the data version (SPEC §5.5).

A token carries everything the next page needs (format, set, date range, the
position of its first item, the cursor and the list size), so any process
serving the same data continues the list, across restarts and replicas, and
no server keeps state. It ends in a checksum keyed with the data version: a
token from other data, or a damaged one, is refused (badResumptionToken).
The checksum is no secret (the data version is public), so every field is
also bounds-checked: a hand-made token can only name a position a harvester
could reach anyway, never a negative cursor or one past the list's end.
Each token of a list differs from the others: the position and cursor grow.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from dataclasses import dataclass

FORMAT_VERSION = "1"
VERB_CODES = {"ListIdentifiers": "I", "ListRecords": "R"}
_SEPARATOR = "|"  # in neither a metadataPrefix nor a setSpec
_CHECKSUM_SIZE = 8
_VERSION_PREFIX = 8  # characters of the data version kept in clear, to say why a token is refused
_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{1,512}")
# Fields are checked by their digits, not by int(), which also takes "+1", " 1", "1_0" and non-ASCII digits.
_COUNT_RE = re.compile(r"[0-9]{1,15}")
_SECONDS_RE = re.compile(r"-?[0-9]{1,15}")


class BadResumptionToken(ValueError):
    """The token is not one this repository issued for this verb and this data."""


@dataclass(frozen=True, slots=True)
class ListState:
    verb: str
    metadata_prefix: str
    set_spec: str | None
    low: int | None  # the request's from, in seconds
    high: int | None  # the request's until, in seconds
    project: int  # position of the next item
    record: int
    cursor: int  # items delivered before the next page
    complete_list_size: int


def _checksum(payload: bytes, data_version: str) -> bytes:
    return hashlib.blake2b(payload, key=data_version.encode()[:64], digest_size=_CHECKSUM_SIZE).digest()


def _number(value: int | None) -> str:
    return "" if value is None else str(value)


def encode(state: ListState, data_version: str) -> str:
    payload = _SEPARATOR.join(
        (
            FORMAT_VERSION,
            VERB_CODES[state.verb],
            data_version[:_VERSION_PREFIX],
            state.metadata_prefix,
            state.set_spec or "",
            _number(state.low),
            _number(state.high),
            str(state.project),
            str(state.record),
            str(state.cursor),
            str(state.complete_list_size),
        )
    ).encode()
    return base64.urlsafe_b64encode(payload + _checksum(payload, data_version)).rstrip(b"=").decode()


def decode(token: str, verb: str, data_version: str) -> ListState:
    if not _TOKEN_RE.fullmatch(token):
        raise BadResumptionToken("the resumptionToken is not one this repository issued")
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise BadResumptionToken("the resumptionToken is not one this repository issued") from None
    payload, checksum = raw[:-_CHECKSUM_SIZE], raw[-_CHECKSUM_SIZE:]
    fields = payload.decode("utf-8", "replace").split(_SEPARATOR)
    if len(fields) != 11 or fields[0] != FORMAT_VERSION:
        raise BadResumptionToken("the resumptionToken is not one this repository issued")
    if fields[2] != data_version[:_VERSION_PREFIX]:
        raise BadResumptionToken("the data changed since this resumptionToken was issued; start the list again")
    if not hmac.compare_digest(checksum, _checksum(payload, data_version)):
        raise BadResumptionToken("the resumptionToken is damaged")
    if fields[1] != VERB_CODES.get(verb):
        raise BadResumptionToken(f"this resumptionToken does not belong to {verb}")
    _, _, _, prefix, set_spec, low, high, project, record, cursor, size = fields
    if not (
        all(_COUNT_RE.fullmatch(value) for value in (project, record, cursor, size))
        and all(not value or _SECONDS_RE.fullmatch(value) for value in (low, high))
    ):
        raise BadResumptionToken("the resumptionToken is damaged")
    state = ListState(
        verb=verb,
        metadata_prefix=prefix,
        set_spec=set_spec or None,
        low=int(low) if low else None,
        high=int(high) if high else None,
        project=int(project),
        record=int(record),
        cursor=int(cursor),
        complete_list_size=int(size),
    )
    # A token is only ever issued for a page that is not the first and not past the end.
    if not 0 < state.cursor < state.complete_list_size:
        raise BadResumptionToken("the resumptionToken is damaged")
    return state
