"""Count module-level mutable state in the service's packages (issue 25's "globals" figure).

A name counts when a function rebinds it through ``global``, when the module
mutates it in place (item assignment or a mutating method), or when it holds a
cache, store or limiter object. Run: ``python -m bench.mutable_globals``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

PACKAGES = ("catalog", "oaipmh", "svc_site", "validation", "healthz", "apiusage")
MUTATORS = frozenset(
    {"append", "add", "pop", "clear", "update", "setdefault", "move_to_end", "popitem", "extend", "remove", "discard"}
)
STATEFUL_SUFFIXES = ("Cache", "Store", "LRU", "Limit", "Lock", "local", "defaultdict", "OrderedDict", "Counter")


def module_names(tree: ast.Module) -> dict[str, ast.expr | None]:
    names: dict[str, ast.expr | None] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names.update((target.id, node.value) for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node.value
    return names


def _called_name(value: ast.expr | None) -> str:
    if not isinstance(value, ast.Call):
        return ""
    function = value.func
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else ""


def mutable_globals(tree: ast.Module) -> set[str]:
    names = module_names(tree)
    found = {name for name, value in names.items() if _called_name(value).endswith(STATEFUL_SUFFIXES)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.update(node.names)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            if isinstance(node.func.value, ast.Name) and node.func.value.id in names:
                found.add(node.func.value.id)
        elif isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update(
                target.value.id
                for target in targets
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id in names
            )
    return found


def scan(root: Path) -> Iterator[str]:
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            for name in sorted(mutable_globals(ast.parse(path.read_text(encoding="utf-8")))):
                yield f"{path.relative_to(root)}:{name}"


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()
    found = list(scan(root))
    print("\n".join(found))
    print(f"{len(found)} module-level mutable globals")


if __name__ == "__main__":
    main()
