"""The metadata exports an entity page offers: one list for the Export box, the
``<link rel="alternate">`` tags, content negotiation, Signposting and the
JSON-LD ``distribution``.

Each export lives at a stable URL: the entity page's path plus a file name
(``/projects/0803/metadata.jsonld``); JSON stays at the API path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from catalog.formats import datacite_xml

XSI = "http://www.w3.org/2001/XMLSchema-instance"


@dataclass(frozen=True, slots=True)
class Export:
    key: str  # the ``format`` of the export view
    file: str  # appended to the entity's page path
    label: str
    media_type: str  # Content-Type, Accept and link ``type``
    profile: str | None = None  # a profile URI where the media type alone is ambiguous


JSON = Export("json", "", "JSON", "application/json")
JSONLD = Export("jsonld", "metadata.jsonld", "JSON-LD (schema.org)", "application/ld+json", "https://schema.org/")
DATACITE = Export("datacite", "datacite.xml", "DataCite XML", "application/vnd.datacite.datacite+xml")
DUBLIN_CORE = Export("dc", "dc.xml", "Dublin Core XML", "application/xml", "http://purl.org/dc/elements/1.1/")
BIBTEX = Export("bib", "citation.bib", "BibTeX", "application/x-bibtex")
RIS = Export("ris", "citation.ris", "RIS", "application/x-research-info-systems")
CSL_JSON = Export("csl.json", "citation.csl.json", "CSL-JSON", "application/vnd.citationstyles.csl+json")
CITATION_TEXT = Export("txt", "citation.txt", "Formatted citation", "text/x-bibliography")
TURTLE = Export("ttl", "metadata.ttl", "Turtle (DCAT-AP)", "text/turtle")
RDF_XML = Export("rdf", "metadata.rdf", "RDF/XML (DCAT-AP)", "application/rdf+xml")
RDF_EXPORTS = (TURTLE, RDF_XML)

# Projects and records are citable works: every format. Persons, organizations,
# clusters and collections are described in JSON, JSON-LD and RDF (DataCite and
# Dublin Core describe resources, not agents or groupings).
WORK_EXPORTS = (JSON, JSONLD, TURTLE, RDF_XML, DATACITE, DUBLIN_CORE, BIBTEX, RIS, CSL_JSON, CITATION_TEXT)
DESCRIPTION_EXPORTS = (JSON, JSONLD, TURTLE, RDF_XML)
BY_KEY = {export.key: export for export in WORK_EXPORTS}


def export_path(page_path: str, export: Export, json_path: str) -> str:
    return json_path if export is JSON else f"{page_path}/{export.file}"


def negotiable(exports: tuple[Export, ...]) -> dict[str, Export]:
    """Media type -> export, for ``Accept`` negotiation (Dublin Core's ``application/xml`` is not offered:
    it names no format)."""
    return {export.media_type: export for export in exports if export is not DUBLIN_CORE}


def standalone_xml(oai_metadata: str) -> bytes:
    """An OAI ``<metadata>`` payload as a document of its own.

    The OAI writers leave ``xsi`` to the OAI-PMH root; a DataCite document is the
    kernel ``<resource>`` without the ``oai_datacite`` wrapper.
    """
    root = etree.fromstring(f'<wrapper xmlns:xsi="{XSI}">{oai_metadata}</wrapper>'.encode())
    element = root[0]
    if element.tag == f"{{{datacite_xml.NAMESPACE}}}oai_datacite":
        element = element.find(f".//{{{datacite_xml.KERNEL_NAMESPACE}}}resource")
    etree.cleanup_namespaces(element, top_nsmap={"xsi": XSI})
    document: bytes = etree.tostring(element, xml_declaration=True, encoding="UTF-8")
    return document + b"\n"


_UNSAFE_FILE = re.compile(r"[^A-Za-z0-9._-]")


CITATION_FILES = frozenset({BIBTEX, RIS, CSL_JSON})


def content_disposition(stem: str, export: Export) -> str:
    """Citation files download (reference managers open them); metadata documents show inline."""
    extension = export.file.removeprefix("metadata.").removeprefix("citation.")
    kind = "attachment" if export in CITATION_FILES else "inline"
    return f'{kind}; filename="{_UNSAFE_FILE.sub("_", stem)}.{extension}"'
