"""`svc stamp <data_dir>`: bring the change ledger beside the data up to date (docs/change-ledger.md).

Thin: the merge and the file live in :mod:`catalog.domain.ledger`, the items in :mod:`oaipmh.changes`.
Exit status: 0 stamped (or nothing to stamp), 2 the data (or its ledger) does not load; the ledger is then untouched.
"""

from __future__ import annotations

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser

from catalog.domain import ledger
from catalog.domain.loader import DataDirError, iter_record_tables, load_catalog
from catalog.domain.snapshot import passing_into_snapshot
from oaipmh.changes import ledger_items


class Command(BaseCommand):
    help = (
        "Compare a data directory with its change ledger (<data_dir>/.svc/ledger.tsv) and update it: "
        "fingerprints, first-seen and last-changed times, tombstones of withdrawn items; and write the snapshot "
        "of the records and their search index that svc serve opens (<data_dir>/.svc/snapshot.bin). "
        "Prints 'added N, changed N, deleted N, unchanged N'. Exit 0, or 2 if the data directory does not "
        "load cleanly (the ledger is then left untouched)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("data_dir", type=Path, help="the data directory (projects/, records/, …)")
        parser.add_argument("--dry-run", action="store_true", help="print the summary; write nothing")

    def handle(self, *args, data_dir: Path, dry_run: bool, **options) -> None:
        try:
            # Records are read one project at a time while stamping: a million never sit in memory at once.
            catalog = load_catalog(data_dir, with_records=False)
        except DataDirError as error:
            self._refuse(str(error))
        # A file that does not load would look like a mass withdrawal: refuse rather than tombstone it.
        if catalog.problems:
            reasons = "; ".join(f"{problem.path}: {problem.reason}" for problem in catalog.problems[:5])
            self._refuse(f"{len(catalog.problems)} problem(s) loading {data_dir}: {reasons}")
        tables = iter_record_tables(data_dir, catalog.projects)
        # The same single pass writes the snapshot svc serve opens (docs/snapshot.md).
        items = ledger_items(catalog, tables if dry_run else passing_into_snapshot(data_dir, tables))
        try:
            summary = ledger.stamp(data_dir, items, int(time.time()), dry_run=dry_run)
        except DataDirError as error:
            self._refuse(str(error))
        except (ledger.LedgerError, OSError, UnicodeDecodeError) as error:
            self._refuse(f"{ledger.ledger_path(data_dir)}: {error}")
        prefix = "dry run: " if dry_run else ""
        self.stdout.write(f"{prefix}{summary}")

    def _refuse(self, reason: str) -> None:
        self.stderr.write(f"svc stamp: {reason}; the ledger is unchanged")
        raise SystemExit(2)
