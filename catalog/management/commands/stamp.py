"""`svc stamp <data_dir>`: bring the change ledger beside the data up to date (docs/change-ledger.md).

Thin: the work is :func:`catalog.publishing.changes.stamp_release`, the merge and the file :mod:`catalog.domain.ledger`.
Exit status: 0 stamped (or nothing to stamp), 2 the data (or its ledger) does not load; the ledger is then untouched.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from catalog.domain.ledger import accept_shrink as accept_shrink_of
from catalog.domain.ledger import iso_time
from catalog.publishing.changes import StampRefused, stamp_release
from catalog.publishing.oai_identifiers import site_url

DEFAULT_ACTIVATE_IN = 300


class Command(BaseCommand):
    # Django's system checks import every URLconf and view (rdflib, numpy, the templates): half a second of
    # every run spent on the web site, which this offline command never serves.
    requires_system_checks = ()
    help = (
        "Compare a data directory with its change ledger (<data_dir>/.svc/ledger.tsv) and update it: "
        "fingerprints of what harvesters receive, first-seen and last-changed times, tombstones of withdrawn "
        "items, and the release's activation time; and write the snapshot of the records and their search index "
        "that svc serve opens (<data_dir>/.svc/snapshot.bin). Prints 'added N, changed N, deleted N, unchanged N' "
        "and when replicas serve the release. Exit 0, or 2 if the data directory does not load cleanly (the ledger is "
        "then left untouched)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("data_dir", type=Path, help="the data directory (projects/, records/, …)")
        parser.add_argument("--dry-run", action="store_true", help="print the summary; write nothing")
        parser.add_argument(
            "--activate-in",
            type=int,
            default=DEFAULT_ACTIVATE_IN,
            metavar="SECONDS",
            help=(
                "replicas serve the new release this many seconds from now, not before "
                f"(default {DEFAULT_ACTIVATE_IN}); deploy it to every replica within that time"
            ),
        )

        parser.add_argument(
            "--accept-shrink",
            action="store_true",
            help=(
                "accept this release's withdrawals: svc serve starts and reloads on it even when it withdrew more "
                "than SVC_RELOAD_MAX_SHRINK of a type (for this release only; .svc/shrink-accepted)"
            ),
        )

    def handle(
        self, *args: Any, data_dir: Path, dry_run: bool, activate_in: int, accept_shrink: bool, **options: Any
    ) -> None:
        if activate_in < 0:
            self._refuse("--activate-in must be 0 or more seconds")
        try:
            origin = site_url(settings.SVC.oai_base_url)
            summary = stamp_release(data_dir, origin, int(time.time()), activate_in=activate_in, dry_run=dry_run)
        except StampRefused as error:
            self._refuse(str(error))
        prefix = "dry run: " if dry_run else ""
        activation = f"; served from {iso_time(summary.activation)}" if not summary.unchanged_release else ""
        accepted = ""
        if accept_shrink and not dry_run:
            accept_shrink_of(data_dir, summary.activation)
            accepted = f"; withdrawals of the release of {iso_time(summary.activation)} accepted"
        self.stdout.write(f"{prefix}{summary}{activation}{accepted}")

    def _refuse(self, reason: str) -> None:
        self.stderr.write(f"svc stamp: {reason}; the ledger is unchanged")
        raise SystemExit(2)
