"""What OAI-PMH serves and what `svc stamp` fingerprints are byte for byte what the renderers gave before they were
made faster, for the real corpus and a generated one (tests/render_digests.py, tests/fixtures/rendered-digests.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CORPUS_DIR, SVC
from tests.render_digests import DIGESTS, corpus_digests, make_synthetic

EXPECTED = json.loads(DIGESTS.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_the_real_corpus_renders_as_before():
    assert corpus_digests(CORPUS_DIR, Path(SVC)) == EXPECTED["dsp"]


@pytest.mark.slow
def test_a_generated_corpus_renders_as_before(tmp_path: Path):
    assert corpus_digests(make_synthetic(tmp_path / "corpus"), Path(SVC)) == EXPECTED["synthetic-2k"]
