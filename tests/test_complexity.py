"""The shape of the code: no function of a service package above radon's cyclomatic complexity C (20).

The same bound as ``radon cc -s -n D catalog oaipmh svc_site validation healthz apiusage``
printing nothing (CONTRIBUTING.md); a function that grows past it is split into named helpers.
"""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_rank, cc_visit

ROOT = Path(__file__).resolve().parent.parent
SERVICE_PACKAGES = ("catalog", "oaipmh", "svc_site", "validation", "healthz", "apiusage")
HIGHEST_COMPLEXITY = 20  # radon's rank C ends here; D starts at 21


def test_the_bound_is_radons_rank_c() -> None:
    assert (cc_rank(HIGHEST_COMPLEXITY), cc_rank(HIGHEST_COMPLEXITY + 1)) == ("C", "D")


def test_no_function_of_a_service_package_is_above_rank_c() -> None:
    too_complex = []
    for package in SERVICE_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for block in cc_visit(path.read_text(encoding="utf-8")):
                if block.complexity > HIGHEST_COMPLEXITY:
                    where = f"{path.relative_to(ROOT)}:{block.lineno}"
                    too_complex.append(f"{where} {block.fullname} {cc_rank(block.complexity)} ({block.complexity})")
    assert too_complex == []
