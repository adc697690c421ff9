"""Which persistent identifier identifies an item, and when none can.

A pid identifies one thing. When several items carry the same pid (the five
projects 0801a-0801e and the cluster ``cluster-003-beol`` share one ARK), a
harvester that deduplicates by identifier would merge them, so none of them is
identified by it: each item is identified by its own landing-page URL, and the
shared pid becomes a related identifier (``IsPartOf`` the cluster that owns
it, where one does).

Framework-free: landing URLs are ``base_url`` + a page path the caller builds
(``catalog.formats.links``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from catalog.domain.model import Catalog, Cluster, Project, is_placeholder


def _pid(value: object) -> str | None:
    if isinstance(value, str) and value.strip() and not is_placeholder(value.strip()):
        return value.strip().rstrip("/")
    return None


@dataclass(frozen=True, slots=True)
class SharedPids:
    """The pids of projects that some other project or cluster also carries."""

    counts: Mapping[str, int]  # pid -> how many projects and clusters carry it (only those > 1)

    def is_shared(self, pid: str | None) -> bool:
        return pid is not None and pid.rstrip("/") in self.counts


def shared_pid_carriers(projects: Iterable[Project], clusters: Iterable[Cluster]) -> dict[str, int]:
    """pid -> how many of the projects and clusters carry it, for the pids more than one carries.

    Computed as the catalogue loads (:attr:`Catalog.shared_pid_carriers`), so that every catalogue made from it
    (the stamp makes one per project) has it.
    """
    carriers: Counter[str] = Counter()
    for project in projects:
        if pid := _pid(project.pid):
            carriers[pid] += 1
    for cluster in clusters:
        if pid := _pid(cluster.get("pid")):
            carriers[pid] += 1
    return {pid: n for pid, n in carriers.items() if n > 1}


def shared_pids(catalog: Catalog) -> SharedPids:
    """The catalogue's shared pids. Records' pids are unique by construction (their table is keyed by pid)."""
    return SharedPids(catalog.shared_pid_carriers)


@dataclass(frozen=True, slots=True)
class ItemIdentity:
    """What identifies an item, and the shared pid it is related to instead (if any)."""

    identifier: str
    identifier_type: str  # "ARK" | "DOI" | "URL"
    shared_pid: str | None = None


def pid_type(pid: str) -> str:
    """DataCite identifierType of a pid URL."""
    if "ark:/" in pid:
        return "ARK"
    if "doi.org/10." in pid or pid.lower().startswith("doi:"):
        return "DOI"
    return "URL"


def project_identity(catalog: Catalog, project: Project, landing_url: str) -> ItemIdentity:
    """The project's own pid if only it carries one; else its landing page (``base_url`` + page path)."""
    pid = _pid(project.pid)
    shared = shared_pids(catalog)
    if pid and not shared.is_shared(pid):
        return ItemIdentity(project.pid.strip(), pid_type(pid))
    if pid:
        return ItemIdentity(landing_url, "URL", project.pid.strip())
    return ItemIdentity(landing_url, "URL")
