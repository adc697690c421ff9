"""The domain model: immutable, framework-free views over the stored JSON.

Entities keep their stored object (``raw``, deep-frozen) so that unknown fields
survive and the JSON API can answer with the stored shape; the attributes here
are the fields the pages, the API and OAI-PMH read often.
"""

from __future__ import annotations

import bisect
import json
import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Self, overload

if TYPE_CHECKING:  # the ledger module builds on this one: the name is for type checkers only
    from catalog.domain.ledger import LedgerView

PLACEHOLDERS = frozenset({"MISSING", "CALCULATED"})
PREFERRED_LANGUAGES = ("en", "de", "fr", "it", "rm")
ACCESS_RIGHTS = ("Full Open Access", "Open Access with Restrictions", "Embargoed Access", "Metadata only Access")
PROJECT_STATUSES = ("Ongoing", "Finished")
# The role a funding organization holds in a project (it is named by a grant, not by an attribution).
FUNDER_ROLE = "Funder"

# One encoder for all records: building it per record costs a million times over.
_compact_json = json.JSONEncoder(separators=(",", ":"))
# What json.loads does with the compact JSON this module encodes, without its per-call checks of the encoding and
# of surrounding whitespace (the scanner reads one value from the start; the documents hold exactly one).
_scan_json: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]

NO_DATESTAMP = -(2**62)  # stands for "no date" in the packed datestamp array
# A record's own ISO publication date, as its compact JSON gives it (the first one it gives).
_PUBLISHED_IN_JSON = re.compile(rb'"datePublished":"([0-9]{4}-[0-9]{2}-[0-9]{2})')

Frozen = Any  # MappingProxyType | tuple | str | int | float | bool | None


def is_placeholder(value: object) -> bool:
    """True for the exact strings that stand in for a missing or computed value."""
    return isinstance(value, str) and value in PLACEHOLDERS


def freeze(value: Any) -> Frozen:
    """Deep-freeze parsed JSON: dicts become read-only mappings, lists tuples."""
    if isinstance(value, dict):
        return MappingProxyType({key: freeze(item) for key, item in value.items()})
    if isinstance(value, list):
        return tuple(freeze(item) for item in value)
    return value


def thaw(value: Frozen) -> Any:
    """The inverse of :func:`freeze`, for serialisation."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [thaw(item) for item in value]
    return value


def to_json_bytes(value: Frozen) -> bytes:
    return json.dumps(thaw(value), ensure_ascii=False, separators=(",", ":")).encode()


def pick_language(value: Frozen, preferred: Sequence[str] = PREFERRED_LANGUAGES) -> str:
    """One text out of a language map (``{"en": …, "de": …}``) or a plain string."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        for language in preferred:
            text = value.get(language)
            if isinstance(text, str) and text:
                return text
        for text in value.values():
            if isinstance(text, str) and text:
                return text
    return ""


def language_items(value: Frozen) -> tuple[tuple[str | None, str], ...]:
    """(language, text) pairs of a language map; a plain string has no language."""
    if isinstance(value, str):
        return ((None, value),) if value else ()
    if isinstance(value, Mapping):
        return tuple((lang, text) for lang, text in value.items() if isinstance(text, str) and text)
    return ()


def parse_timestamp(value: object) -> int | None:
    """Seconds since the epoch (UTC) of an ISO 8601 date or timestamp, or None."""
    if not isinstance(value, str) or not value or is_placeholder(value):
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp())


def _strings(value: Frozen) -> tuple[str, ...]:
    if isinstance(value, tuple):
        return tuple(item for item in value if isinstance(item, str))
    return ()


@dataclass(frozen=True, slots=True)
class Attribution:
    contributor_id: str
    roles: tuple[str, ...]


# How one attribute of an entity is read from its stored object.
Reader = Callable[[Mapping[str, Frozen]], Any]


def _name(raw: Mapping[str, Frozen]) -> str:
    return pick_language(raw.get("name"))


def _strings_of(key: str) -> Reader:
    return lambda raw: _strings(raw.get(key))


def _text_or_empty(key: str) -> Reader:
    return lambda raw: value if isinstance(value := raw.get(key), str) else ""


class _Stored:
    """An entity over its stored object: the attributes its class reads (``READERS``), the rest by :meth:`get`."""

    __slots__ = ()
    raw: Mapping[str, Frozen]
    # Attribute -> how it is read from the stored object (``raw`` and ``id`` are read alike for every kind).
    READERS: ClassVar[Mapping[str, Reader]]

    def get(self, name: str, default: Frozen = None) -> Frozen:
        return self.raw.get(name, default)

    @classmethod
    def from_raw(cls, raw: Mapping[str, Frozen]) -> Self:
        values: dict[str, Any] = {name: read(raw) for name, read in cls.READERS.items()}
        values.update(raw=raw, id=str(raw["id"]))
        return cls(**values)


def _attributions(raw: Mapping[str, Frozen]) -> tuple[Attribution, ...]:
    return tuple(
        Attribution(entry["contributor"], _strings(entry.get("contributorType")))
        for entry in raw.get("attributions") or ()
        if isinstance(entry, Mapping) and isinstance(entry.get("contributor"), str)
    )


def _funder_ids(raw: Mapping[str, Frozen]) -> tuple[str, ...]:
    """Each funder named by a grant, once, in order."""
    funding = raw.get("funding")
    funder_ids = (
        funder
        for grant in (funding if isinstance(funding, tuple) else ())
        if isinstance(grant, Mapping)
        for funder in _strings(grant.get("funders"))
    )
    return tuple(dict.fromkeys(funder_ids))


# Where an item's own datestamp comes from, the first present (SPEC §5.3).
PROJECT_DATE_FIELDS = ("dateModified", "datePublished", "startDate")
RECORD_DATE_FIELDS = ("dateModified", "datePublished", "dateCreated")


def _project_datestamp(raw: Mapping[str, Frozen]) -> int | None:
    """dateModified, else datePublished, else startDate."""
    for name in PROJECT_DATE_FIELDS:
        datestamp = parse_timestamp(raw.get(name))
        if datestamp is not None:
            return datestamp
    return None


@dataclass(frozen=True, slots=True)
class Project(_Stored):
    raw: Mapping[str, Frozen] = field(repr=False)
    id: str
    shortcode: str
    pid: str
    name: str
    status: str
    attributions: tuple[Attribution, ...]
    contact_point_ids: tuple[str, ...]
    funder_ids: tuple[str, ...]
    cluster_ids: tuple[str, ...]
    collection_ids: tuple[str, ...]
    datestamp: int | None

    READERS: ClassVar[Mapping[str, Reader]] = {
        "shortcode": lambda raw: str(raw["shortcode"]),
        "pid": _text_or_empty("pid"),
        "name": _name,
        "status": _text_or_empty("status"),
        "attributions": _attributions,
        "contact_point_ids": _strings_of("contactPoint"),
        "funder_ids": _funder_ids,
        "cluster_ids": _strings_of("clusters"),
        "collection_ids": _strings_of("collections"),
        "datestamp": _project_datestamp,
    }

    @property
    def key(self) -> str:
        """The case-insensitive lookup key of the shortcode."""
        return self.shortcode.lower()


@dataclass(frozen=True, slots=True)
class Person(_Stored):
    raw: Mapping[str, Frozen] = field(repr=False)
    id: str
    given_names: tuple[str, ...]
    family_names: tuple[str, ...]
    affiliation_ids: tuple[str, ...]

    READERS: ClassVar[Mapping[str, Reader]] = {
        "given_names": _strings_of("givenNames"),
        "family_names": _strings_of("familyNames"),
        "affiliation_ids": _strings_of("affiliations"),
    }

    @property
    def display_name(self) -> str:
        """ "Given Family", leaving out placeholders."""
        parts = [name for name in (*self.given_names, *self.family_names) if not is_placeholder(name)]
        return " ".join(parts) or self.id

    @property
    def sort_name(self) -> str:
        """ "Family, Given", as citations and DataCite want it."""
        family = " ".join(n for n in self.family_names if not is_placeholder(n))
        given = " ".join(n for n in self.given_names if not is_placeholder(n))
        return ", ".join(part for part in (family, given) if part) or self.id


@dataclass(frozen=True, slots=True)
class Organization(_Stored):
    raw: Mapping[str, Frozen] = field(repr=False)
    id: str
    name: str

    READERS: ClassVar[Mapping[str, Reader]] = {"name": _name}

    @property
    def display_name(self) -> str:
        return self.name or self.id


@dataclass(frozen=True, slots=True)
class Cluster(_Stored):
    raw: Mapping[str, Frozen] = field(repr=False)
    id: str
    name: str
    project_shortcodes: tuple[str, ...]

    READERS: ClassVar[Mapping[str, Reader]] = {"name": _name, "project_shortcodes": _strings_of("projects")}


@dataclass(frozen=True, slots=True)
class Collection(_Stored):
    raw: Mapping[str, Frozen] = field(repr=False)
    id: str
    name: str
    project_shortcodes: tuple[str, ...]
    record_ids: tuple[str, ...]
    collection_ids: tuple[str, ...]

    READERS: ClassVar[Mapping[str, Reader]] = {
        "name": _name,
        "project_shortcodes": _strings_of("projects"),
        "record_ids": _strings_of("records"),
        "collection_ids": _strings_of("collections"),
    }


def record_datestamp(raw: Mapping[str, Any]) -> int | None:
    """dateModified, else datePublished, else dateCreated (SPEC §5.3)."""
    for name in RECORD_DATE_FIELDS:
        stamp = parse_timestamp(raw.get(name))
        if stamp is not None:
            return stamp
    return None


class _Strings(Sequence[str]):
    """A read-only sequence of strings packed into one bytes object.

    One object instead of a million keeps the memory small and, after fork,
    shared between workers: reading it does not touch per-item refcounts.
    """

    __slots__ = ("_blob", "_offsets")

    def __init__(self, blob: bytes, offsets: array[int]) -> None:
        self._blob = blob
        self._offsets = offsets

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def raw(self, index: int) -> bytes:
        return self._blob[self._offsets[index] : self._offsets[index + 1]]

    def __iter__(self) -> Iterator[str]:
        raw = self.raw  # without __getitem__'s checks: a million pids are read this way
        return (raw(index).decode() for index in range(len(self)))

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self.raw(index).decode()

    @classmethod
    def pack(cls, items: Sequence[bytes]) -> _Strings:
        offsets = array("Q", [0])
        total = 0
        for item in items:
            total += len(item)
            offsets.append(total)
        return cls(b"".join(items), offsets)


class RecordTable:
    """The records of one project, ordered by pid, packed for memory and speed.

    Each record's stored JSON is kept compact in one blob and parsed only when
    a page or an OAI response needs it; pids and datestamps sit in parallel
    arrays so that lookups and date filtering never parse JSON.
    """

    __slots__ = ("_documents", "_earliest_published", "datestamps", "ids", "pids", "shortcode")

    def __init__(
        self, shortcode: str, documents: _Strings, pids: _Strings, ids: _Strings, datestamps: array[int]
    ) -> None:
        self.shortcode = shortcode
        self._documents = documents
        self.pids = pids
        self.ids = ids
        self.datestamps = datestamps
        # _earliest_published is set once computed (an unset slot survives pickling: a sentinel would not).

    @classmethod
    def build(cls, shortcode: str, records: Iterable[Mapping[str, Any]]) -> RecordTable:
        rows = sorted(
            (
                str(record.get("pid") or record.get("id") or ""),
                str(record.get("id") or ""),
                record_datestamp(record),
                _compact_json.encode(record).encode(),
            )
            for record in records
        )
        return cls(
            shortcode,
            documents=_Strings.pack([row[3] for row in rows]),
            pids=_Strings.pack([row[0].encode() for row in rows]),
            ids=_Strings.pack([row[1].encode() for row in rows]),
            datestamps=array("q", [NO_DATESTAMP if row[2] is None else row[2] for row in rows]),
        )

    def __len__(self) -> int:
        return len(self.pids)

    def document(self, index: int) -> bytes:
        """The stored JSON of one record, as compact UTF-8 bytes."""
        return self._documents.raw(index)

    def record(self, index: int) -> dict[str, Any]:
        record: dict[str, Any] = _scan_json(self._documents.raw(index).decode("utf-8", "surrogatepass"), 0)[0]
        return record

    def earliest_published(self) -> str | None:
        """The earliest ``datePublished`` among the records, found once (and kept with the table, pickled too).

        Read from the compact JSON without parsing it; a project's issue date
        and its snapshot need it, and a scan of a large project costs seconds.
        """
        try:
            return self._earliest_published
        except AttributeError:
            pass
        earliest: bytes | None = None
        for index in range(len(self)):
            match = _PUBLISHED_IN_JSON.search(self._documents.raw(index))
            if match and (earliest is None or match.group(1) < earliest):
                earliest = match.group(1)
        self._earliest_published: str | None = earliest.decode() if earliest else None
        return self._earliest_published

    def datestamp(self, index: int) -> int | None:
        stamp = self.datestamps[index]
        return None if stamp == NO_DATESTAMP else stamp

    def index_of_pid(self, pid: str) -> int | None:
        position = bisect.bisect_left(self.pids, pid)
        if position < len(self.pids) and self.pids[position] == pid:
            return position
        return None

    def index_of_suffix(self, suffix: str) -> int | None:
        """Find a record by the last segment of its pid (the ARK's record part).

        Records of one project share the pid prefix ``…/ark:/72163/1/<shortcode>/``,
        so the lookup stays a binary search.
        """
        if not len(self) or "/" in suffix:
            return None
        prefix = self.pids[0].rpartition("/")[0]
        return self.index_of_pid(f"{prefix}/{suffix}")


@dataclass(frozen=True)
class LoadProblem:
    """A file, or an object in it, that could not be loaded."""

    path: str
    reason: str


@dataclass(frozen=True)
class Catalog:
    """Everything the service serves, loaded once and never changed."""

    data_dir: str
    data_version: str
    projects: tuple[Project, ...]
    persons: Mapping[str, Person]
    organizations: Mapping[str, Organization]
    clusters: Mapping[str, Cluster]
    collections: Mapping[str, Collection]
    records: Mapping[str, RecordTable]
    chronontology_periods: Mapping[str, Frozen]
    temporal_coverage_enrichment: Mapping[str, Frozen]
    problems: tuple[LoadProblem, ...]
    # Indexes (derived at load time).
    project_by_key: Mapping[str, Project]
    projects_by_person: Mapping[str, tuple[tuple[Project, tuple[str, ...]], ...]]
    projects_by_organization: Mapping[str, tuple[tuple[Project, tuple[str, ...]], ...]]
    persons_by_organization: Mapping[str, tuple[Person, ...]]
    clusters_by_project: Mapping[str, tuple[Cluster, ...]]
    collections_by_project: Mapping[str, tuple[Collection, ...]]
    parent_collections: Mapping[str, tuple[Collection, ...]]
    # The names of the persons, both orders (a free-text name that matches one is a person's).
    person_names: frozenset[str]
    # pid -> how many projects and clusters carry it, for the pids more than one carries (catalog.domain.identifiers).
    shared_pid_carriers: Mapping[str, int]
    # The change ledger beside the data, if the publishing pipeline keeps one.
    ledger: LedgerView | None = None
    # Values derived from this catalogue object (catalog.domain.memo): made on first use, dropped with it.
    # Not an init field, so dataclasses.replace gives the new catalogue an empty one.
    derived: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def get_project(self, shortcode: str) -> Project | None:
        return self.project_by_key.get(shortcode.lower())

    def records_of(self, project: Project) -> RecordTable | None:
        return self.records.get(project.key)

    @property
    def record_count(self) -> int:
        return sum(len(table) for table in self.records.values())

    def contributor(self, contributor_id: str) -> Person | Organization | None:
        """A person or organization by id (attributions may name either)."""
        return self.persons.get(contributor_id) or self.organizations.get(contributor_id)

    def counts(self) -> dict[str, int]:
        return {
            "projects": len(self.projects),
            "persons": len(self.persons),
            "organizations": len(self.organizations),
            "clusters": len(self.clusters),
            "collections": len(self.collections),
            "records": self.record_count,
        }
