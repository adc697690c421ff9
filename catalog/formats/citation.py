"""Citation downloads of a project: BibTeX, RIS and CSL-JSON.

All three are built from one :class:`CitationData` so that they agree: the
creators (attributions with a creator role, else the publisher), the title,
the year, the ARK permalink and the keywords.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from catalog.domain.dates import project_issued, year
from catalog.domain.model import Catalog, Organization, Person, Project, is_placeholder, pick_language
from catalog.domain.roles import REPOSITORY_PUBLISHER, creator_attributions
from catalog.domain.values import is_http_url, stored_list


@dataclass(frozen=True, slots=True)
class Creator:
    family: str  # or the whole name of an organization
    given: str = ""
    is_organization: bool = False


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


def _text(value: object) -> str:
    text = pick_language(value) if value is not None else ""
    return "" if is_placeholder(text) else " ".join(text.split())


def _creator(entity: Person | Organization) -> Creator:
    if isinstance(entity, Person):
        family = " ".join(n for n in entity.family_names if not is_placeholder(n))
        given = " ".join(n for n in entity.given_names if not is_placeholder(n))
        return Creator(family or entity.display_name, given if family else "")
    return Creator(entity.display_name, is_organization=True)


def citation_data(catalog: Catalog, project: Project) -> CitationData:
    creators = tuple(
        _creator(entity)
        for attribution in creator_attributions(project)
        if (entity := catalog.contributor(attribution.contributor_id)) is not None
    )
    return CitationData(
        key=re.sub(r"[^A-Za-z0-9_-]", "", f"dasch-{project.shortcode}"),
        title=project.name or project.shortcode,
        creators=creators or (Creator(REPOSITORY_PUBLISHER, is_organization=True),),
        year=year(project_issued(catalog, project)),
        publisher=REPOSITORY_PUBLISHER,
        url=project.pid if is_http_url(project.pid) else None,
        abstract=_text(project.get("shortDescription")) or None,
        keywords=tuple(k for k in (_text(v) for v in stored_list(project.get("keywords"))) if k),
        note=_text(project.get("howToCite")) or None,
    )


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
        ("howpublished", "Dataset"),
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


def to_csl_json(data: CitationData) -> str:
    item: dict[str, object] = {
        "id": data.key,
        "type": "dataset",
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
    return json.dumps([item], ensure_ascii=False, indent=2) + "\n"


FORMATS = {
    "bib": (to_bibtex, "application/x-bibtex; charset=utf-8"),
    "ris": (to_ris, "application/x-research-info-systems; charset=utf-8"),
    "csl.json": (to_csl_json, "application/vnd.citationstyles.csl+json; charset=utf-8"),
}
