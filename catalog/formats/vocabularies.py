"""Controlled vocabularies the metadata mapping translates into (SPEC §5.6).

Roles to DataCite creator/contributor types, licences to SPDX, access rights
to COAR, types of data to DataCite resource types. Plain functions over
strings, memoised where the same few values come back for every record.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import langcodes
from langcodes.tag_parser import LanguageTagError

from catalog.domain.roles import role_parts
from catalog.domain.values import language_name

# --- Roles -----------------------------------------------------------------

# Other roles, first match wins. None marks funders, which are never
# contributors (they are funding references).
_CONTRIBUTOR_TYPES: tuple[tuple[re.Pattern[str], str | None], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), contributor_type)
    for pattern, contributor_type in (
        (r"fund|förder|financ|sponsor|geldgeber", None),
        (r"contact|kontakt", "ContactPerson"),
        (r"data\s*collect|datenerheb|collecte", "DataCollector"),
        (r"curat|kurat", "DataCurator"),
        (r"data(?:base)?\s*manag|datenmanag|metadata|archiving|archivist", "DataManager"),
        (r"manag|coordinat|koordin", "ProjectManager"),
        (r"translat|übersetz|tradu", "Translator"),
        (r"\beditor|\beditorial|herausgeb|[ée]dit(?:eur|rice)|lektor|lectorate", "Editor"),
        (r"supervis|advis|betreu|beirat|scientific\s+direction", "Supervisor"),
        (r"work\s*package", "WorkPackageLeader"),
        (r"applicant|gesuchsteller|project\s+director|direct(?:eur|rice)\s+(?:du|de)\s+projet", "ProjectLeader"),
        (r"member|projektmitglied|projektmitarbeit|mitarbeit|membre|employee|staff|assistant", "ProjectMember"),
        (r"research\s+group|forschungsgruppe", "ResearchGroup"),
        (r"related\s+person|partner|protagonist", "RelatedPerson"),
        (r"producer", "Producer"),
        (r"publisher|distribut|verlag", "Distributor"),
        (r"hosting", "HostingInstitution"),
        (r"rights?\s*holder|copyright", "RightsHolder"),
        (r"research|forsch|cherch|scientist|wissenschaft|postdoc|doctoral|phd|fellow", "Researcher"),
    )
)


@lru_cache(maxsize=4096)
def contributor_types(role: str) -> tuple[str, ...]:
    """DataCite contributorTypes of one role string; "Other" only when no part is recognised.

    Funder roles give nothing: funders are funding references, not contributors.
    """
    types: list[str] = []
    unrecognised = False
    for part in role_parts(role):
        for pattern, contributor_type in _CONTRIBUTOR_TYPES:
            if pattern.search(part):
                if contributor_type:
                    types.append(contributor_type)
                break
        else:
            unrecognised = True
    if not types and unrecognised:
        types.append("Other")
    return tuple(dict.fromkeys(types))


# --- Licences (SPDX) ---------------------------------------------------------

SPDX_SCHEME_URI = "https://spdx.org/licenses/"
_CC_VERSIONS = {"2.0": "Generic", "2.5": "Generic", "3.0": "Unported", "4.0": "International"}
_CC_ELEMENT_NAMES = {"BY": "Attribution", "NC": "NonCommercial", "SA": "ShareAlike", "ND": "NoDerivatives"}
_CC_URI_RE = re.compile(
    r"creativecommons\.org/licenses/([a-z-]+)/(\d\.\d)(?:/([a-z]{2}))?(?:/|/deed\.[a-z-]+|$)", re.IGNORECASE
)
_CC0_URI_RE = re.compile(r"creativecommons\.org/publicdomain/zero/1\.0(?:/|$)", re.IGNORECASE)
_CC_TEXT_RE = re.compile(r"cc[\s-]+((?:by)(?:[\s-]+(?:nc|sa|nd))*)[\s-]+(\d\.\d)", re.IGNORECASE)
_CC0_TEXT_RE = re.compile(r"cc[\s-]*0(?:[\s-]+1\.0)?|cc[\s-]+zero(?:[\s-]+1\.0)?", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Licence:
    spdx: str
    name: str


def _cc_licence(elements: list[str], version: str) -> Licence | None:
    """The SPDX id of an international Creative Commons licence, if the combination exists."""
    parts = [element.upper() for element in elements]
    if not parts or parts[0] != "BY" or len(set(parts)) != len(parts) or version not in _CC_VERSIONS:
        return None
    rest = set(parts[1:])
    if not rest <= {"NC", "SA", "ND"} or {"SA", "ND"} <= rest:
        return None
    ordered = ["BY", *(element for element in ("NC", "SA", "ND") if element in rest)]
    names = [_CC_ELEMENT_NAMES[element] for element in ordered]
    if version != "4.0" and "ND" in rest:
        names[-1] = "NoDerivs"
    return Licence(
        spdx=f"CC-{'-'.join(ordered)}-{version}",
        name=f"Creative Commons {'-'.join(names)} {version} {_CC_VERSIONS[version]}",
    )


_CC0 = Licence("CC0-1.0", "Creative Commons Zero v1.0 Universal")


@lru_cache(maxsize=1024)
def spdx_licence(uri: str, identifier: str) -> Licence | None:
    """The SPDX licence a licence URI (preferred) or identifier names; None when it is no SPDX licence.

    "CC BY-SA 4.0" is CC-BY-SA-4.0; ported licences (``…/3.0/ch/``) and free
    text ("public domain") have no SPDX id unless their URI names one.
    """
    if uri:
        if _CC0_URI_RE.search(uri):
            return _CC0
        match = _CC_URI_RE.search(uri)
        if match:
            return None if match.group(3) else _cc_licence(match.group(1).split("-"), match.group(2))
    text = identifier.strip()
    if _CC0_TEXT_RE.fullmatch(text):
        return _CC0
    match = _CC_TEXT_RE.fullmatch(text)
    if match:
        return _cc_licence(re.split(r"[\s-]+", match.group(1)), match.group(2))
    if re.fullmatch(r"CC-BY(?:-NC)?(?:-SA|-ND)?-\d\.\d|CC0-1\.0", text):
        return _CC0 if text == "CC0-1.0" else _cc_licence(text.split("-")[1:-1], text.rsplit("-", 1)[1])
    return None


# --- Access rights (COAR) ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class AccessRight:
    label: str  # as stored, e.g. "Full Open Access"
    coar_label: str
    coar_uri: str
    eu_repo_uri: str


_ACCESS_RIGHTS = {
    "full open access": ("open access", "http://purl.org/coar/access_right/c_abf2", "openAccess"),
    "open access with restrictions": (
        "restricted access",
        "http://purl.org/coar/access_right/c_16ec",
        "restrictedAccess",
    ),
    "embargoed access": ("embargoed access", "http://purl.org/coar/access_right/c_f1cf", "embargoedAccess"),
    "metadata only access": ("metadata only access", "http://purl.org/coar/access_right/c_14cb", "closedAccess"),
}


@lru_cache(maxsize=64)
def access_right(label: str) -> AccessRight | None:
    known = _ACCESS_RIGHTS.get(label.strip().lower())
    if known is None:
        return None
    coar_label, coar_uri, eu_repo = known
    return AccessRight(label.strip(), coar_label, coar_uri, f"info:eu-repo/semantics/{eu_repo}")


# --- Resource types ------------------------------------------------------------

_RESOURCE_TYPES = {
    "text": "Text",
    "xml": "Text",
    "document": "Text",
    "image": "Image",
    "audio": "Sound",
    "sound": "Sound",
    "video": "Audiovisual",
    "movie": "Audiovisual",
    "audiovisual": "Audiovisual",
    "dataset": "Dataset",
    "data": "Dataset",
    "model": "Model",
    "3d": "Model",
    "software": "Software",
    "collection": "Collection",
}


def resource_type_general(type_of_data: str) -> str:
    """DataCite resourceTypeGeneral of a record's type of data ("Image" → Image, "Video" → Audiovisual)."""
    return _RESOURCE_TYPES.get(type_of_data.strip().lower(), "Other")


# --- DCMI types (oai_dc dc:type) -------------------------------------------------

# DataCite resourceTypeGeneral -> the DCMI Type term that names the same kind of thing.
_DCMI_TYPES = {
    "Audiovisual": "MovingImage",
    "Collection": "Collection",
    "Dataset": "Dataset",
    "Image": "StillImage",
    "InteractiveResource": "InteractiveResource",
    "Model": "Dataset",
    "PhysicalObject": "PhysicalObject",
    "Project": "Collection",  # a project is published as the collection of its data
    "Service": "Service",
    "Software": "Software",
    "Sound": "Sound",
    "Text": "Text",
}


def dcmi_type(resource_type_general: str) -> str:
    """The DCMI Type term of a DataCite resourceTypeGeneral; "Dataset" for anything else a data archive holds."""
    return _DCMI_TYPES.get(resource_type_general, "Dataset")


# --- Known organisations (funders, the publisher) ----------------------------------


@dataclass(frozen=True, slots=True)
class KnownOrganisation:
    key: str
    name: str
    crossref_funder_id: str | None
    ror: str | None


_ACRONYM_SUFFIX = re.compile(r"\s*\([^)]*\)\s*$")


def _name_key(name: str) -> str:
    return " ".join(_ACRONYM_SUFFIX.sub("", name).split()).casefold()


def _load_organisations() -> dict[str, KnownOrganisation]:
    data = tomllib.loads(Path(__file__).with_name("organisations.toml").read_text(encoding="utf-8"))
    by_name: dict[str, KnownOrganisation] = {}
    for entry in data.get("organisation", ()):
        known = KnownOrganisation(entry["key"], entry["name"], entry.get("crossref_funder_id"), entry.get("ror"))
        for name in (entry["name"], *entry.get("names", ())):
            by_name[_name_key(name)] = known
    return by_name


_ORGANISATIONS = _load_organisations()


@lru_cache(maxsize=1024)
def known_organisation(name: str) -> KnownOrganisation | None:
    """The curated entry (``organisations.toml``) of an organisation's name, ignoring case and a trailing "(SNSF)"."""
    return _ORGANISATIONS.get(_name_key(name)) or _ORGANISATIONS.get(" ".join(name.split()).casefold())


# --- Languages (ISO 639-3) -------------------------------------------------------


@lru_cache(maxsize=1024)
def language_alpha3(code: str) -> str | None:
    """The ISO 639-3 (terminology) code of a BCP 47 tag's language ("de" -> "deu", "cop" -> "cop");
    None for private use (``x-cpa``) or a tag that names no known language."""
    try:
        language = langcodes.Language.get(code)
    except (LanguageTagError, ValueError):
        return None
    if language_name(code) == code:
        return None  # not a language CLDR knows (reserved or private-use ranges, unknown codes)
    try:
        return language.to_alpha3()
    except LookupError:
        return None


def spdx_id(uri: str) -> str | None:
    """The SPDX id a licence URL names, if any."""
    licence = spdx_licence(uri, "")
    return licence.spdx if licence else None
