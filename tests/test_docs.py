"""The documentation agrees with the tree: the code map, the links, the README's length."""

from __future__ import annotations

import re

from tests.conftest import PROJECT_ROOT

DOCS = PROJECT_ROOT / "docs"
# The service's packages: every module in them has a line in the code map.
MAPPED_PACKAGES = ("svc_site", "catalog", "oaipmh", "healthz", "validation", "apiusage")


def code_map() -> list[str]:
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    return re.findall(r"^- `([\w./]+)` — \S", text, flags=re.MULTILINE)


def service_modules() -> set[str]:
    return {
        path.relative_to(PROJECT_ROOT).as_posix()
        for package in MAPPED_PACKAGES
        for path in (PROJECT_ROOT / package).rglob("*.py")
        if path.name != "__init__.py"
    } | {"manage.py"}


def test_every_path_in_the_code_map_exists():
    listed = code_map()
    assert len(listed) == len(set(listed)), "a path is listed twice"
    missing = [path for path in listed if not (PROJECT_ROOT / path).exists()]
    assert missing == []


def test_every_module_is_in_the_code_map():
    assert sorted(service_modules() - set(code_map())) == []


def test_every_package_with_modules_is_in_the_code_map():
    packages = {module.rpartition("/")[0] + "/" for module in service_modules() if "/" in module}
    assert sorted(packages - set(code_map())) == []


def test_relative_links_in_the_docs_point_at_files():
    broken = []
    for document in [PROJECT_ROOT / "README.md", PROJECT_ROOT / "CONTRIBUTING.md", *DOCS.glob("*.md")]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", document.read_text(encoding="utf-8")):
            if not (document.parent / target).exists():
                broken.append(f"{document.name}: {target}")
    assert broken == []


def test_the_readme_stays_short():
    assert len((PROJECT_ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 150
