"""`svc stamp <data_dir>`: bring the change ledger beside the data up to date (docs/change-ledger.md).

Thin: the work is :func:`catalog.publishing.changes.stamp_release`, the merge and the file :mod:`catalog.domain.ledger`.
Exit status: 0 stamped (or nothing to stamp), 2 the data (or its ledger) does not load, another stamp of it runs or
a reading process was killed; the ledger is then untouched.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from catalog.domain.ledger import accept_shrink as accept_shrink_of
from catalog.domain.ledger import iso_time
from catalog.domain.loader import DataDirError, check_data_dir
from catalog.domain.progress import Progress
from catalog.domain.svc_dir import SVC_DIR, StampBusy, stamp_lock
from catalog.publishing.changes import StampRefused, StampUnfinished, stamp_release
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

        parser.add_argument(
            "--progress",
            action=argparse.BooleanOptionalAction,
            default=None,
            help="show the records read, the rate and the time left on standard error "
            "(default: when standard error is a terminal)",
        )

    def handle(
        self,
        *args: Any,
        data_dir: Path,
        dry_run: bool,
        activate_in: int,
        accept_shrink: bool,
        progress: bool | None,
        **options: Any,
    ) -> None:
        if activate_in < 0:
            self._refuse("--activate-in must be 0 or more seconds")
        shown = Progress.when(progress, self.stderr.isatty(), self._write_progress, "svc stamp")
        try:
            check_data_dir(Path(data_dir))  # no directory: that error alone, before any lock is taken in it
        except DataDirError as error:
            self._refuse(str(error))
        # One stamp at a time (a dry run writes nothing): the lock is held until the stamp and its readers end.
        try:
            with contextlib.nullcontext() if dry_run else stamp_lock(data_dir):
                origin = site_url(settings.SVC.oai_base_url)
                unfinished: StampUnfinished | None = None
                try:
                    summary = stamp_release(
                        data_dir, origin, int(time.time()), activate_in=activate_in, dry_run=dry_run, progress=shown
                    )
                except StampUnfinished as error:  # the release is stamped all the same
                    summary, unfinished = error.summary, error
                if accept_shrink and not dry_run:
                    accept_shrink_of(data_dir, summary.activation)
        except (StampRefused, StampBusy) as error:
            self._refuse(str(error))
        except OSError as error:  # .svc/ cannot be made or locked (a read-only data directory)
            self._refuse(f"{Path(data_dir) / SVC_DIR}: {error.strerror or error}")
        finally:
            if shown is not None:
                shown.close()
        prefix = "dry run: " if dry_run else ""
        activation = f"; served from {iso_time(summary.activation)}" if not summary.unchanged_release else ""
        accepted = ""
        if accept_shrink and not dry_run:
            accepted = f"; withdrawals of the release of {iso_time(summary.activation)} accepted"
        self.stdout.write(f"{prefix}{summary}{activation}{accepted}")
        if unfinished is not None:
            self.stderr.write(
                f"svc stamp: {unfinished.what} was not written: {unfinished.reason}; the release is stamped, "
                f"and `svc stamp {data_dir}` again writes {unfinished.what}"
            )
            raise SystemExit(2)

    def _write_progress(self, text: str) -> None:
        self.stderr.write(text, style_func=str, ending="")
        self.stderr.flush()

    def _refuse(self, reason: str) -> None:
        self.stderr.write(f"svc stamp: {reason}; the ledger is unchanged")
        raise SystemExit(2)
