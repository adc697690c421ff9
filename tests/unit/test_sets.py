"""catalog.publishing.sets: which sets are advertised and which items each selects (over HTTP: test_oai_sets.py)."""

from __future__ import annotations

import pytest

from catalog.domain.loader import load_catalog
from catalog.publishing.sets import OPENAIRE_SET, SetIndex, build_sets, with_openaire
from tests import datadir


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> SetIndex:
    """0AA1 and 0AA3 have records and form a cluster; 0AA2 has no records and no access right (not OpenAIRE)."""
    root = datadir.write_data_dir(
        tmp_path_factory.mktemp("sets"),
        projects=[datadir.project("0AA1"), datadir.project("0AA2", accessRights=None), datadir.project("0AA3")],
        clusters=[
            {"id": "cluster-001", "name": "Lakes", "projects": ["0AA1", "0AA3"]},
            {"id": "cluster-002", "name": "Nothing yet", "projects": []},
        ],
        records={"0AA1": [datadir.record("0AA1", "a")], "0AA3": [datadir.record("0AA3", "b")]},
    )
    catalog = load_catalog(root)
    assert [project.shortcode for project in catalog.projects] == ["0AA1", "0AA2", "0AA3"]  # indexes 0, 1, 2
    return build_sets(catalog)


def test_advertised_sets_in_order_with_what_they_select(index: SetIndex):
    assert [(s.spec, s.selection.projects, s.selection.records, s.selection.indexes) for s in index.sets] == [
        ("entityType", True, True, (0, 1, 2)),
        ("entityType:ResearchProject", True, False, (0, 1, 2)),
        ("entityType:Record", False, True, (0, 2)),
        ("project", False, True, (0, 2)),
        ("openaire_data", True, True, (0, 2)),
        ("project:0AA1", False, True, (0,)),  # 0AA2 has no records: no set of its own
        ("project:0AA3", False, True, (2,)),
        ("cluster", True, True, (0, 2)),
        ("cluster:cluster-001", True, True, (0, 2)),  # a cluster without projects is not advertised
    ]
    assert index.find("cluster:cluster-001").name == "Lakes"


def test_each_item_names_its_sets_with_their_parents(index: SetIndex):
    assert index.project_specs == (
        ("entityType", "entityType:ResearchProject", "cluster", "cluster:cluster-001", "openaire_data"),
        ("entityType", "entityType:ResearchProject"),
        ("entityType", "entityType:ResearchProject", "cluster", "cluster:cluster-001", "openaire_data"),
    )
    assert index.record_specs[0] == (
        "entityType",
        "entityType:Record",
        "project",
        "project:0AA1",
        "cluster",
        "cluster:cluster-001",
        "openaire_data",
    )
    # A record is in its project's set whatever is loaded (``svc stamp`` reads no records).
    assert index.record_specs[1] == ("entityType", "entityType:Record", "project", "project:0AA2")


@pytest.mark.parametrize(
    "spec, found",
    [
        ("project:0AA1", "project:0AA1"),
        ("project:0aa1", "project:0AA1"),  # shortcodes are case-insensitive
        ("project:0AA2", None),  # not advertised: selects nothing
        ("cluster:CLUSTER-001", None),  # other ids are not
        ("cluster:cluster-002", None),
        ("entityType:Cluster", None),
        ("openaire_data", "openaire_data"),
    ],
)
def test_find(index: SetIndex, spec, found):
    result = index.find(spec)
    assert (result.spec if result else None) == found


def test_with_openaire_adds_it_last_or_removes_it():
    specs = ("entityType", "entityType:Record", OPENAIRE_SET, "project", "project:0AA1")
    assert with_openaire(specs, True) == ("entityType", "entityType:Record", "project", "project:0AA1", OPENAIRE_SET)
    assert with_openaire(specs, False) == ("entityType", "entityType:Record", "project", "project:0AA1")
    assert with_openaire(("entityType",), False) == ("entityType",)
