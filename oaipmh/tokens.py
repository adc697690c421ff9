"""Resumption tokens: stateless, short, opaque, signed, and valid across data releases (SPEC §5.5).

A token carries everything the next page needs: the request's format, set,
``from`` and ``until``, the moment the list was issued, where the last item
delivered stands in the repository's fixed order (its project's key and, for
a record, its pid, in the live part or the deletions that follow it), the
cursor and the list size. Positions are keys, not indexes, so a list goes on
from the same place after a new release has added or withdrawn items before
it, on any replica, without duplicates or skips (see docs/oai-pmh.md).

The payload is signed with HMAC-SHA-256 under the secret ``svc stamp`` keeps
beside the data (``.svc/token-key``), so a token cannot be altered or made
up; without a ledger the data version is the key and a token lives as long
as the data. A token older than :data:`LIFETIME` seconds is refused.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import zlib
from dataclasses import dataclass

FORMAT_VERSION = 2
VERB_CODES = {"ListIdentifiers": "I", "ListRecords": "R"}
LIFETIME = 7 * 86_400  # how long a harvester may take between two pages of one list
_CLOCK_SKEW = 300  # replicas' clocks may differ this much: a token "from the future" within it is accepted
_SIGNATURE_SIZE = 16
_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{1,2048}")
FOREIGN = "the resumptionToken is not one this repository issued"
DAMAGED = "the resumptionToken is damaged"


class BadResumptionToken(ValueError):
    """The token is not one this repository issued for this verb, or it has expired."""


@dataclass(frozen=True, slots=True)
class ListState:
    verb: str
    metadata_prefix: str
    set_spec: str | None
    low: int | None  # the request's from, in seconds
    high: int | None  # the request's until, in seconds
    issued: int  # when the list began: items first published later are left to the next incremental harvest
    deletions: bool  # the last item delivered is one of the deletions that follow the live items
    after: tuple[str, str]  # its key: (project key, "" for the project itself or the record's pid)
    cursor: int  # items delivered before the next page
    complete_list_size: int

    @property
    def expires(self) -> int:
        return self.issued + LIFETIME


def _signature(payload: bytes, key: bytes) -> bytes:
    return hmac.new(key, payload, hashlib.sha256).digest()[:_SIGNATURE_SIZE]


def encode(state: ListState, key: bytes) -> str:
    fields = [
        FORMAT_VERSION,
        VERB_CODES[state.verb],
        state.metadata_prefix,
        state.set_spec or "",
        state.low,
        state.high,
        state.issued,
        int(state.deletions),
        *state.after,
        state.cursor,
        state.complete_list_size,
    ]
    payload = zlib.compress(json.dumps(fields, separators=(",", ":"), ensure_ascii=False).encode(), 9)
    return base64.urlsafe_b64encode(payload + _signature(payload, key)).rstrip(b"=").decode()


def decode(token: str, verb: str, key: bytes, now: int) -> ListState:
    """The state a token carries; :class:`BadResumptionToken` with the reason if it cannot be used."""
    if not _TOKEN_RE.fullmatch(token):
        raise BadResumptionToken(FOREIGN)
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise BadResumptionToken(FOREIGN) from None
    payload, signature = raw[:-_SIGNATURE_SIZE], raw[-_SIGNATURE_SIZE:]
    if len(raw) <= _SIGNATURE_SIZE or not hmac.compare_digest(signature, _signature(payload, key)):
        raise BadResumptionToken(
            f"{FOREIGN} (or was issued for other data: with a change ledger, tokens survive new releases;"
            " without one, they end with the data)"
        )
    try:
        fields = json.loads(zlib.decompress(payload))
        (version, code, prefix, set_spec, low, high, issued, deletions, project, pid, cursor, size) = fields
    except (ValueError, TypeError, zlib.error):
        raise BadResumptionToken(FOREIGN) from None
    if version != FORMAT_VERSION:
        raise BadResumptionToken(FOREIGN)
    if code != VERB_CODES.get(verb):
        raise BadResumptionToken(f"this resumptionToken does not belong to {verb}")
    if not _well_typed(fields):
        raise BadResumptionToken(DAMAGED)
    if issued + LIFETIME < now:
        raise BadResumptionToken(
            f"the resumptionToken expired (a list must be continued within {LIFETIME // 86_400} days);"
            " start the list again"
        )
    # A token is only issued mid-list, and never ahead of the clocks of the replicas.
    if not (0 < cursor < size and issued <= now + _CLOCK_SKEW):
        raise BadResumptionToken(DAMAGED)
    return ListState(verb, prefix, set_spec or None, low, high, issued, bool(deletions), (project, pid), cursor, size)


def _well_typed(fields: list[object]) -> bool:
    """Every field of the type it is written with (without a ledger the key is public: forged tokens check out)."""
    _, _, prefix, set_spec, low, high, issued, deletions, project, pid, cursor, size = fields

    def number(value: object) -> bool:
        return type(value) is int

    return (
        all(isinstance(value, str) for value in (prefix, set_spec, project, pid))
        and all(value is None or number(value) for value in (low, high))
        and all(number(value) for value in (issued, cursor, size))
        and type(deletions) is int
        and deletions in (0, 1)
    )
