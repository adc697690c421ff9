"""Deprecated and removed ontology properties, in ontologies and data parsed as RDF (Turtle, RDF/XML, JSON-LD).

Parsing (rdflib) decides whether a property is really used, whatever prefix or syntax the file chose; a
property counts under the vocabulary's configured namespaces and under the namespace a file binds to the
vocabulary's prefix (the seed's `base:`). RDF keeps no positions, so the lines reported are those where the
source text writes the term.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import PurePath
from typing import Any

from rdflib import RDF, Graph, URIRef

from apiusage.findings import Hit
from apiusage.registry import Entry, Registry, Vocabulary
from apiusage.source import SourceText

_FORMAT_BY_SUFFIX = {
    ".ttl": "turtle",
    ".turtle": "turtle",
    ".n3": "n3",
    ".nt": "nt",
    ".rdf": "xml",
    ".owl": "xml",
    ".jsonld": "json-ld",
}
FORMAT_NAMES = {"turtle": "Turtle", "n3": "N3", "nt": "N-Triples", "xml": "RDF/XML", "json-ld": "JSON-LD"}
_RDF_NAMESPACE = str(RDF)
_TURTLE_COMMENT = re.compile(r"(?:^|\s)#.*$")


class OntologyError(ValueError):
    """A file that should be RDF could not be read as RDF."""


def rdf_format(path: PurePath, text: str, json_document: Any = None) -> str | None:
    """The rdflib format of a file, or None when it is not RDF: by suffix, else by content (.xml, .json)."""
    suffix = path.suffix.lower()
    if suffix in _FORMAT_BY_SUFFIX:
        return _FORMAT_BY_SUFFIX[suffix]
    if suffix == ".xml" and _RDF_NAMESPACE in text and re.search(r"<(?:\w+:)?RDF\b", text):
        return "xml"
    if _is_json_ld(json_document):
        return "json-ld"
    return None


def _is_json_ld(document: Any) -> bool:
    if isinstance(document, list):
        return any(isinstance(item, dict) and "@context" in item for item in document)
    return isinstance(document, dict) and "@context" in document


def _remote_contexts(document: Any) -> Iterator[str]:
    """@context references to other documents: rdflib would fetch them over the network."""
    if isinstance(document, dict):
        for key, value in document.items():
            if key in ("@context", "@import"):
                values = value if isinstance(value, list) else [value]
                yield from (item for item in values if isinstance(item, str))
            yield from _remote_contexts(value)
    elif isinstance(document, list):
        for item in document:
            yield from _remote_contexts(item)


class OntologyScanner:
    def __init__(self, registry: Registry) -> None:
        self._vocabularies = registry.vocabularies
        self._entries = registry.of_kind("ontology-property")

    def scan(self, source: SourceText, rdf_format: str, json_document: Any = None) -> Iterator[Hit]:
        graph = self._parse(source, rdf_format, json_document)
        bound = {prefix: str(namespace) for prefix, namespace in graph.namespaces()}
        used = {term for triple in graph for term in triple if isinstance(term, URIRef)}
        lines = source.lines
        if rdf_format in ("turtle", "n3", "nt"):
            lines = [_TURTLE_COMMENT.sub("", line) for line in lines]
        for entry in self._entries:
            vocabulary = self._vocabularies[entry.vocabulary or ""]
            namespaces = _namespaces(vocabulary, bound)
            prefixes = sorted({p for p, namespace in bound.items() if namespace in namespaces} | {*vocabulary.prefixes})
            iris = {URIRef(namespace + (entry.local_name or "")) for namespace in namespaces}
            term = _term_regex(entry.local_name or "", namespaces, prefixes, json_ld=rdf_format == "json-ld")
            term_lines = [
                (index + 1, match.group()) for index, line in enumerate(lines) if (match := term.search(line))
            ]
            if entry.subject_class:
                yield from self._on_subjects_of_class(entry, graph, iris, namespaces, bound, lines, term_lines)
            elif used & iris:
                for line_number, text in term_lines or [(1, entry.title)]:
                    yield Hit(line_number, entry, entry.title, text)

    def _parse(self, source: SourceText, rdf_format: str, json_document: Any) -> Graph:
        for context in _remote_contexts(json_document):
            raise OntologyError(f"JSON-LD @context {context!r} refers to another document, which is not fetched")
        graph = Graph(bind_namespaces="none")
        try:
            graph.parse(data=source.text, format=rdf_format, publicID=source.path.resolve().as_uri())
        except Exception as error:  # rdflib's parsers raise many unrelated exception types
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise OntologyError(f"not valid {FORMAT_NAMES[rdf_format]}: {reason}") from error
        return graph

    def _on_subjects_of_class(
        self,
        entry: Entry,
        graph: Graph,
        iris: set[URIRef],
        namespaces: set[str],
        bound: dict[str, str],
        lines: list[str],
        term_lines: list[tuple[int, str]],
    ) -> Iterator[Hit]:
        """Uses restricted to subjects of one class (admin:status of a project): each at the subject's term line."""
        classes = {URIRef(namespace + (entry.subject_class or "")) for namespace in namespaces}
        subjects = {
            subject
            for iri in iris
            for subject in graph.subjects(iri, None)
            if any((subject, RDF.type, cls) in graph for cls in classes)
        }
        lines_found = set()
        for subject in sorted(subjects, key=str):
            subject_line = _first_line(_subject_regex(subject, bound), lines) if isinstance(subject, URIRef) else 1
            after = [found for found in term_lines if found[0] >= (subject_line or 1)] or term_lines
            line_number, text = after[0] if after else (1, entry.title)
            if line_number not in lines_found:
                lines_found.add(line_number)
                yield Hit(line_number, entry, entry.title, text)


def _namespaces(vocabulary: Vocabulary, bound: dict[str, str]) -> set[str]:
    return {*vocabulary.namespaces, *(bound[prefix] for prefix in vocabulary.prefixes if prefix in bound)}


def _term_regex(local: str, namespaces: Iterable[str], prefixes: Iterable[str], *, json_ld: bool) -> re.Pattern[str]:
    """The ways a file writes a term: prefix:local, the full IRI, an XML entity, a bare JSON-LD key."""
    heads = [re.escape(prefix) + ":" for prefix in prefixes] + [re.escape(ns) for ns in sorted(namespaces)]
    heads.append(r"&[\w.-]+;")
    regex = rf"(?<![\w.\-/])(?:{'|'.join(heads)}){re.escape(local)}(?![\w\-])"
    if json_ld:
        regex += rf'|"{re.escape(local)}"'
    return re.compile(regex)


def _subject_regex(subject: URIRef, bound: dict[str, str]) -> re.Pattern[str]:
    iri = str(subject)
    forms = [re.escape(iri)]
    for prefix, namespace in bound.items():
        if iri.startswith(namespace) and len(iri) > len(namespace):
            forms.append(re.escape(f"{prefix}:{iri[len(namespace) :]}"))
    return re.compile(rf"(?<![\w.\-/])(?:{'|'.join(forms)})(?![\w\-])")


def _first_line(regex: re.Pattern[str], lines: list[str]) -> int | None:
    return next((index + 1 for index, line in enumerate(lines) if regex.search(line)), None)
