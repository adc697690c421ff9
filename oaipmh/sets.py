"""OAI-PMH sets (SPEC §5.3) and which items each one selects.

``entityType:ResearchProject``/``Record``/``ProjectCluster``, ``project:<shortcode>``
(that project's records) and ``cluster:<id>`` (the cluster's projects and their
records). A ``:`` is a level of the set hierarchy, so ``entityType``,
``project`` and ``cluster`` are sets too, each the union of its children.
Clusters are not items, so ``entityType:ProjectCluster`` selects nothing.

A selection is a list of project indexes plus whether those projects and/or
their records are in the set, so listing and counting never test membership
item by item.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from catalog.domain.model import Catalog

logger = logging.getLogger("oaipmh")

SET_SPEC_RE = re.compile(r"[A-Za-z0-9\-_.!~*'()]+(?::[A-Za-z0-9\-_.!~*'()]+)*")

ENTITY_TYPE = "entityType"
PROJECT_SETS = "project"
CLUSTER_SETS = "cluster"
PROJECTS_SET = "entityType:ResearchProject"
RECORDS_SET = "entityType:Record"
CLUSTERS_SET = "entityType:ProjectCluster"


@dataclass(frozen=True, slots=True)
class Selection:
    projects: bool  # the projects themselves are in the set
    records: bool  # their records are in the set
    indexes: tuple[int, ...]  # ascending project indexes


@dataclass(frozen=True, slots=True)
class OaiSet:
    spec: str
    name: str
    selection: Selection


@dataclass(frozen=True, slots=True)
class SetIndex:
    sets: tuple[OaiSet, ...]  # in ListSets order
    by_spec: dict[str, OaiSet]
    project_specs: tuple[tuple[str, ...], ...]  # per project index: the sets of the project item
    record_specs: tuple[tuple[str, ...], ...]  # per project index: the sets of each of its records

    def find(self, spec: str) -> OaiSet | None:
        """The set of a setSpec; ``project:<shortcode>`` matches the shortcode case-insensitively."""
        found = self.by_spec.get(spec)
        if found is None and spec.startswith(PROJECT_SETS + ":"):
            found = self.by_spec.get(spec.lower())
        return found


def build_sets(catalog: Catalog) -> SetIndex:
    projects = catalog.projects
    everything = tuple(range(len(projects)))
    sets = [
        OaiSet(ENTITY_TYPE, "Entity types", Selection(True, True, everything)),
        OaiSet(PROJECTS_SET, "Research Projects", Selection(True, False, everything)),
        OaiSet(RECORDS_SET, "Records", Selection(False, True, everything)),
        OaiSet(CLUSTERS_SET, "Project Clusters", Selection(False, False, ())),
        OaiSet(PROJECT_SETS, "Records by project", Selection(False, True, everything)),
    ]
    project_set_specs: list[str | None] = []
    aliases: dict[str, OaiSet] = {}  # project:<lowercase shortcode>
    for index, project in enumerate(projects):
        spec = _spec(PROJECT_SETS, project.shortcode)
        project_set_specs.append(spec)
        if spec:
            sets.append(OaiSet(spec, project.name or project.shortcode, Selection(False, True, (index,))))
            aliases[spec.lower()] = sets[-1]

    index_of = {project.key: index for index, project in enumerate(projects)}
    members: dict[str, list[int]] = {}
    for key, clusters in catalog.clusters_by_project.items():
        for cluster in clusters:
            if key in index_of:
                members.setdefault(cluster.id, []).append(index_of[key])
    clusters_of: list[list[str]] = [[] for _ in projects]
    cluster_sets: list[OaiSet] = []
    for cluster in catalog.clusters.values():
        spec = _spec(CLUSTER_SETS, cluster.id)
        if not spec:
            continue
        indexes = tuple(sorted(set(members.get(cluster.id, ()))))
        for index in indexes:
            clusters_of[index].append(spec)
        cluster_sets.append(OaiSet(spec, cluster.name or cluster.id, Selection(True, True, indexes)))
    clustered = tuple(index for index, specs in enumerate(clusters_of) if specs)
    sets.append(OaiSet(CLUSTER_SETS, "Project clusters (their projects and records)", Selection(True, True, clustered)))
    sets.extend(cluster_sets)

    def with_parents(specs: Sequence[str]) -> tuple[str, ...]:
        ordered: list[str] = []
        for spec in specs:
            parent = spec.partition(":")[0]
            ordered.extend(name for name in (parent, spec) if name not in ordered)
        return tuple(ordered)

    project_specs = tuple(with_parents([PROJECTS_SET, *clusters_of[i]]) for i in range(len(projects)))
    record_specs = tuple(
        with_parents([RECORDS_SET, *filter(None, [project_set_specs[i]]), *clusters_of[i]])
        for i in range(len(projects))
    )
    by_spec = {**aliases, **{oai_set.spec: oai_set for oai_set in sets}}
    return SetIndex(tuple(sets), by_spec, project_specs, record_specs)


def _spec(parent: str, name: str) -> str | None:
    spec = f"{parent}:{name}"
    if SET_SPEC_RE.fullmatch(spec):
        return spec
    logger.warning("no OAI-PMH set for %r: it has characters a setSpec cannot carry", name)
    return None
