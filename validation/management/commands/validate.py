"""`svc validate <data_dir>`: check a data directory before publishing it."""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand

from catalog.loader import DataDirError, load_catalog


class Command(BaseCommand):
    help = "Validate every data file under a data directory."

    def add_arguments(self, parser) -> None:
        parser.add_argument("data_dir", type=Path)

    def handle(self, *args, data_dir: Path, **options) -> None:
        try:
            catalog = load_catalog(data_dir)
        except DataDirError as error:
            self.stderr.write(f"svc validate: {error}")
            sys.exit(2)
        for problem in catalog.problems:
            self.stderr.write(f"{problem.path}: {problem.reason}")
        self.stdout.write(f"{len(catalog.problems)} problem(s)")
        sys.exit(1 if catalog.problems else 0)
