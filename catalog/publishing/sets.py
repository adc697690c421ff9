"""OAI-PMH sets (SPEC §5.3) and which items each one selects.

``entityType:ResearchProject``/``Record``, ``project:<shortcode>`` (that
project's records), ``cluster:<id>`` (the cluster's projects and their records)
and ``openaire_data`` (what the OpenAIRE Guidelines for Data Archives ask a
data archive to expose; see :func:`item_metadata.meets_openaire_mandatory`). A ``:``
is a level of the set hierarchy, so ``entityType``, ``project`` and
``cluster`` are sets too, each the union of its children.

A set that can never hold an item is not advertised: clusters are not items
(no ``entityType:ProjectCluster``), and a project without records has no
``project:<shortcode>`` set. Asking for a set that is not advertised selects
nothing (``noRecordsMatch``).

A selection is a list of project indexes plus whether those projects and/or
their records are in the set, so listing and counting never test membership
item by item.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from catalog.domain.model import Catalog, Project
from catalog.formats.item_metadata import meets_openaire_mandatory

logger = logging.getLogger("oaipmh")

SET_SPEC_RE = re.compile(r"[A-Za-z0-9\-_.!~*'()]+(?::[A-Za-z0-9\-_.!~*'()]+)*")

ENTITY_TYPE = "entityType"
PROJECT_SETS = "project"
CLUSTER_SETS = "cluster"
PROJECTS_SET = "entityType:ResearchProject"
RECORDS_SET = "entityType:Record"
OPENAIRE_SET = "openaire_data"  # setSpec and setName recommended by the OpenAIRE Guidelines for Data Archives


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
    with_records = tuple(index for index, project in enumerate(projects) if catalog.records_of(project))
    openaire = tuple(index for index, project in enumerate(projects) if meets_openaire_mandatory(catalog, project))
    own_specs, own_sets = _project_sets(projects, frozenset(with_records))
    clusters_of, cluster_sets = _cluster_sets(catalog)
    sets = [*_top_sets(len(projects), with_records, openaire), *own_sets]
    clustered = tuple(index for index, specs in enumerate(clusters_of) if specs)
    if clustered:
        sets.append(
            OaiSet(CLUSTER_SETS, "Project clusters (their projects and records)", Selection(True, True, clustered))
        )
    sets.extend(cluster_sets)
    openaire_of = frozenset(openaire)
    project_specs = tuple(
        _with_parents([PROJECTS_SET, *clusters_of[i], *_openaire_spec(i in openaire_of)]) for i in range(len(projects))
    )
    record_specs = tuple(
        _with_parents([RECORDS_SET, *filter(None, [own_specs[i]]), *clusters_of[i], *_openaire_spec(i in openaire_of)])
        for i in range(len(projects))
    )
    aliases = {oai_set.spec.lower(): oai_set for oai_set in own_sets}  # project:<lowercase shortcode>
    by_spec = {**aliases, **{oai_set.spec: oai_set for oai_set in sets}}
    return SetIndex(tuple(sets), by_spec, project_specs, record_specs)


def _top_sets(count: int, with_records: tuple[int, ...], openaire: tuple[int, ...]) -> list[OaiSet]:
    """The entity-type sets and ``openaire_data``, each advertised only when it can hold an item."""
    everything = tuple(range(count))
    sets = [
        OaiSet(ENTITY_TYPE, "Entity types", Selection(True, True, everything)),
        OaiSet(PROJECTS_SET, "Research Projects", Selection(True, False, everything)),
    ]
    if with_records:
        sets.append(OaiSet(RECORDS_SET, "Records", Selection(False, True, with_records)))
        sets.append(OaiSet(PROJECT_SETS, "Records by project", Selection(False, True, with_records)))
    if openaire:
        sets.append(OaiSet(OPENAIRE_SET, "OpenAIRE", Selection(True, True, openaire)))
    return sets


def _project_sets(projects: Sequence[Project], with_records: frozenset[int]) -> tuple[list[str | None], list[OaiSet]]:
    """Each project's ``project:<shortcode>`` spec, and the sets advertised (those with records to list).

    A record is in its project's set whatever is loaded (``svc stamp`` reads
    no records); the set is advertised only when it has records to list.
    """
    specs: list[str | None] = []
    advertised: list[OaiSet] = []
    for index, project in enumerate(projects):
        spec = _spec(PROJECT_SETS, project.shortcode)
        specs.append(spec)
        if spec and index in with_records:
            advertised.append(OaiSet(spec, project.name or project.shortcode, Selection(False, True, (index,))))
    return specs, advertised


def _cluster_sets(catalog: Catalog) -> tuple[list[list[str]], list[OaiSet]]:
    """Per project index, the ``cluster:<id>`` specs it is in; and the cluster sets that have projects."""
    projects = catalog.projects
    index_of = {project.key: index for index, project in enumerate(projects)}
    members: dict[str, set[int]] = {}
    for key, clusters in catalog.clusters_by_project.items():
        if key in index_of:
            for cluster in clusters:
                members.setdefault(cluster.id, set()).add(index_of[key])
    clusters_of: list[list[str]] = [[] for _ in projects]
    cluster_sets: list[OaiSet] = []
    for cluster in catalog.clusters.values():
        indexes = tuple(sorted(members.get(cluster.id, ())))
        spec = _spec(CLUSTER_SETS, cluster.id) if indexes else None
        if not spec:
            continue
        for index in indexes:
            clusters_of[index].append(spec)
        cluster_sets.append(OaiSet(spec, cluster.name or cluster.id, Selection(True, True, indexes)))
    return clusters_of, cluster_sets


def _openaire_spec(member: bool) -> tuple[str, ...]:
    return (OPENAIRE_SET,) if member else ()


def _with_parents(specs: Sequence[str]) -> tuple[str, ...]:
    """Specs in order, each preceded by its parent (the part before ``:``), each once."""
    ordered: list[str] = []
    for spec in specs:
        parent = spec.partition(":")[0]
        ordered.extend(name for name in (parent, spec) if name not in ordered)
    return tuple(ordered)


def with_openaire(specs: tuple[str, ...], member: bool) -> tuple[str, ...]:
    """An item's sets with ``openaire_data`` (always the last) added or removed.

    Membership depends on the project's records (its issue date may be their
    earliest); ``svc stamp``, which reads one project's records at a time,
    settles it per project with this.
    """
    without = tuple(spec for spec in specs if spec != OPENAIRE_SET)
    return (*without, OPENAIRE_SET) if member else without


def _spec(parent: str, name: str) -> str | None:
    spec = f"{parent}:{name}"
    if SET_SPEC_RE.fullmatch(spec):
        return spec
    logger.warning("no OAI-PMH set for %r: it has characters a setSpec cannot carry", name)
    return None
