"""The checks of ``svc validate`` (SPEC §6) over one data directory.

Framework-free. Unlike the loader, which skips or tolerates bad data so that
the rest can be served, the validator reports everything a data steward must
fix: files that are not JSON, schema violations, dangling references, orphans,
duplicates, project roles misplaced in job titles and temporal coverage that
resolves to no date.

Entities are few and kept in memory; records can be millions, so they are
streamed one at a time and only their ids and pids are remembered.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from catalog.domain.loader import (
    ENTITY_DIRS,
    MAX_ENTITY_FILE_BYTES,
    OPTIONAL_FILES,
    RECORDS_SUFFIX,
    DataDirError,
    JsonText,
    check_data_dir,
    entity_file_too_large,
    json_files,
    load_catalog,
    shrinkage,
)
from catalog.domain.model import RECORD_DATE_FIELDS, is_placeholder
from catalog.domain.schema import ENTITY_KINDS, PathPart, SchemaSet, schemas
from catalog.domain.temporal import chronontology_period_id, resolve
from catalog.domain.text_repair import may_hold_surrogates, repair_surrogates, surrogate_paths
from validation.warnings import MetadataWarning, Warn, future_date, metadata_warnings

# A project role found as a person's job title (trimmed, lowercased, exact match)
# belongs in a project's attributions as ``contributorType`` (SPEC §6).
JOB_TITLE_ROLE_WORDS: frozenset[str] = frozenset(
    {
        "project leader",
        "project lead",
        "projektleiter",
        "projektleitung",
        "project manager",
        "project member",
        "projektmitglied",
        "projektmitarbeit",
        "project staff",
        "project coordinator",
        "project coordination",
        "project assistant",
        "creator",
        "data collector",
        "principal investigator",
        "principal investigator (pi)",
        "pi",
        "co-applicant",
        "applicant",
        "contributor",
    }
)

PERIODS_FILE, ENRICHMENT_FILE = OPTIONAL_FILES
PROGRESS_EVERY = 50_000  # records between two progress reports
# Kind -> why an object of it that nothing names is an orphan.
_UNNAMED: Mapping[str, str] = {
    "person": "is not named by any project (attributions, contact points, funding)",
    "organization": (
        "is not named by any project (attributions, contact points, funding) nor by any person's affiliations"
    ),
}

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NOT_WHITESPACE = re.compile(r"\S")
_RECORD_ARK = re.compile(r"/ark:/[0-9]+/[^/]+/([^/]+)/[^/]+$")  # …/ark:/NAAN/1/<shortcode>/<record>
_SHOWN_HOLDERS = 5


class Check(StrEnum):
    """The kind of a finding (the ``check`` field of the JSON report)."""

    FILE = "file"
    SCHEMA = "schema"
    REFERENCE = "reference"
    ORPHAN = "orphan"
    DUPLICATE = "duplicate"
    JOB_TITLE = "job-title"
    TEMPORAL_COVERAGE = "temporal-coverage"
    SURROGATE = "surrogate"


@dataclass(frozen=True, slots=True)
class Finding:
    """One defect: ``file`` relative to the data directory, ``path`` a JSON path in it."""

    file: str
    path: str
    message: str
    check: Check


@dataclass
class Report:
    data_dir: str
    findings: list[Finding]
    counts: dict[str, int]  # "files" and the number of objects of each type
    warnings: list[MetadataWarning] = field(default_factory=list)  # valid data that degrades harvested metadata

    @property
    def valid(self) -> bool:
        return not self.findings

    def counts_by_check(self) -> dict[str, int]:
        tally = Counter(finding.check.value for finding in self.findings)
        return {check.value: tally[check.value] for check in Check if tally[check.value]}

    def warnings_by_check(self) -> dict[str, int]:
        tally = Counter(warning.check.value for warning in self.warnings)
        return {check.value: tally[check.value] for check in Warn if tally[check.value]}


Progress = Callable[[str], None]


def json_path(parts: Iterable[PathPart]) -> str:
    """``attributions[3].contributor``-style path; ``$`` for the whole document."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _IDENTIFIER.match(part):
            text += f".{part}" if text else part
        else:
            text += f"[{json.dumps(part, ensure_ascii=False)}]"
    return text or "$"


def validate_data_dir(data_dir: str | Path, progress: Progress | None = None) -> Report:
    """Run every check. Raises :class:`DataDirError` if the directory is unusable or not a data directory."""
    root = Path(data_dir)
    check_data_dir(root)
    if not any((root / directory).is_dir() for directory in ENTITY_DIRS):
        # Most likely the wrong directory: saying "valid" would be misleading.
        raise DataDirError(f"{str(root)!r} is not a data directory: it has none of {', '.join(ENTITY_DIRS)}")
    return _Validation(root, schemas(), progress or (lambda message: None)).run()


@dataclass(eq=False, slots=True)
class _Item:
    """One object of an entity file; ``index`` is its position in an array file."""

    kind: str
    file: str
    index: int | None
    raw: dict[str, Any]

    def path(self, *parts: PathPart) -> str:
        return json_path(parts if self.index is None else (self.index, *parts))

    @property
    def key(self) -> str | None:
        """The shortcode of a project, the id of anything else (None if missing: a schema finding)."""
        value = self.raw.get("shortcode" if self.kind == "project" else "id")
        return value if isinstance(value, str) else None

    def describe(self) -> str:
        return f"{self.kind} {self.key or '?'} ({self.file})"


# Where a value was seen: an entity, or a record packed as (file number << 32 | position).
Holder = _Item | int


@dataclass(slots=True)
class _Occurrences:
    """Where each value was first seen, and every holder of values seen more than once."""

    first: dict[str, Holder] = field(default_factory=dict)
    repeated: dict[str, list[Holder]] = field(default_factory=dict)

    def add(self, value: str, holder: Holder) -> None:
        if value in self.first:
            self.repeated.setdefault(value, [self.first[value]]).append(holder)
        else:
            self.first[value] = holder


class _Validation:
    def __init__(self, root: Path, schema_set: SchemaSet, progress: Progress) -> None:
        self.root = root
        self.schemas = schema_set
        self.progress = progress
        self.findings: list[Finding] = []
        self.counts: Counter[str] = Counter()
        self.items: dict[str, list[_Item]] = {kind: [] for kind in ENTITY_KINDS.values()}
        self.projects_by_key: dict[str, _Item] = {}
        self.record_files: list[tuple[str, bool]] = []  # (file, holds an array)
        self.pids = _Occurrences()
        self.record_ids = _Occurrences()
        # Record ids/pids named by projects and collections -> where they are named.
        self.wanted_records: dict[str, list[tuple[_Item, str]]] = defaultdict(list)
        self.now = int(time.time())  # dates after it are in the future
        self.record_warnings: list[MetadataWarning] = []

    def run(self) -> Report:
        for directory, kind in ENTITY_KINDS.items():
            self.read_entities(directory, kind)
        self.projects_by_key = {item.key.lower(): item for item in self.items["project"] if item.key}
        periods = self.read_optional(PERIODS_FILE, "chronontology-periods")
        enrichment = self.read_optional(ENRICHMENT_FILE, "temporal-coverage-enrichment")
        self.check_references()
        self.read_records()
        self.check_wanted_records()
        self.check_duplicates()
        self.check_orphans()
        self.check_job_titles()
        self.check_temporal_coverage(periods, enrichment)
        order = {directory: position for position, directory in enumerate(ENTITY_DIRS)}
        self.findings.sort(key=lambda f: (order.get(f.file.partition("/")[0], len(order)), f.file))
        counts = {"files": self.counts["files"]}
        counts.update({directory: self.counts[directory] for directory in ENTITY_DIRS})
        warnings = metadata_warnings(self.items, periods, enrichment, self.now) + self.record_warnings
        warnings.sort(key=lambda w: (order.get(w.file.partition("/")[0], len(order)), w.file))
        return Report(str(self.root), self.findings, counts, warnings)

    # -- reading ---------------------------------------------------------------

    def add(self, file: str, path: str, check: Check, message: str) -> None:
        self.findings.append(Finding(file, path, message, check))

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def files(self, directory: str) -> list[Path]:
        try:
            return json_files(self.root / directory)
        except OSError as error:
            self.add(directory, "$", Check.FILE, f"cannot list the directory: {error.strerror or error}")
            return []

    def read_text(self, path: Path) -> str | None:
        self.counts["files"] += 1
        try:
            return path.read_bytes().decode("utf-8")
        except OSError as error:
            self.add(self.relative(path), "$", Check.FILE, f"cannot read the file: {error.strerror or error}")
        except UnicodeDecodeError as error:
            self.add(self.relative(path), "$", Check.FILE, f"not UTF-8 text: {error.reason} at byte {error.start}")
        return None

    def objects(self, path: Path) -> Iterator[tuple[int | None, Any]]:
        """(position in the array or None for a single-object file, value) of each item."""
        text = self.read_text(path)
        if text is None:
            return
        first = _NOT_WHITESPACE.search(text)
        is_array = first is not None and first.group() == "["
        suspect = may_hold_surrogates(text)
        try:
            for position, value in enumerate(JsonText([text]).items()):
                index = position if is_array else None
                yield index, (self.repaired(self.relative(path), index, value) if suspect else value)
        except ValueError as error:
            self.add(self.relative(path), "$", Check.FILE, f"not valid JSON: {error}")
        except RecursionError:
            self.add(self.relative(path), "$", Check.FILE, "not valid JSON: nested too deeply")

    def repaired(self, file: str, index: int | None, value: Any) -> Any:
        """Report each lone surrogate in ``value``; return it with U+FFFD, as the service loads it, to check on."""
        for parts, is_key in surrogate_paths(value):
            self.add(
                file,
                json_path(parts if index is None else (index, *parts)),
                Check.SURROGATE,
                f"{'the key' if is_key else 'the text'} holds a lone UTF-16 surrogate (an escape \\ud800 to "
                "\\udfff without its pair), which is no character: the service shows U+FFFD instead",
            )
        return repair_surrogates(value)

    def schema_findings(self, kind: str, file: str, index: int | None, value: Any) -> None:
        for parts, message in self.schemas.errors(kind, value):
            self.add(file, json_path(parts if index is None else (index, *parts)), Check.SCHEMA, message)

    def read_entities(self, directory: str, kind: str) -> None:
        for path in self.files(directory):
            file = self.relative(path)
            self.progress(file)
            size = _size(path)
            if size > MAX_ENTITY_FILE_BYTES:
                self.counts["files"] += 1
                self.add(file, "$", Check.FILE, f"not read: {entity_file_too_large(size)}")
                continue
            for index, value in self.objects(path):
                self.counts[directory] += 1
                self.schema_findings(kind, file, index, value)
                if isinstance(value, dict):
                    self.items[kind].append(_Item(kind, file, index, value))

    def read_optional(self, name: str, kind: str) -> Mapping[str, Any]:
        path = self.root / name
        if not path.is_file():
            return {}
        text = self.read_text(path)
        try:
            value = json.loads(text) if text is not None else {}
            if text is not None and may_hold_surrogates(text):
                value = self.repaired(name, None, value)
        except ValueError as error:
            self.add(name, "$", Check.FILE, f"not valid JSON: {error}")
            return {}
        except RecursionError:
            self.add(name, "$", Check.FILE, "not valid JSON: nested too deeply")
            return {}
        self.schema_findings(kind, name, None, value)
        return value if isinstance(value, dict) else {}

    def read_records(self) -> None:
        """Stream every record file: schema, project, ids and pids, one record at a time."""
        files_by_key: dict[str, str] = {}
        for path in self.files("records"):
            file = self.relative(path)
            if not path.name.endswith(RECORDS_SUFFIX):
                self.add(file, "$", Check.FILE, f"not read: record files are named <SHORTCODE>{RECORDS_SUFFIX}")
                continue
            key = path.name[: -len(RECORDS_SUFFIX)].lower()
            if key in files_by_key:
                self.add(file, "$", Check.DUPLICATE, f"a second records file for project {key}: {files_by_key[key]}")
            files_by_key.setdefault(key, file)
            if key not in self.projects_by_key:
                self.add(file, "$", Check.ORPHAN, f"records of project {key!r}, but no project has that shortcode")
            self.read_record_file(path, file, key)

    def read_record_file(self, path: Path, file: str, key: str) -> None:
        file_number = len(self.record_files)
        self.record_files.append((file, True))
        self.progress(file)
        wanted = self.wanted_records
        count = 0
        for index, record in self.objects(path):
            if index is None:
                self.record_files[file_number] = (file, False)  # a file holding one record, not an array
            count += 1
            if count % PROGRESS_EVERY == 0:
                self.progress(f"{file}: {count:,} records")
            self.schema_findings("record", file, index, record)
            if not isinstance(record, dict):
                continue
            holder = file_number << 32 | (index or 0)
            future = future_date(record, RECORD_DATE_FIELDS, self.now)
            if future is not None:
                where = json_path((index, future[0]) if index is not None else (future[0],))
                self.record_warnings.append(MetadataWarning(file, where, future[1], Warn.FUTURE_DATE))
            record_id, pid = record.get("id"), record.get("pid")
            if isinstance(record_id, str):
                self.record_ids.add(record_id, holder)
                wanted.pop(record_id, None)
            if isinstance(pid, str) and not is_placeholder(pid):
                self.pids.add(pid, holder)
                wanted.pop(pid, None)
                named = _RECORD_ARK.search(pid)
                if named and named.group(1).lower() != key:
                    self.add(
                        file,
                        json_path((index, "pid") if index is not None else ("pid",)),
                        Check.REFERENCE,
                        f"pid names project {named.group(1)!r}, but the record is in the records file of {key!r}",
                    )
        self.counts["records"] += count

    # -- cross-file checks -----------------------------------------------------

    def check_references(self) -> None:
        """Every id a project, person, cluster or collection names must exist."""
        persons, organizations, clusters, collections = (
            {item.key for item in self.items[kind]} for kind in ("person", "organization", "cluster", "collection")
        )

        def is_contributor(value: str) -> bool:
            return value in persons or value in organizations

        def is_project(shortcode: str) -> bool:
            return shortcode.lower() in self.projects_by_key

        def expect(item: _Item, value: Any, exists: Callable[[str], bool], what: str, *path: PathPart) -> None:
            if isinstance(value, str) and not exists(value):
                self.add(item.file, item.path(*path), Check.REFERENCE, f"unknown {what} {value!r}")

        for project in self.items["project"]:
            for path, value in _named_contributors(project.raw):
                expect(project, value, is_contributor, _contributor(value), *path)
            for position, value in _entries(project.raw.get("clusters")):
                expect(project, value, clusters.__contains__, "cluster", "clusters", position)
            for position, value in _entries(project.raw.get("collections")):
                expect(project, value, collections.__contains__, "collection", "collections", position)
            self.want_records(project)
        for person in self.items["person"]:
            for position, value in _entries(person.raw.get("affiliations")):
                expect(person, value, organizations.__contains__, "organization", "affiliations", position)
        for cluster in self.items["cluster"]:
            for position, value in _entries(cluster.raw.get("projects")):
                expect(cluster, value, is_project, "project", "projects", position)
        for collection in self.items["collection"]:
            for position, value in _entries(collection.raw.get("projects")):
                expect(collection, value, is_project, "project", "projects", position)
            for position, value in _entries(collection.raw.get("collections")):
                expect(collection, value, collections.__contains__, "collection", "collections", position)
            self.want_records(collection)
        self.check_collection_cycles()

    def want_records(self, item: _Item) -> None:
        """Note the records a project or collection names; records are read later, one at a time."""
        for position, value in _entries(item.raw.get("records")):
            if isinstance(value, str):
                self.wanted_records[value].append((item, item.path("records", position)))

    def check_collection_cycles(self) -> None:
        """A collection that contains itself, directly or not, cannot be shown as a tree."""
        children = {
            item.key: [c for _, c in _entries(item.raw.get("collections")) if isinstance(c, str)]
            for item in self.items["collection"]
            if item.key
        }
        reported: set[frozenset[str]] = set()
        for item in self.items["collection"]:
            cycle = _cycle_from(item.key, children) if item.key else None
            if cycle and frozenset(cycle) not in reported:
                reported.add(frozenset(cycle))
                self.add(
                    item.file,
                    item.path("collections"),
                    Check.REFERENCE,
                    "collections contain each other in a cycle: " + " -> ".join([*cycle, cycle[0]]),
                )

    def check_wanted_records(self) -> None:
        for value, places in self.wanted_records.items():
            for item, path in places:
                self.add(item.file, path, Check.REFERENCE, f"unknown record {value!r} (no record has that id or pid)")

    def check_duplicates(self) -> None:
        """Duplicate ids (per type), shortcodes (case-insensitive), pids (everywhere), record ids."""
        for kind, items in self.items.items():
            ids = _Occurrences()
            for item in items:
                if isinstance(item.raw.get("id"), str):
                    ids.add(item.raw["id"], item)
            self.report_repeats(ids, "id", f"{kind} id")
        shortcodes = _Occurrences()
        for item in self.items["project"]:
            if isinstance(item.raw.get("shortcode"), str):
                shortcodes.add(item.raw["shortcode"].lower(), item)
        self.report_repeats(shortcodes, "shortcode", "shortcode (case-insensitive)")
        for kind in ("project", "cluster", "collection"):
            for item in self.items[kind]:
                pid = item.raw.get("pid")
                if isinstance(pid, str) and not is_placeholder(pid):
                    self.pids.add(pid, item)
        self.report_repeats(self.pids, "pid", "pid")
        self.report_repeats(self.record_ids, "id", "record id")

    def report_repeats(self, occurrences: _Occurrences, field_name: str, what: str) -> None:
        for value, holders in occurrences.repeated.items():
            for position, holder in enumerate(holders):
                others = [self.describe(other) for other in holders[:position] + holders[position + 1 :]]
                shown = ", ".join(others[:_SHOWN_HOLDERS])
                if len(others) > _SHOWN_HOLDERS:
                    shown += f" and {len(others) - _SHOWN_HOLDERS} more"
                file, path = self.location(holder, field_name)
                self.add(file, path, Check.DUPLICATE, f"{what} {value!r} is also used by {shown}")

    def describe(self, holder: Holder) -> str:
        if isinstance(holder, _Item):
            return holder.describe()
        file, is_array = self.record_files[holder >> 32]
        return f"record [{holder & 0xFFFFFFFF}] in {file}" if is_array else f"the record in {file}"

    def location(self, holder: Holder, field_name: str) -> tuple[str, str]:
        if isinstance(holder, _Item):
            return holder.file, holder.path(field_name)
        file, is_array = self.record_files[holder >> 32]
        return file, json_path((holder & 0xFFFFFFFF, field_name) if is_array else (field_name,))

    def check_orphans(self) -> None:
        """Persons, organizations and collections that nothing refers to."""
        named = self._referenced_contributors()
        for kind, unnamed in _UNNAMED.items():
            for item in self.items[kind]:
                if item.key and item.key not in named:
                    self.add(item.file, item.path(), Check.ORPHAN, f"{kind} {item.key!r} {unnamed}")
        contained = self._contained_collections()
        for item in self.items["collection"]:
            if item.key and item.key not in contained and not self._belongs_to_a_project(item):
                self.add(
                    item.file,
                    item.path(),
                    Check.ORPHAN,
                    f"collection {item.key!r} belongs to no project and is in no other collection",
                )

    def _referenced_contributors(self) -> set[str]:
        """Ids named by a project (attributions, contact points, funding) or a person's affiliations."""
        named = _ids(value for project in self.items["project"] for _, value in _named_contributors(project.raw))
        named |= _ids(value for person in self.items["person"] for _, value in _entries(person.raw.get("affiliations")))
        return named

    def _contained_collections(self) -> set[str]:
        """Ids of the collections a project or another collection contains."""
        contained = _ids(value for item in self.items["project"] for _, value in _entries(item.raw.get("collections")))
        for item in self.items["collection"]:
            contained |= _ids(value for _, value in _entries(item.raw.get("collections")) if value != item.key)
        return contained

    def _belongs_to_a_project(self, collection: _Item) -> bool:
        owners = [value.lower() for _, value in _entries(collection.raw.get("projects")) if isinstance(value, str)]
        return any(owner in self.projects_by_key for owner in owners)

    def check_job_titles(self) -> None:
        for person in self.items["person"]:
            for position, title in _entries(person.raw.get("jobTitles")):
                if isinstance(title, str) and title.strip().lower() in JOB_TITLE_ROLE_WORDS:
                    self.add(
                        person.file,
                        person.path("jobTitles", position),
                        Check.JOB_TITLE,
                        f"project role {title!r} as a job title: it belongs in a project's attributions "
                        "(contributorType)",
                    )

    def check_temporal_coverage(self, periods: Mapping[str, Any], enrichment: Mapping[str, Any]) -> None:
        for project in self.items["project"]:
            for position, entry in _entries(project.raw.get("temporalCoverage")):
                if not isinstance(entry, dict):
                    continue  # a schema finding already
                resolved = resolve(entry, periods, enrichment)
                if resolved.date is not None or resolved.unresolved_ack:
                    continue
                period = chronontology_period_id(entry)
                if not resolved.name and period is None and is_placeholder(entry.get("url")):
                    continue  # a placeholder: the value is knowingly missing
                if period is None:
                    what = f"temporal coverage {resolved.name or entry.get('url')!r}"
                    reason = f"it is not in {ENRICHMENT_FILE}"
                else:
                    what = f"ChronOntology period {period!r} ({resolved.name or 'no name'})"
                    reason = f"it has no year in {PERIODS_FILE} and is not in {ENRICHMENT_FILE}"
                self.add(
                    project.file,
                    project.path("temporalCoverage", position),
                    Check.TEMPORAL_COVERAGE,
                    f'{what} resolves to no date: {reason} (add it there with a date, or with source "unresolved")',
                )


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # reading it reports why


def _entries(value: Any) -> Iterator[tuple[int, Any]]:
    """(position, item) of a list; nothing for anything else (the schema reports that)."""
    if isinstance(value, list):
        yield from enumerate(value)


def _named_contributors(project: Mapping[str, Any]) -> Iterator[tuple[tuple[PathPart, ...], Any]]:
    """Where a project names a person or organization: attributions, contact points, funders."""
    for position, attribution in _entries(project.get("attributions")):
        if isinstance(attribution, dict):
            yield ("attributions", position, "contributor"), attribution.get("contributor")
    for position, value in _entries(project.get("contactPoint")):
        yield ("contactPoint", position), value
    for grant_position, grant in _entries(project.get("funding")):
        if isinstance(grant, dict):
            for funder_position, funder in _entries(grant.get("funders")):
                yield ("funding", grant_position, "funders", funder_position), funder


def _contributor(value: Any) -> str:
    """What an attribution, contact point or funder id names: either kind may appear."""
    if isinstance(value, str) and value.startswith("person-"):
        return "person"
    if isinstance(value, str) and value.startswith("organization-"):
        return "organization"
    return "person or organization"


def _ids(values: Iterable[Any]) -> set[str]:
    """The string ids among ``values``: anything else is already a schema finding and names nothing."""
    return {value for value in values if isinstance(value, str)}


def _cycle_from(start: str, children: Mapping[str, Sequence[str]]) -> list[str] | None:
    """The collections of a cycle through ``start`` (in order), if there is one."""
    path: list[str] = []
    on_path: set[str] = set()
    seen: set[str] = set()

    def visit(node: str) -> list[str] | None:
        path.append(node)
        on_path.add(node)
        for child in children.get(node, ()):
            if child == start:
                return list(path)
            if child not in on_path and child not in seen and child in children:
                seen.add(child)
                found = visit(child)
                if found:
                    return found
        path.pop()
        on_path.discard(node)
        return None

    return visit(start)


def shrink_findings(previous_dir: str | Path, data_dir: str | Path, max_share: float) -> list[Finding]:
    """What a reload from ``previous_dir`` to ``data_dir`` would refuse (the loader's counts, the reload's rule)."""
    check_data_dir(Path(previous_dir))
    losses = shrinkage(load_catalog(previous_dir).counts(), load_catalog(data_dir).counts(), max_share)
    return [
        Finding(
            loss.partition(" ")[0],
            "$",
            f"a reload from the previous data would be refused: it would lose {loss}",
            Check.FILE,
        )
        for loss in losses
    ]
