"""OAI identifiers and what stands in for missing values, the same for ``svc stamp`` and ``svc serve``.

An item's identifier is ``oai:<repository>:`` followed by its project's local
id (from its ARK) and, for a record, its pid after the prefix its project's
records share. The ledger remembers both for tombstones, so a withdrawn item
is listed under the identifier it had.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from urllib.parse import quote, urlsplit

from catalog.domain.model import Project, RecordTable, is_placeholder
from catalog.formats.xmltext import to_uri
from catalog.publishing.datestamps import FALLBACK_DATESTAMP, format_datestamp

DEFAULT_ARK_PREFIX = "ark:/72163/1"
# Marks a record whose pid does not share its project's pid prefix; its
# identifier then carries the whole (percent-encoded) pid.
FULL_PID_MARK = "~"


def site_url(base_url: str) -> str:
    """The origin of the OAI base URL: the site whose pages identify items that have no pid of their own."""
    parts = urlsplit(base_url)
    return f"{parts.scheme}://{parts.netloc}"


def project_local_ids(projects: Sequence[Project]) -> list[str]:
    """The part after ``oai:<repository>:`` of each project's identifier, unique by construction.

    Derived from the ARK pid (``ark:/72163/1/0803``); when pids collide (the
    five 0801a-0801e projects share one) or are missing, from the shortcode
    under the same ARK prefix (``ark:/72163/1/0801a``).
    """
    from_pids: list[str | None] = []
    for project in projects:
        pid = "" if is_placeholder(project.pid) else project.pid.strip()
        at = pid.find("ark:/")
        from_pids.append(to_uri(pid[at:].rstrip("/")) if at >= 0 and len(pid) > at + len("ark:/") else None)
    uses = Counter(from_pids)
    taken = {local for local in from_pids if local and uses[local] == 1}
    local_ids: list[str] = []
    for project, local in zip(projects, from_pids, strict=True):
        if local and uses[local] == 1:
            local_ids.append(local)
            continue
        base = local.rpartition("/")[0] if local and "/" in local[len("ark:/") :] else DEFAULT_ARK_PREFIX
        derived = to_uri(f"{base}/{project.shortcode}")
        while derived in taken:
            derived += FULL_PID_MARK
        taken.add(derived)
        local_ids.append(derived)
    return local_ids


def fallback_year(project: Project) -> str:
    """The year that stands in for a missing date in a project's and its records' metadata.

    From the project's own dates (SPEC §5.3), never from the ledger, so that
    what ``svc stamp`` renders is byte for byte what ``svc serve`` renders.
    """
    return format_datestamp(project.datestamp if project.datestamp is not None else FALLBACK_DATESTAMP)[:4]


def shared_pid_prefix(table: RecordTable | None) -> str:
    """The pid prefix (up to the last "/") of a project's records, taken from a few samples.

    Records of one project share it (``…/ark:/72163/1/<shortcode>/``); a stray
    pid of another shape sorts first or last, so the most common prefix of the
    first, middle and last pid is the shared one. Records without it are still
    identified, by their whole pid.
    """
    if not table:
        return "/"
    samples = [table.pids[index].rpartition("/")[0] + "/" for index in (len(table) // 2, 0, len(table) - 1)]
    return Counter(samples).most_common(1)[0][0]


def record_suffix_of(pid_prefix: str, pid: str) -> str:
    """A record's part of its identifier: its pid after its project's shared prefix."""
    if pid.startswith(pid_prefix) and len(pid) > len(pid_prefix):
        return to_uri(pid[len(pid_prefix) :])
    return FULL_PID_MARK + quote(pid, safe="")
