"""The layout's rules, checked on the source: dependencies point one way and no module imports itself back.

Layers, bottom first: ``catalog.domain`` (the catalogue, framework-free),
``catalog.formats`` (writers, framework-free), ``catalog.publishing`` (what
harvesters receive and ``svc stamp`` records: sets, identifiers, formats, the
stamp; framework-free), the protocol core of ``oaipmh`` (framework-free), then the Django surfaces (``catalog.pages``,
``catalog.api``, ``oaipmh.views``) and at the top the project, ``svc_site``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIRST_PARTY = ("catalog", "oaipmh", "healthz", "validation", "apiusage", "svc_site")
# The Django entry points of the OAI package; the rest of it is the framework-free protocol.
OAI_DJANGO_MODULES = {"oaipmh.views", "oaipmh.urls", "oaipmh.middleware"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found = {}
    for package in FIRST_PARTY:
        for path in (ROOT / package).rglob("*.py"):
            found[_module_name(path)] = path
    return found


MODULES = _modules()


def imports_of(path: Path) -> set[str]:
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    return imports_in(path.read_text(), package)


def imports_in(source: str, package: str) -> set[str]:
    """Every module a source imports, at the top or inside a function (lazy imports count)."""
    tree = ast.parse(source)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES)
    return names


def _forbidden(imported: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(name for name in imported if any(name == p or name.startswith(p + ".") for p in prefixes))


def _framework_free_modules() -> list[str]:
    chosen = [
        name
        for name in MODULES
        if name.startswith(("catalog.domain", "catalog.formats", "catalog.publishing", "catalog.web"))
        or (name.startswith("oaipmh") and name not in OAI_DJANGO_MODULES)
    ]
    return sorted(chosen)


def test_the_layers_exist() -> None:
    for package in ("catalog.domain", "catalog.formats", "catalog.pages", "catalog.api", "catalog.web"):
        assert package in MODULES, f"{package} is missing"
    assert len(_framework_free_modules()) > 20


@pytest.mark.parametrize("module", _framework_free_modules())
def test_framework_free_modules_import_neither_django_nor_the_site(module: str) -> None:
    found = _forbidden(imports_of(MODULES[module]), ("django", "svc_site", "environ", "gunicorn", "whitenoise"))
    assert not found, f"{module} imports {found}"


@pytest.mark.parametrize("module", sorted(name for name in MODULES if name.startswith(("catalog", "oaipmh"))))
def test_apps_never_import_the_project(module: str) -> None:
    found = _forbidden(imports_of(MODULES[module]), ("svc_site",))
    assert not found, f"{module} imports {found}"


@pytest.mark.parametrize("module", sorted(name for name in MODULES if name.startswith("catalog.domain")))
def test_domain_imports_nothing_above_it(module: str) -> None:
    above = ("catalog.formats", "catalog.pages", "catalog.api", "catalog.runtime", "catalog.web", "oaipmh")
    found = _forbidden(imports_of(MODULES[module]), above)
    assert not found, f"{module} imports {found}"


@pytest.mark.parametrize("module", sorted(name for name in MODULES if name.startswith("catalog.formats")))
def test_formats_import_only_the_domain(module: str) -> None:
    found = _forbidden(imports_of(MODULES[module]), ("catalog.pages", "catalog.api", "catalog.runtime", "oaipmh"))
    assert not found, f"{module} imports {found}"


@pytest.mark.parametrize("module", sorted(name for name in MODULES if name.startswith("catalog.publishing")))
def test_publishing_imports_only_the_domain_and_the_formats(module: str) -> None:
    above = ("catalog.pages", "catalog.api", "catalog.runtime", "catalog.web", "catalog.management", "oaipmh")
    found = _forbidden(imports_of(MODULES[module]), above)
    assert not found, f"{module} imports {found}"


@pytest.mark.parametrize("module", sorted(name for name in MODULES if name.startswith("catalog")))
def test_catalog_never_imports_oaipmh(module: str) -> None:
    """The OAI-PMH provider is built on the catalogue, never the other way round (``svc stamp`` included)."""
    found = _forbidden(imports_of(MODULES[module]), ("oaipmh",))
    assert not found, f"{module} imports {found}"


def _graph() -> dict[str, set[str]]:
    return {name: {i for i in imports_of(path) if i in MODULES and i != name} for name, path in MODULES.items()}


def test_no_import_cycle() -> None:
    graph = _graph()
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> None:
        if name in trail:
            cycle = [*trail[trail.index(name) :], name]
            pytest.fail("import cycle: " + " -> ".join(cycle))
        if name in done:
            return
        for imported in sorted(graph[name]):
            # A package's __init__ is imported with any of its modules; only real edges count.
            visit(imported, [*trail, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_the_checker_sees_lazy_and_relative_imports() -> None:
    """An import hidden inside a function (as the old store/telemetry cycle was) or written relatively counts."""
    source = "from . import links\ndef f():\n    from django.conf import settings\n    return settings\n"
    assert imports_in(source, "catalog.formats") == {"catalog.formats", "catalog.formats.links", "django.conf"}
