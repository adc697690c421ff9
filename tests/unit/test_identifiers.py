"""catalog.domain.identifiers: a pid identifies an item only when no other project or cluster carries it."""

from __future__ import annotations

import pytest

from catalog.domain.identifiers import ItemIdentity, project_identity, shared_pids
from catalog.domain.loader import load_catalog
from tests import datadir

OWN = "https://ark.example.org/ark:/99999/1/0AA1"
WITH_CLUSTER = "https://ark.example.org/ark:/99999/1/0CC0"  # two projects and their cluster
BETWEEN_PROJECTS = "https://doi.org/10.9999/shared"  # two projects, no cluster
LANDING = "https://meta.example.org/projects/"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    cluster = {"id": "cluster-001", "pid": WITH_CLUSTER, "name": "Lakes", "projects": ["0AA2", "0AA3"]}
    root = datadir.write_data_dir(
        tmp_path_factory.mktemp("identifiers"),
        projects=[
            datadir.project("0AA1", pid=OWN),
            datadir.project("0AA2", pid=WITH_CLUSTER),
            datadir.project("0AA3", pid=WITH_CLUSTER + "/"),  # a trailing slash is the same pid
            datadir.project("0AA4", pid=BETWEEN_PROJECTS),
            datadir.project("0AA5", pid=" " + BETWEEN_PROJECTS),
            datadir.project("0AA6", pid="MISSING"),
        ],
        clusters=[cluster],
    )
    return load_catalog(root)


def identity(catalog, shortcode: str) -> ItemIdentity:
    return project_identity(catalog, catalog.get_project(shortcode), LANDING + shortcode)


def test_shared_pids_count_every_carrier_projects_and_clusters(catalog):
    shared = shared_pids(catalog)
    assert shared.counts == {WITH_CLUSTER: 3, BETWEEN_PROJECTS: 2}
    assert shared.is_shared(WITH_CLUSTER + "/") and not shared.is_shared(OWN) and not shared.is_shared(None)


def test_a_pid_only_one_project_carries_identifies_it(catalog):
    assert identity(catalog, "0AA1") == ItemIdentity(OWN, "ARK")


def test_a_shared_pid_becomes_a_related_identifier_of_the_landing_page(catalog):
    for shortcode, pid in (("0AA2", WITH_CLUSTER), ("0AA3", WITH_CLUSTER + "/"), ("0AA5", BETWEEN_PROJECTS)):
        found = identity(catalog, shortcode)
        assert (found.identifier, found.identifier_type, found.shared_pid) == (LANDING + shortcode, "URL", pid)


def test_without_a_pid_the_landing_page_identifies_the_project(catalog):
    assert identity(catalog, "0AA6") == ItemIdentity(LANDING + "0AA6", "URL")
