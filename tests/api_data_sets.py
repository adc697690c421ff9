"""Data sets for the JSON API and sitemap tests: the corpus, and small fictional ones built in tmp_path."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from catalog.domain.loader import load_catalog
from catalog.domain.model import Catalog
from tests.conftest import CORPUS_DIR


@functools.cache
def corpus_catalog() -> Catalog:
    """Loaded once per test session: the catalogue is immutable."""
    return load_catalog(CORPUS_DIR)


def stored_objects(data_dir: Path, kind: str) -> list[dict[str, Any]]:
    """Every object of one type directory, read straight from the files."""
    objects: list[dict[str, Any]] = []
    for path in sorted((data_dir / kind).glob("*.json")):
        value = json.loads(path.read_text(encoding="utf-8"))
        objects.extend(value if isinstance(value, list) else [value])
    return objects


def _write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, ensure_ascii=False, indent=1), encoding="utf-8")


ARK = "https://ark.example.org/ark:/99999/1"

SMALL_PROJECTS = [
    {
        "id": "p-0a0f",
        "shortcode": "0A0F",
        "pid": f"{ARK}/0A0F",
        "name": "Lighthouse Logbooks of the Imaginary Coast",
        "status": "Ongoing",
        "description": {"en": "Logbooks kept by keepers of lighthouses that never existed."},
        "endDate": "MISSING",
        "funding": "No funding",
        "url": {"type": "URL", "url": "https://example.org/lighthouses"},
        "collections": ["collection-001"],
        "futureField": {"nested": [1, 2, {"deep": True}], "note": "kept as stored"},
    },
    {
        "id": "p-0b1c",
        "shortcode": "0b1c",
        "pid": f"{ARK}/0b1c",
        "name": "Recipes of the Northern Mills",
        "status": "CALCULATED",
        "keywords": "MISSING",
    },
]
SMALL_RECORDS = [
    {"id": "https://iri.example.org/0A0F/r2", "pid": f"{ARK}/0A0F/rec-2", "label": {"en": "Second logbook"}},
    {
        "id": "https://iri.example.org/0A0F/r1",
        "pid": f"{ARK}/0A0F/rec=1",
        "label": {"en": "First logbook"},
        "dateModified": "2021-03-04T05:06:07Z",
        "file": {"mimeType": "image/jpeg", "url": "https://files.example.org/r1.jpg"},
    },
    {"id": "https://iri.example.org/0A0F/r3", "pid": f"{ARK}/0A0F/rec-3", "label": "MISSING", "size": 1200},
]


def write_small_data_set(root: Path) -> Path:
    """A fictional repository with what the corpus lacks: collections, odd ids, placeholders, unknown fields."""
    _write(root / "projects" / "projects.json", SMALL_PROJECTS)
    _write(root / "records" / "0A0F-records.json", SMALL_RECORDS)
    _write(
        root / "persons" / "persons.json",
        [
            {"id": "person-ä&b", "givenNames": ["Ada"], "familyNames": ["Quill"], "affiliations": ["org 1"]},
            {"id": "person-002", "givenNames": ["MISSING"], "familyNames": ["Ink"], "hobby": "unknown field"},
        ],
    )
    _write(root / "organizations" / "org-1.json", {"id": "org 1", "name": {"en": "Imaginary Archive"}})
    _write(
        root / "clusters" / "cluster-001.json",
        {"id": "cluster-001", "name": "Coasts", "description": {"en": "Coastal projects."}, "projects": ["0A0F"]},
    )
    _write(
        root / "collections" / "collections.json",
        [
            {
                "id": "collection-001",
                "name": {"en": "Logbooks"},
                "projects": ["0A0F"],
                "records": ["https://iri.example.org/0A0F/r1"],
                "collections": ["collection-002"],
            },
            {"id": "collection-002", "name": "Loose pages", "projects": ["0A0F"]},
        ],
    )
    return root


def write_large_data_set(root: Path, records: int) -> Path:
    """One project with ``records`` minimal records, to cross the sitemap's 50,000-URL limit."""
    _write(root / "projects" / "0c0c.json", {"id": "p-0c0c", "shortcode": "0C0C", "pid": f"{ARK}/0C0C"})
    (root / "records").mkdir(parents=True)
    items = ",".join(f'{{"id":"https://iri.example.org/0C0C/{n}","pid":"{ARK}/0C0C/r{n:06d}"}}' for n in range(records))
    (root / "records" / "0C0C-records.json").write_text(f"[{items}]", encoding="utf-8")
    return root
