"""Render time of the DCAT-AP bodies in-process: the catalogue's first page and one project, each format.

Each figure is building the graph and writing it (what a page-cache miss costs),
best of ``--runs``. With ``--compare FILE`` (another version of
``catalog/formats/dcat.py``, e.g. ``git show REV:catalog/formats/dcat.py > /tmp/dcat_rev.py``)
the two are timed interleaved in the same process, so that a busy machine slows both alike.

    .venv/bin/python bench/rdf_render.py [--data-dir DIR] [--shortcode 0803] [--runs 5] [--compare FILE]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = PROJECT_ROOT.parent / "shared" / "corpus" / "dsp"
sys.path.insert(0, str(PROJECT_ROOT))

from catalog.domain.loader import load_catalog  # noqa: E402
from catalog.domain.model import Catalog  # noqa: E402
from catalog.formats import dcat  # noqa: E402

BASE = "https://meta.example.org"


def load_module(path: Path) -> ModuleType:
    """Another version of the DCAT writer, beside the current one."""
    spec = importlib.util.spec_from_file_location("dcat_compared", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def bodies(catalog: Catalog, shortcode: str) -> dict[str, Callable[[ModuleType], object]]:
    project = catalog.get_project(shortcode)
    if project is None:
        raise SystemExit(f"{shortcode}: no such project")

    def site(module: ModuleType) -> object:
        return module.Site(BASE, "Bench", BASE + "/oai", "a@example.org", "http://creativecommons.org/licenses/by/4.0/")

    return {
        "catalogue page 1": lambda m: m.catalogue_page(catalog, site(m), 1, BASE + "/catalogue/dcat?page={page}"),
        f"project {shortcode}": lambda m: m.project_graph(catalog, project, site(m)),
    }


def render_ms(module: ModuleType, build: Callable[[ModuleType], object], media_type: str) -> float:
    start = time.perf_counter()
    module.serialise(build(module), media_type)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--shortcode", default="0803")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--compare", type=Path, help="another catalog/formats/dcat.py, timed against this one")
    args = parser.parse_args()
    catalog = load_catalog(args.data_dir)
    modules = {"this": dcat}
    if args.compare:
        modules = {"compared": load_module(args.compare), "this": dcat}
    print(f"{'body':18} {'media type':22} " + " ".join(f"{label + ' (ms)':>14}" for label in modules))
    for name, build in bodies(catalog, args.shortcode).items():
        for media_type in dcat.FORMATS.values():
            best = dict.fromkeys(modules, float("inf"))
            for _ in range(args.runs):
                for label, module in modules.items():
                    best[label] = min(best[label], render_ms(module, build, media_type))
            print(f"{name:18} {media_type:22} " + " ".join(f"{best[label]:14.1f}" for label in modules))


if __name__ == "__main__":
    main()
