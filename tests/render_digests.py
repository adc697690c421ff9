"""Digests of every byte svc renders for OAI-PMH, per metadata format: the reference that renderer speed-ups keep.

For each format, one BLAKE2b over every item's complete ``<record>``
(header, then metadata) in repository order, as ``ListRecords`` returns
them, over a data directory without a ledger (so datestamps are the data's
own); and one over what ``svc stamp`` writes of each item in its ledger
(kind, key and fingerprint, in ledger order: the fingerprint is a digest of every
format's bytes), so that a stamp after a change to the renderers finds
nothing changed against a ledger written before it. The corpora are the real one (``../shared/corpus/dsp``) and a
2,000-record one from ``bench/make_corpus.py`` (seed 1).

``tests/fixtures/rendered-digests.json`` holds the digests of the renderers
as they were before they were made faster; regenerate it only when an output
is meant to change (and say so in CHANGELOG.md)::

    .venv/bin/python -m tests.render_digests --write
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conftest import CORPUS_DIR, SVC

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DIGESTS = PROJECT_ROOT / "tests" / "fixtures" / "rendered-digests.json"
SYNTHETIC_RECORDS = 2000
SYNTHETIC_SEED = "1"
REPOSITORY_IDENTIFIER = "meta.dasch.swiss"
SITE_URL = "https://meta.example.org"


def make_synthetic(destination: Path) -> Path:
    """The 2,000-record corpus of ``bench/make_corpus.py`` (the same bytes every time)."""
    script = PROJECT_ROOT / "bench" / "make_corpus.py"
    subprocess.run(
        [sys.executable, str(script), str(destination), "--records", str(SYNTHETIC_RECORDS), "--seed", SYNTHETIC_SEED],
        check=True,
        capture_output=True,
    )
    return destination


def rendered_digests(data_dir: Path) -> dict[str, object]:
    """{"items": how many, prefix: digest of every item's <record> in that format, in repository order}."""
    from catalog.domain.loader import load_catalog
    from catalog.publishing.formats import FORMATS
    from oaipmh.repository import Repository

    repository = Repository(load_catalog(data_dir), REPOSITORY_IDENTIFIER, SITE_URL)
    positions = [
        position
        for project, table in enumerate(repository.tables)
        for position in [(project, -1), *((project, row) for row in range(len(table) if table else 0))]
    ]
    found: dict[str, object] = {"items": len(positions)}
    for prefix, metadata_format in FORMATS.items():
        digest = hashlib.blake2b(digest_size=16)
        for position in positions:
            digest.update(repository.record(position, metadata_format).encode() + b"\n")
        found[prefix] = digest.hexdigest()
    return found


def stamped_digest(data_dir: Path, svc: Path) -> str:
    """Digest of each item's kind, key and fingerprint in the ledger ``svc stamp`` writes (on a copy)."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "data"
        shutil.copytree(data_dir, copy, ignore=shutil.ignore_patterns(".svc"))
        subprocess.run([str(svc), "stamp", str(copy), "--activate-in", "0"], check=True, capture_output=True)
        digest = hashlib.blake2b(digest_size=16)
        with (copy / ".svc" / "ledger.tsv").open(encoding="utf-8") as lines:
            next(lines)  # the version line
            for line in lines:
                digest.update("\t".join(line.split("\t", 3)[:3]).encode() + b"\n")
        return digest.hexdigest()


def corpus_digests(data_dir: Path, svc: Path) -> dict[str, object]:
    return {**rendered_digests(data_dir), "ledger": stamped_digest(data_dir, svc)}


def all_digests(svc: Path) -> dict[str, dict[str, object]]:
    with tempfile.TemporaryDirectory() as scratch:
        synthetic = make_synthetic(Path(scratch) / "corpus")
        return {"dsp": corpus_digests(CORPUS_DIR, svc), "synthetic-2k": corpus_digests(synthetic, svc)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {DIGESTS.relative_to(PROJECT_ROOT)}")
    parser.add_argument("--svc", type=Path, default=Path(SVC), help="the svc command that stamps")
    args = parser.parse_args()
    text = json.dumps(all_digests(args.svc), indent=2, sort_keys=True) + "\n"
    if args.write:
        DIGESTS.write_text(text, encoding="utf-8")
    print(text, end="")


if __name__ == "__main__":
    main()
