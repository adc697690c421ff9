"""Last-Modified from the change ledger, for pages, API documents and the sitemap (RFC 9110 §8.8.2)."""

from __future__ import annotations

import time
from email.utils import formatdate
from typing import Any

from catalog.domain.model import NO_DATESTAMP


def set_last_modified(response: Any, stamp: int | None) -> None:
    """Set ``Last-Modified`` on a response (anything with item assignment) when the time is known.

    Never later than now (RFC 9110 §8.8.2.1): a start before its release's activation time serves the
    release's pages at once, while its ledger dates the release's changes with that time.
    """
    if stamp is not None and stamp != NO_DATESTAMP and stamp >= 0:
        response["Last-Modified"] = formatdate(min(stamp, int(time.time())), usegmt=True)
