"""The layout's rules, checked on the source: dependencies point one way and no module imports itself back.

Layers, bottom first: ``catalog.domain`` (the catalogue, framework-free),
``catalog.formats`` (writers, framework-free), ``catalog.publishing`` (what
harvesters receive and ``svc stamp`` records: sets, identifiers, formats, the
stamp; framework-free), the protocol core of ``oaipmh`` (framework-free), then the Django surfaces (``catalog.pages``,
``catalog.api``, ``oaipmh.views``) and at the top the project, ``svc_site``.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
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


def imports_of(path: Path, *, with_type_checking: bool = True) -> set[str]:
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    return imports_in(path.read_text(), package, with_type_checking=with_type_checking)


def _type_checking_blocks(tree: ast.AST) -> set[int]:
    """The nodes under ``if TYPE_CHECKING:``: imports that only type checkers run."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            inside.update(id(child) for statement in node.body for child in ast.walk(statement))
    return inside


def imports_in(source: str, package: str, *, with_type_checking: bool = True) -> set[str]:
    """Every module a source imports, at the top or inside a function (lazy imports count).

    Imports under ``if TYPE_CHECKING:`` count for the layers (a name is a dependency)
    unless ``with_type_checking`` is false: they never run, so they close no import cycle.
    """
    tree = ast.parse(source)
    skipped = set() if with_type_checking else _type_checking_blocks(tree)
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
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


# The offline tools: `svc validate` and `svc check-api-usage` read the service's code, never the other way.
OFFLINE_TOOLS = ("validation", "apiusage")


@pytest.mark.parametrize("module", sorted(name for name in MODULES if not name.startswith(OFFLINE_TOOLS)))
def test_the_service_imports_no_offline_tool(module: str) -> None:
    """The JSON Schemas that the API and `svc validate` share live below both (``catalog.domain.schema``)."""
    found = _forbidden(imports_of(MODULES[module]), OFFLINE_TOOLS)
    assert not found, f"{module} imports {found}"


@pytest.mark.parametrize("module", sorted(name for name in MODULES if name.startswith(OFFLINE_TOOLS)))
def test_offline_tools_read_only_the_framework_free_catalogue(module: str) -> None:
    above = (
        "catalog.pages",
        "catalog.api",
        "catalog.web",
        "catalog.runtime",
        "catalog.management",
        "oaipmh",
        "svc_site",
    )
    found = _forbidden(imports_of(MODULES[module]), above)
    assert not found, f"{module} imports {found}"


def test_the_server_loads_no_offline_tool(tmp_path: Path) -> None:
    """What a worker loads (Django set up, the WSGI application, the URLconf) holds no module of `apiusage`."""
    script = (
        "import sys, django; django.setup()\n"
        "from django.urls import get_resolver\n"
        "from svc_site.wsgi import application\n"
        "get_resolver().url_patterns\n"
        "print(sorted(name for name in sys.modules if name.partition('.')[0] == 'apiusage'))\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "svc_site.settings"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "[]"  # the last line: logging may write before it


@pytest.mark.parametrize("module", sorted(name for name in MODULES if name.startswith("catalog")))
def test_catalog_never_imports_oaipmh(module: str) -> None:
    """The OAI-PMH provider is built on the catalogue, never the other way round (``svc stamp`` included;
    the admission limits the application state holds live in ``catalog.web.ratelimit``)."""
    found = _forbidden(imports_of(MODULES[module]), ("oaipmh",))
    assert not found, f"{module} imports {found}"


def _graph() -> dict[str, set[str]]:
    return {
        name: {i for i in imports_of(path, with_type_checking=False) if i in MODULES and i != name}
        for name, path in MODULES.items()
    }


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


def test_the_cycle_check_leaves_out_imports_only_type_checkers_run() -> None:
    """``Catalog.ledger`` names ``LedgerView`` for mypy while the ledger module imports the model."""
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from catalog.domain.ledger import LedgerView\n"
    assert "catalog.domain.ledger" in imports_in(source, "catalog.domain")
    assert "catalog.domain.ledger" not in imports_in(source, "catalog.domain", with_type_checking=False)


IMPORT_GRAPH = ROOT / "scripts" / "import-graph"


def test_the_committed_import_graph_is_the_codes() -> None:
    """docs/architecture.md draws the layers as the code imports them (`scripts/import-graph` redraws it)."""
    result = subprocess.run([sys.executable, IMPORT_GRAPH, "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.slow
def test_a_stale_import_graph_is_refused(tmp_path: Path) -> None:
    document = tmp_path / "architecture.md"
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    document.write_text(text.replace("    catalog_formats --> catalog_domain\n", ""), encoding="utf-8")
    check = [sys.executable, IMPORT_GRAPH, "--check", "--document", document]
    stale = subprocess.run(check, capture_output=True, text=True)
    assert (stale.returncode, stale.stderr) == (
        1,
        f"import-graph: {document} is out of date: run scripts/import-graph\n",
    )
    subprocess.run([sys.executable, IMPORT_GRAPH, "--document", document], check=True)
    assert document.read_text(encoding="utf-8") == text
