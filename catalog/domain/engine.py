"""Full-text search on tantivy: the analysis of every language, the query syntax, relevance, marks.

The project listing, the records of a project and the records of every
project are searched through two tantivy indexes (:class:`EngineIndex`), one
of the projects and one of all records, built by :func:`build_indexes` into
a directory (by ``svc stamp`` beside the snapshot, else at start-up into a
temporary one) and opened read-only by every process that searches them.

* **Analysis.** Each text goes into the field of its language (``de``,
  ``fr``, ``it``, ``en``: that language's Snowball stemmer; untagged text and
  other languages: :data:`DEFAULT_LANGUAGE`), lower-cased and folded to ASCII
  after stemming (``Frühdrucke``, ``fruhdrucke`` and ``Fruehdrucke`` are one
  word). A query word is analysed once per language and looked up in each
  language's fields, so it matches across the languages of the data.
* **Relevance.** BM25, per query word the best of its fields (a
  disjunction-max), each field group weighted (a project's name over its
  keywords over its short description over the rest; a record's label over
  its other texts), plus :data:`NEAR_SCORE` for every item the word finds.
* **Typos.** A word whose indexed form has :data:`FUZZY_MIN_LETTERS` letters
  or more also matches the words one edit away (insertion, deletion,
  substitution or transposition of two neighbours); an item found by such a
  word alone scores :data:`NEAR_SCORE` only, so that the items holding the
  word itself rank first.
* **Identifiers.** A record is found by the last part of its pid, as written
  (case folded), never by a near word (another record's pid), and comes first
  (:data:`IDENTIFIER_SCORE`). Not in tantivy: millions of words found once
  each were a sixth of the index's build; an :class:`IdentifierTable` beside
  it finds them.
* **Truncation.** ``word*`` (three letters or more) also matches every word
  that starts so, scored as a typo is: below exact matches.
* **Frequent words.** A one-word search's first pages usually lie among the
  items holding the word itself: they are found there, without the pass over
  its near words' items (:meth:`EngineIndex.page_holding`), in the same order.
* **Syntax** (:func:`parse`): ``"a phrase"``, ``-word`` and ``-"phrase"``,
  ``a OR b``, and ``creator:``, ``title:``, ``year:`` (``year:1990`` or
  ``year:1990-2000``; a prefix with nothing after it is a plain word); all
  other terms must match. Anything the syntax does
  not read is taken as plain words: a query never fails.
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import json
import logging
import os
import re
import shutil
import tempfile
import threading
import weakref
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import tantivy

from catalog.domain.memo import memo_for
from catalog.domain.model import PLACEHOLDERS, Catalog, Project, is_placeholder, language_items
from catalog.domain.roles import creator_attributions
from catalog.domain.stamp_processes import ProcessLost, forked_pool
from catalog.domain.values import stored_list, stored_strings

logger = logging.getLogger("catalog.domain.engine")

# Bump when the analysis, the fields or what goes into them change: an index of another format is rebuilt.
FORMAT = 5
STEMMERS = {"de": "german", "fr": "french", "it": "italian", "en": "english"}
LANGUAGES = tuple(STEMMERS)
DEFAULT_LANGUAGE = "en"  # untagged text, and languages without a stemmer here
NAMES = "names"  # the analysis of names: folded, never stemmed
FUZZY_MIN_LETTERS = 5
NEAR_SCORE = 0.05  # every match's score, to which the word itself adds its BM25 (a near word alone: nothing)
MAX_TERMS = 20
PREFIX_MIN_LETTERS = 3  # ``ab*`` would reach too much of the vocabulary to mean anything
_LONGEST_WORD = 40  # longer tokens (hashes, URLs run together) are not indexed


def _analyzer(language: str | None) -> tantivy.TextAnalyzer:
    builder = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(_LONGEST_WORD))
        .filter(tantivy.Filter.lowercase())
    )
    if language is not None:
        builder = builder.filter(tantivy.Filter.stemmer(STEMMERS[language]))
    return builder.filter(tantivy.Filter.ascii_fold()).build()


ANALYZERS: dict[str, tantivy.TextAnalyzer] = {**{lang: _analyzer(lang) for lang in LANGUAGES}, NAMES: _analyzer(None)}


@lru_cache(maxsize=1024)
def language_of(tag: str | None) -> str:
    """The analysis a text of language ``tag`` gets: its own language's when there is one, else the default."""
    primary = (tag or "").split("-")[0].split("_")[0].lower()
    return primary if primary in STEMMERS else DEFAULT_LANGUAGE


@lru_cache(maxsize=65536)
def analysed(analysis: str, text: str) -> tuple[str, ...]:
    """The tokens ``text`` is indexed (and searched) as under ``analysis`` (a language or :data:`NAMES`)."""
    return tuple(ANALYZERS[analysis].analyze(text))


# The query syntax ------------------------------------------------------------------------------

# A field prefix applies to the term after it, spaces between them or not (``creator: Gotthelf``).
_TERM = re.compile(r'(?P<neg>-)?(?:(?P<field>creator|title|year):\s*)?(?:"(?P<phrase>[^"]*)"|(?P<word>[^\s"]+))', re.I)
_YEARS = re.compile(r"(\d{1,4})(?:(?:-|\.\.)(\d{1,4}))?")


@dataclass(frozen=True, slots=True)
class Term:
    """One term of a query: a word, or a phrase (several words in a row), perhaps limited to a field."""

    text: str
    phrase: bool = False
    field: str | None = None  # "creator", "title", "year" or None: every text
    years: tuple[int, int] | None = None  # year: a range of years
    truncated: str | None = None  # ``word*``: the start that words may continue (folded, unstemmed)


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: every group must match (one of its terms: they were joined by OR), no exclusion may."""

    groups: tuple[tuple[Term, ...], ...] = ()
    excluded: tuple[Term, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.groups or self.excluded)

    @property
    def terms(self) -> Iterator[Term]:
        """The terms that must (or may) match: what marks show."""
        for group in self.groups:
            yield from group


def _has_tokens(text: str) -> bool:
    return bool(analysed(NAMES, text))


def _truncated(word: str | None) -> str | None:
    """The start ``word*`` asks words to begin with: one folded word of :data:`PREFIX_MIN_LETTERS` or more."""
    if not word or not word.endswith("*"):
        return None
    tokens = analysed(NAMES, word)
    if len(tokens) != 1 or len(tokens[0]) < PREFIX_MIN_LETTERS or not tokens[0].isalnum():
        return None
    return tokens[0]


def parse(text: str) -> Query:
    """The query ``text`` says; what the syntax does not read is taken as plain words (never an error)."""
    groups: list[list[Term]] = []
    excluded: list[Term] = []
    join_next = False
    count = 0
    for found in _TERM.finditer(text):
        if count >= MAX_TERMS:
            break
        negated, prefix, phrase, word = (
            found.group("neg"),
            found.group("field"),
            found.group("phrase"),
            found.group("word"),
        )
        if word == "OR" and not negated and not prefix:
            join_next = bool(groups)
            continue
        value = phrase if phrase is not None else word
        term: Term | None = None
        if prefix and prefix.lower() == "year":
            years = _YEARS.fullmatch(value.strip())
            if years:
                low = int(years.group(1))
                high = int(years.group(2)) if years.group(2) else low
                term = Term(value, field="year", years=(min(low, high), max(low, high)))
            else:
                value = f"{prefix}:{value}"  # not a year: plain words
                prefix = None
        if term is None:
            if not _has_tokens(value):
                join_next = False
                continue
            term = Term(value, phrase is not None, prefix.lower() if prefix else None, truncated=_truncated(word))
        count += 1
        if negated:
            excluded.append(term)
            join_next = False
        elif join_next and groups:
            groups[-1].append(term)
            join_next = False
        else:
            groups.append([term])
    return Query(tuple(tuple(group) for group in groups), tuple(excluded))


# Documents and indexes --------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """What one index holds: its field groups (a text's role, with its weight) and which group ``title:`` means.

    ``numbers`` are the unsigned fast fields of each item beyond its position and years (the records' facet
    codes and sort ranks: :data:`RECORD_NUMBERS`), so that facets are counted and hits ordered inside tantivy.
    """

    name: str
    groups: Mapping[str, float]
    title_group: str
    numbers: tuple[str, ...] = ()


# The records' facet codes (``facet.<key>``: the all-records index's number of the value, absent when none), the
# year of the year facet as a number (``facet.year_shown``, for `from`/`to`), and the rank of each record in
# every order but relevance (``rank.<sort>``).
FACET_FIELDS = ("project", "type", "creator", "licence", "year")
RECORD_NUMBERS = (
    *(f"facet.{key}" for key in FACET_FIELDS),
    "facet.year_shown",
    "rank.label",
    "rank.oldest",
    "rank.newest",
)

PROJECTS = Kind("projects", {"name": 4.0, "keywords": 2.0, "short": 1.5, "body": 1.0}, "name")
# A browse listing's entries (persons, organizations, clusters, collections): the name over what is shown with it.
BROWSE = Kind("browse", {"name": 3.0, "body": 1.0}, "name")
BROWSE_KINDS = ("persons", "organizations", "clusters", "collections")
RECORDS = Kind("records", {"label": 2.0, "body": 1.0}, "label", RECORD_NUMBERS)
CREATOR_WEIGHT = 1.5
IDENTIFIERS = "identifiers"  # the directory of the records' IdentifierTable, beside the indexes
IDENTIFIER_SCORE = 50.0  # a record found by its pid: above any word's BM25 in its texts (it is the one asked for)


@dataclass
class Document:
    """One item as the engine indexes it: its place in the caller's order, its texts, creators and years."""

    position: int
    texts: list[tuple[str, str | None, str]] = field(default_factory=list)  # (group, language tag, text)
    creators: list[str] = field(default_factory=list)
    years: tuple[int, int] | None = None
    numbers: dict[str, int] = field(default_factory=dict)  # the kind's numbers this item has

    def add(self, group: str, value: object) -> None:
        """Every text of a stored value (a string, a language map, a list of them) in ``group``."""
        if isinstance(value, str):  # the common case first: this runs for every text of every record
            if value.strip() and value not in PLACEHOLDERS:
                self.texts.append((group, None, value))
        elif value is None:  # a field the item does not have
            return
        elif isinstance(value, list | tuple):
            for item in value:
                self.add(group, item)
        elif isinstance(value, Mapping) and ("text" in value or "url" in value):
            text = value.get("text")
            if isinstance(text, str):
                self.add(group, text)
        else:
            for language, text in language_items(value):
                if text.strip() and text not in PLACEHOLDERS:
                    self.texts.append((group, language, text))


def _field(group: str, language: str) -> str:
    return f"{group}_{language}"


@lru_cache(maxsize=1024)
def _text_field(group: str, tag: str | None) -> str:
    """The field a text of ``group`` in language ``tag`` goes into."""
    return _field(group, language_of(tag))


def document_json(document: Document) -> str:
    """``document`` as tantivy reads it (``IndexWriter.add_json``): each text in the field of its group and language.

    A string, so that processes other than the writer's can make it.
    """
    fields: dict[str, Any] = {}
    for group, language, text in document.texts:
        name = _text_field(group, language)
        texts = fields.get(name)
        if texts is None:
            fields[name] = [text]
        else:
            texts.append(text)
    if document.creators:
        fields["creator"] = document.creators
    fields["position"] = document.position
    if document.years is not None:
        fields["year_from"], fields["year_to"] = max(0, document.years[0]), max(0, document.years[1])
    fields.update(document.numbers)
    return _JSON.encode(fields)


_JSON = json.JSONEncoder(ensure_ascii=False, check_circular=False)  # made once: json.dumps makes one per call


def schema_of(kind: Kind) -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    for group in kind.groups:
        for language in LANGUAGES:
            builder.add_text_field(_field(group, language), tokenizer_name=f"svc_{language}")
    builder.add_text_field("creator", tokenizer_name=f"svc_{NAMES}")
    builder.add_unsigned_field("position", indexed=True, fast=True)
    builder.add_unsigned_field("year_from", indexed=True, fast=True)
    builder.add_unsigned_field("year_to", indexed=True, fast=True)
    for name in kind.numbers:
        builder.add_unsigned_field(name, indexed=name.startswith("facet."), fast=True)
    return builder.build()


def _register(index: tantivy.Index) -> None:
    for name, analyzer in ANALYZERS.items():
        index.register_tokenizer(f"svc_{name}", analyzer)


# One writing thread, its documents in the order given, with a budget that some millions of records fit in: one
# segment (tantivy allocates the budget as it fills it: about 370 MB per million records). Past it, tantivy
# writes more segments, and orders them by their random identifiers, not in the order they were written.
WRITER_HEAP = 4_200_000_000  # near tantivy's limit (4,293,967,295); by the 1M figures about ten million records


def write_index(
    directory: Path, kind: Kind, documents: Iterable[Document], segment_documents: int | None = None
) -> int:
    """Index ``documents`` into a new index in ``directory`` (created); returns how many segments it has."""
    return _write_json(directory, kind, map(document_json, documents), segment_documents)


def _write_json(directory: Path, kind: Kind, documents: Iterable[str], segment_documents: int | None = None) -> int:
    """:func:`write_index` of documents made already (:func:`document_json`)."""
    directory.mkdir(parents=True, exist_ok=True)
    index = tantivy.Index(schema_of(kind), path=str(directory), reuse=False)
    _register(index)
    writer = index.writer(heap_size=WRITER_HEAP, num_threads=1)
    count = 0
    for document in documents:
        writer.add_json(document)
        count += 1
        if segment_documents and count % segment_documents == 0:  # a segment of that many (tests)
            writer.commit()
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return int(index.searcher().num_segments) if count else 1


def _term_query(schema: tantivy.Schema, name: str, tokens: Sequence[str]) -> tantivy.Query:
    if len(tokens) == 1:
        return tantivy.Query.term_query(schema, name, tokens[0])
    return tantivy.Query.phrase_query(schema, name, list(tokens))


# The items whose identifier is a query word's token(s) (:meth:`IdentifierTable.positions`).
Identified = Callable[[tuple[str, ...]], list[int]]


def _text_query(
    schema: tantivy.Schema,
    kind: Kind,
    term: Term,
    fuzzy: bool,
    scored: bool = True,
    holding: bool = False,
    identified: Identified | None = None,
) -> tantivy.Query | None:
    """One word or phrase over its fields: a small constant for every item it finds (:data:`NEAR_SCORE`), plus
    the best field's BM25 score where the word itself is found: the items a near word alone finds come after.

    ``holding``: only the items holding the word itself, scored by that BM25 alone (without the constant): the
    first pages of a frequent word are found among its own items (:meth:`EngineIndex.page_holding`), without the
    pass over its near words'. Not ``scored``: the same matches, unscored (what facets count): per field the near
    word's query alone where there is one, as a word is within one edit of itself. ``identified``: the items whose
    identifier the word is (:class:`IdentifierTable`), found too, never by a near word.
    """
    targets: list[tuple[str, str, float]] = []  # (field, analysis, weight)
    if term.field != "creator":
        groups = [kind.title_group] if term.field == "title" else list(kind.groups)
        targets += [(_field(g, lang), lang, kind.groups[g]) for g in groups for lang in LANGUAGES]
    if term.field in (None, "creator"):
        targets.append(("creator", NAMES, CREATOR_WEIGHT))
    exact, matched = [], []
    if term.field is None and identified is not None and (positions := identified(analysed(NAMES, term.text))):
        items = tantivy.Query.term_set_query(schema, "position", positions)
        exact.append(tantivy.Query.const_score_query(items, IDENTIFIER_SCORE))
        matched.append(items)
    for name, analysis, weight in targets:
        tokens = analysed(analysis, term.text)
        if not tokens:
            continue
        word = _term_query(schema, name, tokens)
        exact.append(tantivy.Query.boost_query(word, weight))
        if fuzzy and _has_near_words(term, tokens):
            word = tantivy.Query.fuzzy_term_query(schema, name, tokens[0], 1, True, False)
        matched.append(word)
        if term.truncated is not None:  # every word that starts so, scored as a typo is
            matched.append(tantivy.Query.regex_query(schema, name, f"{term.truncated}.*"))
    if not exact:
        return None
    found = tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in matched])
    if not scored:
        return found
    best = tantivy.Query.disjunction_max_query(exact)
    if holding:
        return best
    return tantivy.Query.boolean_query(
        [(tantivy.Occur.Should, best), (tantivy.Occur.Should, tantivy.Query.const_score_query(found, NEAR_SCORE))]
    )


def _has_near_words(term: Term, tokens: tuple[str, ...]) -> bool:
    """Whether ``term``, analysed as ``tokens`` in a field, also matches the words one edit away there."""
    return not term.phrase and len(tokens) == 1 and len(tokens[0]) >= FUZZY_MIN_LETTERS


def _year_query(schema: tantivy.Schema, years: tuple[int, int]) -> tantivy.Query:
    """Items whose years meet the range: from at most its end, to at least its start."""
    unsigned = tantivy.FieldType.Unsigned
    return tantivy.Query.boolean_query(
        [
            (tantivy.Occur.Must, tantivy.Query.range_query(schema, "year_from", unsigned, 0, years[1])),
            (tantivy.Occur.Must, tantivy.Query.range_query(schema, "year_to", unsigned, years[0], None)),
        ]
    )


def engine_query(
    schema: tantivy.Schema,
    kind: Kind,
    query: Query,
    scored: bool = True,
    holding: bool = False,
    identified: Identified | None = None,
) -> tantivy.Query | None:
    """The tantivy query of a parsed query (None: it asks for nothing); not ``scored``: its matches, unscored;
    ``holding``: only the items holding each word itself, scored by its BM25 alone; ``identified``: as
    :func:`_text_query`."""

    def one(term: Term, fuzzy: bool) -> tantivy.Query | None:
        if term.years is not None:
            return _year_query(schema, term.years)
        return _text_query(schema, kind, term, fuzzy, scored, holding, identified)

    clauses = []
    for group in query.groups:
        alternatives = [q for term in group if (q := one(term, fuzzy=True)) is not None]
        if not alternatives:
            return tantivy.Query.empty_query()  # a term no field can hold matches nothing
        either = (
            alternatives[0]
            if len(alternatives) == 1
            else tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in alternatives])
        )
        clauses.append((tantivy.Occur.Must, either))
    for term in query.excluded:
        if (q := one(term, fuzzy=False)) is not None:  # an exclusion is exact: a near word is not excluded
            clauses.append((tantivy.Occur.MustNot, q))
    if not clauses:
        return None
    if not query.groups:
        clauses.append((tantivy.Occur.Must, tantivy.Query.all_query()))
    return tantivy.Query.boolean_query(clauses)


def filtered(query: tantivy.Query, filters: Sequence[tantivy.Query]) -> tantivy.Query:
    """``query`` limited to the items every filter matches, scored as ``query`` alone (a filter adds 0)."""
    if not filters:
        return query
    clauses = [(tantivy.Occur.Must, query)]
    clauses += [(tantivy.Occur.Must, tantivy.Query.const_score_query(f, 0.0)) for f in filters]
    return tantivy.Query.boolean_query(clauses)


# The records' orders inside tantivy: sort -> (fast field, ascending); relevance is the score's (ties: label order).
RECORD_ORDERS = {
    "label": ("rank.label", True),
    "label-desc": ("rank.label", False),
    "oldest": ("rank.oldest", True),
    "newest": ("rank.newest", True),
    "identifier": ("position", True),
}


class IdentifierTable:
    """Which records a word of a pid's last part finds: the 64-bit hashes of those words, sorted, with each one's
    position, in two arrays on disk that every process maps (a lookup reads a few pages of them).

    A hash is not the word: another word with the same hash would find the record too, at odds of one in 2**64
    per record. The words are those the engine's analysis of names makes (:data:`NAMES`: case and accents folded).
    """

    HASHES, POSITIONS = "hashes.npy", "positions.npy"

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @cached_property
    def _arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return (
            np.load(self.directory / self.HASHES, mmap_mode="r"),
            np.load(self.directory / self.POSITIONS, mmap_mode="r"),
        )

    def positions(self, tokens: Sequence[str]) -> list[int]:
        """The positions of the records whose identifier holds every one of ``tokens``."""
        hashes, positions = self._arrays
        found: set[int] | None = None
        for token in tokens:
            wanted = np.uint64(_word_hash(token))  # a Python int over 2**63 would compare the whole array as floats
            low, high = np.searchsorted(hashes, wanted, "left"), np.searchsorted(hashes, wanted, "right")
            these = {int(p) for p in positions[low:high]}
            found = these if found is None else found & these
        return sorted(found or ())

    def write(self, pids: Iterable[str]) -> None:
        """The table of records whose pids are ``pids``, in position order, into its directory (created)."""
        hashes, positions = [], []
        for position, pid in enumerate(pids):
            for token in _identifier_tokens(pid.rpartition("/")[2]):
                hashes.append(_word_hash(token))
                positions.append(position)
        keys = np.array(hashes, dtype=np.uint64)
        order = np.argsort(keys, kind="stable")
        self.directory.mkdir(parents=True, exist_ok=True)
        np.save(self.directory / self.HASHES, keys[order])
        np.save(self.directory / self.POSITIONS, np.array(positions, dtype=np.int64)[order])


def _identifier_tokens(identifier: str) -> tuple[str, ...]:
    """The words of an identifier, as :data:`NAMES` analyses them (most are one ASCII word: lower-cased)."""
    if identifier.isascii() and identifier.isalnum():
        return (identifier.lower(),) if len(identifier) < _LONGEST_WORD else ()
    return tuple(ANALYZERS[NAMES].analyze(identifier))


def _word_hash(word: str) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")


class EngineIndex:
    """One tantivy index on disk, opened read-only (again in each process: a fork does not share its handles)."""

    def __init__(self, directory: Path, kind: Kind, identifiers: IdentifierTable | None = None) -> None:
        self.directory = directory
        self.identified = identifiers.positions if identifiers is not None else None
        self.kind = kind
        self.schema = schema_of(kind)
        self._opened: tuple[int, tantivy.Searcher] | None = None
        self._lock = threading.Lock()

    def searcher(self) -> tantivy.Searcher:
        opened = self._opened
        if opened is None or opened[0] != os.getpid():
            with self._lock:
                index = tantivy.Index.open(str(self.directory))
                _register(index)
                opened = (os.getpid(), index.searcher())
                self._opened = opened
        return opened[1]

    def hits(self, query: Query, within: tuple[int, int] | None = None) -> tuple[np.ndarray, np.ndarray] | None:
        """The positions of the matching items and their scores (None: the query asks for nothing).

        ``within``: only the items from position ``within[0]`` up to ``within[1]`` (excluded).
        """
        built = engine_query(self.schema, self.kind, query, identified=self.identified)
        if built is None:
            return None
        if within is not None:
            if within[1] <= within[0]:
                return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
            unsigned = tantivy.FieldType.Unsigned
            span = tantivy.Query.range_query(self.schema, "position", unsigned, *within, True, False)
            built = filtered(built, [span])
        searcher = self.searcher()
        total = searcher.search(built, limit=1, count=True).count  # type: ignore[attr-defined]
        if not total:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        found = searcher.search(built, limit=total, count=False).hits
        scores = np.fromiter((score for score, _ in found), dtype=np.float32, count=len(found))
        positions = np.array(searcher.fast_field_values("position", [address for _, address in found]), dtype=np.int64)
        return positions, scores

    def matching(self, query: Query, scored: bool = True, holding: bool = False) -> tantivy.Query | None:
        """The tantivy query of ``query`` on this index (None: it asks for nothing); not ``scored``: its matches,
        unscored (quicker to count); ``holding``: see :func:`engine_query`."""
        return engine_query(self.schema, self.kind, query, scored, holding, self.identified)

    def among(self, name: str, values: Iterable[int]) -> tantivy.Query:
        """The items whose number ``name`` is one of ``values`` (none: no item)."""
        wanted = sorted(set(values))
        if not wanted:
            return tantivy.Query.empty_query()
        return tantivy.Query.term_set_query(self.schema, name, wanted)

    def between(self, name: str, low: int | None, high: int | None) -> tantivy.Query:
        """The items whose number ``name`` lies in [low, high] (None: unbounded on that side; not both)."""
        if high is not None and (high < 0 or (low is not None and high < low)):
            return tantivy.Query.empty_query()
        unsigned = tantivy.FieldType.Unsigned
        return tantivy.Query.range_query(self.schema, name, unsigned, None if low is None else max(0, low), high)

    def counts(self, built: tantivy.Query, sizes: Mapping[str, int]) -> dict[str, dict[int, int]] | None:
        """How many matches of ``built`` have each value of each number in ``sizes`` (how many values it has).

        Exact: every value is a bucket, in every segment. None when tantivy refuses that many buckets.
        """
        spec = {
            name: {"terms": {"field": name, "size": max(1, size), "segment_size": max(1, size)}}
            for name, size in sizes.items()
        }
        try:
            found = self.searcher().aggregate(built, spec)
        except ValueError:
            logger.warning("facet counts not aggregated by tantivy (too many values?): %s", list(sizes))
            return None
        return {
            name: {int(bucket["key"]): int(bucket["doc_count"]) for bucket in found[name]["buckets"]} for name in sizes
        }

    def holding(self, query: Query) -> tantivy.Query | None:
        """For a query of one word, the items holding it itself (:func:`engine_query`'s ``holding``), which
        :meth:`page_holding` pages; else None: a near word of another word adds to a score there, and a word
        without near words (a phrase, a short word) is found as cheaply by the whole query."""
        if len(query.groups) != 1 or len(query.groups[0]) != 1:
            return None
        term = query.groups[0][0]
        if term.years is not None or not (
            term.truncated is not None or any(_has_near_words(term, analysed(lang, term.text)) for lang in LANGUAGES)
        ):
            return None
        return engine_query(self.schema, self.kind, query, holding=True, identified=self.identified)

    def page_holding(self, holding: tantivy.Query, start: int, stop: int) -> np.ndarray | None:
        """The positions from ``start`` to ``stop`` in relevance order when they are all items that hold the words
        themselves (``holding``: :meth:`holding`), else None.

        Such an item scores its word's BM25 plus :data:`NEAR_SCORE`, which is all that an item found by a near word
        alone scores; ``holding`` scores the BM25 alone. Both orders are the same (equal scores: the earlier item
        first) unless the sum rounds two different scores to one: the page is taken only when no two do, among
        those read and between the last read and any lower score. It costs a pass over the word's own items
        instead of its near words' too (a frequent word's are most of a search's cost).
        """
        searcher = self.searcher()
        if stop <= start or stop >= int(searcher.num_docs):  # past every item: see :meth:`page`
            return None
        found = searcher.search(holding, limit=stop, count=False).hits
        if len(found) < stop:
            return None
        near = np.float32(NEAR_SCORE)
        scores = np.unique(np.array([score for score, _ in found], dtype=np.float32))  # ascending, distinct
        lower = np.nextafter(scores[0], np.float32(-np.inf))  # the highest score an item not read may have below
        sums = np.concatenate(([lower], scores)) + near  # rounded as tantivy rounds them (f32)
        if not (np.all(np.diff(sums) > 0) and sums[1] > near):
            return None
        addresses = [address for _, address in found[start:stop]]
        return np.array(searcher.fast_field_values("position", addresses), dtype=np.int64)

    def page(self, built: tantivy.Query, sort: str, start: int, stop: int) -> np.ndarray:
        """The positions of the items ``built`` matches from ``start`` to ``stop`` in ``sort``.

        Relevance: best score first, equal scores in the order of the documents (the label order of an ordered
        records' index). Other sorts: :data:`RECORD_ORDERS`. Not counted here: the facet counts count the matches.
        """
        searcher = self.searcher()
        if start >= int(searcher.num_docs):  # past every item: tantivy would reserve room for ``start`` hits first
            return np.zeros(0, dtype=np.int64)
        limit = max(1, stop - start)
        if sort in RECORD_ORDERS:
            name, ascending = RECORD_ORDERS[sort]
            order = tantivy.Order.Asc if ascending else tantivy.Order.Desc
            found = searcher.search(built, limit=limit, count=False, order_by_field=name, offset=start, order=order)
        else:
            found = searcher.search(built, limit=limit, count=False, offset=start)
        addresses = [address for _, address in found.hits[: stop - start]]
        positions = searcher.fast_field_values("position", addresses) if addresses else []
        return np.array(positions, dtype=np.int64)


# What is indexed of projects and records ----------------------------------------------------


def _year(value: object) -> int | None:
    text = value.strip() if isinstance(value, str) else ""
    return int(text[:4]) if len(text) >= 4 and text[:4].isdigit() and not is_placeholder(text) else None


def project_document(catalog: Catalog, project: Project, position: int) -> Document:
    document = Document(position)
    document.add("name", project.name)
    document.add("name", project.shortcode)
    document.add("name", [t for t in stored_strings(project.get("officialName")) if not is_placeholder(t)])
    document.add("name", project.get("alternativeNames"))
    document.add("keywords", project.get("keywords"))
    document.add("keywords", project.get("disciplines"))
    document.add("short", [t for t in stored_strings(project.get("shortDescription")) if not is_placeholder(t)])
    for name in ("description", "abstract", "temporalCoverage", "spatialCoverage"):
        document.add("body", project.get(name))
    creators = {a.contributor_id for a in creator_attributions(project)}
    for attribution in project.attributions:
        contributor = catalog.contributor(attribution.contributor_id)
        if contributor is not None and contributor.display_name:
            document.add("body", contributor.display_name)
            if attribution.contributor_id in creators:
                document.creators.append(contributor.display_name)
    first, last = _year(project.get("startDate")), _year(project.get("endDate"))
    if first:
        document.years = (first, last or 9999)  # an open end runs on
    return document


RECORD_BODY_FIELDS = ("description", "keywords", "typeOfData", "publisher")


def record_creators(record: Mapping[str, Any]) -> list[str]:
    """Who a record names as its authors (its legal info's authorship)."""
    names: list[str] = []
    for legal in stored_list(record.get("legalInfo")):
        if isinstance(legal, Mapping):
            authors = stored_list(legal.get("authorship"))
            names += [n.strip() for n in authors if isinstance(n, str) and n.strip() and not is_placeholder(n)]
    return list(dict.fromkeys(names))


def record_year(record: Mapping[str, Any]) -> int | None:
    return _year(record.get("datePublished") or record.get("dateCreated"))


def record_document(record: Mapping[str, Any], position: int) -> Document:
    document = Document(position)
    document.add("label", record.get("label"))
    for name in RECORD_BODY_FIELDS:
        document.add("body", record.get(name))
    document.creators = record_creators(record)
    year = record_year(record)
    if year is not None:
        document.years = (year, year)
    return document


def record_tables(catalog: Catalog) -> list[tuple[str, Any]]:
    """The (project key, record table) pairs in the order every all-records position counts them."""
    return [(p.key, table) for p in catalog.projects if (table := catalog.records.get(p.key)) is not None]


def _record_documents(catalog: Catalog, numbered: bool, begin: int = 0, stop: int | None = None) -> Iterator[Document]:
    """The records' documents from ``begin`` to ``stop`` in the index's order (all by default).

    ``numbered``: in the all-records label order, with its facet codes and ranks. In label order, tantivy's own
    order of equal scores (the earlier document first, in one segment) is the label order that breaks ties of
    relevance everywhere else. Else in the order of :func:`record_tables`.
    """
    tables = record_tables(catalog)
    offsets = np.cumsum([0, *(len(table) for _, table in tables)], dtype=np.int64)
    layout = None
    if numbered:
        assert record_layout is not None
        layout = record_layout(catalog)
    stop = int(offsets[-1]) if stop is None else stop
    for start in range(begin, stop, _CHUNK):
        end = min(stop, start + _CHUNK)
        positions = layout.by_label[start:end] if layout is not None else np.arange(start, end, dtype=np.int64)
        projects = np.searchsorted(offsets, positions, side="right") - 1
        places = (positions - offsets[projects]).tolist()
        numbers = _record_numbers(layout, positions) if layout is not None else [None] * len(places)
        rows = zip(positions.tolist(), projects.tolist(), places, numbers, strict=True)
        for position, project, local, its_numbers in rows:
            table = tables[project][1]
            document = record_document(table.record(local), position)
            if its_numbers is not None:
                document.numbers = its_numbers
            yield document


_CHUNK = 1 << 16  # records whose numbers are read out of the layout's arrays at a time


# The name of a process making the records' documents (/proc/<pid>/comm).
INDEXER_NAME = b"svc-stamp-index"


class _RecordsInProcesses:
    """The records' documents (:func:`document_json`) made by ``processes`` forked processes, a chunk each, in order.

    Making a document (its record's JSON read, its texts gathered, its JSON written) is most of what an index
    costs in Python; tantivy's writer indexes them on a thread of its own. On one thread, the documents came
    no faster than tantivy took them. The processes are forked when this is made: before any tantivy writer
    runs threads in this process.
    """

    DOCUMENTS = 1 << 13  # a process's chunk: the pipe carries it as one message
    AHEAD = 2  # chunks asked for per process ahead of the one being indexed: a bounded memory

    def __init__(self, catalog: Catalog, numbered: bool, processes: int) -> None:
        self.total = sum(len(table) for _, table in record_tables(catalog))
        self._pool = forked_pool(processes, INDEXER_NAME, _start_indexer, (catalog, numbered))
        self._chunks = iter(range(0, self.total, self.DOCUMENTS))
        self._pending: deque[Future[list[str]]] = deque()
        try:
            for _ in range(processes * self.AHEAD):
                self._ask()
        except ProcessLost:
            self._pool.shutdown(wait=True, cancel_futures=True)
            raise

    def _ask(self) -> None:
        """Ask for the next chunk; a process that has ended by then breaks the pool at once (ProcessLost)."""
        begin = next(self._chunks, None)
        if begin is not None:
            try:
                self._pending.append(self._pool.submit(_indexed_chunk, begin, min(self.total, begin + self.DOCUMENTS)))
            except BrokenProcessPool:
                raise ProcessLost(_INDEXER_LOST) from None

    def __iter__(self) -> Iterator[str]:
        try:
            while self._pending:
                try:
                    documents = self._pending.popleft().result()
                except BrokenProcessPool:
                    raise ProcessLost(_INDEXER_LOST) from None
                self._ask()
                yield from documents
        finally:
            self._pool.shutdown(wait=True, cancel_futures=True)


_INDEXER_LOST = "a process making the search index's documents ended before its chunk"


# The catalogue of this process and whether its documents are numbered, when it is one of a
# _RecordsInProcesses's (set as it starts).
_indexer_catalog: tuple[Catalog, bool] | None = None


def _start_indexer(catalog: Catalog, numbered: bool) -> None:
    global _indexer_catalog
    _indexer_catalog = (catalog, numbered)


def _indexed_chunk(begin: int, stop: int) -> list[str]:
    assert _indexer_catalog is not None  # set as the process started
    catalog, numbered = _indexer_catalog
    return [document_json(document) for document in _record_documents(catalog, numbered, begin, stop)]


def _record_numbers(index: RecordLayout, positions: np.ndarray) -> list[dict[str, int]]:
    """The facet codes, year and ranks of the records at ``positions``: a value's number, absent when it has none.

    Read column by column out of the arrays (one NumPy gather each), not record by record.
    """
    years = np.array([*(int(v) if v.isdigit() else -1 for v in index.values["year"]), -1], dtype=np.int64)
    columns = [(f"facet.{key}", index.codes[key][positions]) for key in FACET_FIELDS]
    columns.append(("facet.year_shown", years[index.codes["year"][positions]]))  # code -1: the last, no year
    columns += [(f"rank.{sort}", index.ranks[sort][positions]) for sort in ("label", "oldest", "newest")]
    names = [name for name, _ in columns]
    rows = zip(*(values.tolist() for _, values in columns), strict=True)
    return [{name: value for name, value in zip(names, row, strict=True) if value >= 0} for row in rows]


class RecordLayout(Protocol):
    """What the records' index takes of the all-records index: its order of records, facet numbers and ranks."""

    @property
    def keys(self) -> tuple[str, ...]: ...
    @property
    def offsets(self) -> np.ndarray: ...
    @property
    def by_label(self) -> np.ndarray: ...
    @property
    def codes(self) -> Mapping[str, np.ndarray]: ...
    @property
    def values(self) -> Mapping[str, tuple[str, ...]]: ...
    @property
    def ranks(self) -> Mapping[str, np.ndarray]: ...


# The documents of each browse listing, by kind, in the listing's order: catalog.domain.browse sets it when imported.
browse_documents: Callable[[Catalog], Mapping[str, Sequence[Document]]] | None = None

# The all-records index of a catalogue: catalog.domain.all_records, which builds on this module, sets it when
# imported. Unset, the records' index is written without facet numbers, and searched by reading matches out.
record_layout: Callable[[Catalog], RecordLayout] | None = None


def _numbered(catalog: Catalog) -> bool:
    """Whether the all-records index lays the records out as the engine does (always, unless a table is empty)."""
    if record_layout is None:
        return False
    index = record_layout(catalog)
    tables = record_tables(catalog)
    sizes = np.cumsum([len(table) for _, table in tables], dtype=np.int64).tolist()
    return list(index.keys) == [key for key, _ in tables] and index.offsets.tolist() == [0, *sizes]


META = "engine.json"


def in_label_order(directory: Path) -> bool:
    """Whether the records' index in ``directory`` holds its documents in label order, segment after segment.

    Within a segment tantivy keeps the order documents were added in; checked here: each segment's first
    document is the one after the previous segment's last (by their ``rank.label``), from rank 0 to the last.
    Only then are equal scores in label order across segments (tantivy breaks ties by segment, then document).
    One segment always is; several are only by chance (tantivy orders them by their random identifiers).
    """
    index = tantivy.Index.open(str(directory))
    searcher = index.searcher()
    total, segments = int(searcher.num_docs), int(searcher.num_segments)

    def rank(segment: int, doc: int) -> int:
        value = searcher.fast_field_values("rank.label", [tantivy.DocAddress(segment, doc)])[0]
        return int(value) if isinstance(value, int) else -1

    firsts = [rank(segment, 0) for segment in range(segments)] if total else []
    if firsts[:1] != [0][: len(firsts)] or any(b <= a for a, b in itertools.pairwise(firsts)):
        return False
    ends = [*firsts[1:], total]
    try:  # each segment's last document, where it is if the segment holds exactly the ranks up to the next's first
        return all(
            rank(segment, end - first - 1) == end - 1
            for segment, (first, end) in enumerate(zip(firsts, ends, strict=True))
        )
    except BaseException as error:  # a document past a segment's end: tantivy panics (PanicException)
        if isinstance(error, KeyboardInterrupt | SystemExit):
            raise
        return False


def build_indexes(
    catalog: Catalog,
    directory: Path,
    data_version: str,
    segment_documents: int | None = None,
    processes: int = 1,
) -> None:
    """Write the projects' and the records' indexes of ``catalog`` into ``directory``, with what they describe.

    The meta's ``ordered`` says that the records' index holds every record's facet codes and ranks, in label order
    in one segment: the all-records search then counts, orders and pages inside tantivy
    (:meth:`SearchEngine.ordered`); else it reads every match out (slower with many matches, same results).
    ``processes`` above one: the records' documents are made by that many forked processes (``svc stamp``).
    """
    numbered = _numbered(catalog)
    tables = record_tables(catalog)
    records: Iterable[str]
    if processes > 1:  # forked first, before any tantivy writer's threads
        records = _RecordsInProcesses(catalog, numbered, processes)
    else:
        records = map(document_json, _record_documents(catalog, numbered))
    # The records first: forked processes are waited for (and ended) as soon as their documents are indexed.
    _write_json(directory / "records", RECORDS, records, segment_documents)
    IdentifierTable(directory / IDENTIFIERS).write(pid for _, table in tables for pid in table.pids)
    projects = (project_document(catalog, p, position) for position, p in enumerate(catalog.projects))
    write_index(directory / "projects", PROJECTS, projects)
    if browse_documents is None:  # set by catalog.domain.browse when imported (it imports this module: not above)
        importlib.import_module("catalog.domain.browse")
    assert browse_documents is not None
    listings = browse_documents(catalog)
    for kind, documents in listings.items():
        write_index(directory / kind, BROWSE, documents)
    meta = {
        "format": FORMAT,
        "browse": {kind: len(documents) for kind, documents in listings.items()},
        "data_version": data_version,
        "projects": [p.key for p in catalog.projects],
        "records": [[key, len(table)] for key, table in tables],
        "ordered": numbered and in_label_order(directory / "records"),
        "files": _checksums(directory),
    }
    (directory / META).write_text(json.dumps(meta, sort_keys=True))


class SearchEngine:
    """The projects' and the records' indexes of one catalogue, and where each project's records lie."""

    def __init__(self, directory: Path, keep: object = None) -> None:
        meta = json.loads((directory / META).read_text())
        self.directory = directory
        self.meta = meta
        self.projects = EngineIndex(directory / "projects", PROJECTS)
        self.records = EngineIndex(directory / "records", RECORDS, IdentifierTable(directory / IDENTIFIERS))
        self.offsets: dict[str, tuple[int, int]] = {}
        position = 0
        for key, size in meta["records"]:
            self.offsets[key] = (position, position + size)
            position += size
        self.record_count = position
        self.listings = {kind: EngineIndex(directory / kind, BROWSE) for kind in meta.get("browse", {})}
        # Facets counted, hits ordered and paged inside tantivy (FORMAT 2 indexes written in label order).
        self.ordered = bool(meta.get("ordered"))
        self._keep = keep  # a temporary directory lives as long as the engine

    def project_scores(self, query: Query) -> dict[int, float] | None:
        """Each matching project's relevance, by its place in the catalogue (None: the query asks for nothing)."""
        found = self.projects.hits(query)
        if found is None:
            return None
        return {int(p): float(s) for p, s in zip(*found, strict=True)}

    def listing_scores(self, kind: str, query: Query) -> dict[int, float] | None:
        """Each matching entry's relevance, by its place in the browse listing ``kind`` (None: asks for nothing)."""
        listing = self.listings.get(kind)
        found = listing.hits(query) if listing is not None else None
        if found is None:
            return None
        return {int(p): float(s) for p, s in zip(*found, strict=True)}

    def record_scores(self, query: Query, key: str | None = None) -> np.ndarray | None:
        """Relevance per record (0 where it does not match; NaN-free), over all records or one project's.

        None when the query asks for nothing.
        """
        low, high = self.offsets.get(key, (0, 0)) if key is not None else (0, self.record_count)
        found = self.records.hits(query, (low, high) if key is not None else None)
        if found is None:
            return None
        positions, scores = found
        kept = (positions >= low) & (positions < high)
        result = np.zeros(high - low, dtype=np.float32)
        # A match's score is never 0 (BM25 and the typo constant are positive); keep it so.
        result[positions[kept] - low] = np.maximum(scores[kept], np.float32(1e-6))
        return result


def _scratch_directory() -> str:
    """Where an index built at start goes: the system's temporary directory, else ``/dev/shm`` (memory).

    svc's image runs with a read-only root where only ``/dev/shm`` is writable (docs/operations.md): there
    :func:`tempfile.gettempdir` finds no directory at all.
    """
    try:
        return tempfile.gettempdir()
    except FileNotFoundError:
        return "/dev/shm"


class ScratchDirectory:
    """A temporary directory removed with this object (or at exit) by the process that made it, never by a fork.

    `svc serve` builds an unstamped catalogue's index in the master, before the workers fork; a worker that exits
    (a restart, a crash) runs the exit handlers it inherited, and a :class:`tempfile.TemporaryDirectory`'s would
    remove the index that the master and every later worker still search.
    """

    def __init__(self, prefix: str) -> None:
        self.path = Path(tempfile.mkdtemp(prefix=prefix, dir=_scratch_directory()))
        weakref.finalize(self, _remove_if_made_here, self.path, os.getpid())


def _remove_if_made_here(path: Path, maker: int) -> None:
    if os.getpid() == maker:
        shutil.rmtree(path, ignore_errors=True)


def build_temporary(catalog: Catalog) -> SearchEngine:
    """The engine of ``catalog`` built into a temporary directory, removed with the engine."""
    scratch = ScratchDirectory("svc-search-")
    build_indexes(catalog, scratch.path, catalog.data_version)
    return SearchEngine(scratch.path, keep=scratch)


def unusable(directory: Path, catalog: Catalog) -> str | None:
    """Why the index in ``directory`` cannot serve ``catalog`` (None: it can): missing, damaged, of other data."""
    try:
        meta = json.loads((directory / META).read_text())
    except FileNotFoundError:
        return f"there is no search index ({directory})"
    except (OSError, ValueError) as error:
        return f"{directory / META} cannot be read: {error}"
    if meta.get("format") != FORMAT:
        return f"the search index has format {meta.get('format')}, this svc reads format {FORMAT}"
    if sorted(meta.get("browse", {})) != sorted(BROWSE_KINDS):
        return "the search index has no index of the browse listings"
    if meta.get("data_version") != catalog.data_version:
        return "the data changed since the search index was written"
    if meta.get("projects") != [p.key for p in catalog.projects] or meta.get("records") != [
        [key, len(table)] for key, table in record_tables(catalog)
    ]:
        return "the search index was written for other projects or records"
    try:
        damaged = _checksums(directory) != meta.get("files")
    except OSError as error:
        return f"the search index cannot be read: {error}"
    if damaged:
        return f"the search index in {directory} is damaged (checksum mismatch)"
    return None


def remove(directory: Path) -> None:
    shutil.rmtree(directory, ignore_errors=True)


# Marks: the words of a text a query matched --------------------------------------------------


def _within_one_edit(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by at most one insertion, deletion, substitution or swap of neighbours."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        differ = [i for i in range(len(a)) if a[i] != b[i]]
        return len(differ) == 1 or (
            len(differ) == 2
            and differ[1] == differ[0] + 1
            and a[differ[0]] == b[differ[1]]
            and a[differ[1]] == b[differ[0]]
        )
    shorter, longer = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(shorter) and shorter[i] == longer[i]:
        i += 1
    return shorter[i:] == longer[i + 1 :]


_WORD = re.compile(r"\w+")


class Marker:
    """Which words of a text a query matched, by the engine's own analysis: the same word, stem, typo or start."""

    def __init__(self, query: Query) -> None:
        self.exact: dict[str, set[str]] = {analysis: set() for analysis in (*LANGUAGES, NAMES)}
        self.near: dict[str, set[str]] = {analysis: set() for analysis in (*LANGUAGES, NAMES)}
        self.starts = tuple({term.truncated for term in query.terms if term.truncated is not None})
        for term in query.terms:
            if term.years is not None:
                continue
            for analysis in self.exact:
                tokens = analysed(analysis, term.text)
                self.exact[analysis].update(tokens)
                if not term.phrase and len(tokens) == 1 and len(tokens[0]) >= FUZZY_MIN_LETTERS:
                    self.near[analysis].add(tokens[0])
        self.active = any(self.exact.values())
        self._seen: dict[str, bool] = {}

    def is_match(self, word: str) -> bool:
        known = self._seen.get(word)
        if known is None:
            known = self._seen[word] = any(
                token in exact
                or any(_within_one_edit(token, near) for near in self.near[analysis])
                or token.startswith(self.starts)
                for analysis, exact in self.exact.items()
                for token in analysed(analysis, word)
            )
        return known

    def parts(self, text: str) -> tuple[tuple[str, bool], ...]:
        """``text`` cut into (part, is_match) pieces, each matched word a piece of its own."""
        if not self.active:
            return ((text, False),) if text else ()
        pieces: list[tuple[str, bool]] = []
        last = 0
        for found in _WORD.finditer(text):
            if self.is_match(found.group()):
                if found.start() > last:
                    pieces.append((text[last : found.start()], False))
                pieces.append((found.group(), True))
                last = found.end()
        if last < len(text):
            pieces.append((text[last:], False))
        return tuple(pieces)

    def snippet(self, texts: Sequence[str], length: int = 220) -> tuple[tuple[str, bool], ...]:
        """The first text with a matched word, cut to about ``length`` characters around the first one."""
        for text in texts:
            parts = self.parts(text)
            if not any(hit for _, hit in parts):
                continue
            if len(text) <= length:
                return parts
            first = next(found.start() for found in _WORD.finditer(text) if self.is_match(found.group()))
            start = max(0, text.rfind(" ", 0, max(0, first - length // 3)) + 1)
            end = text.find(" ", min(len(text), start + length))
            window = text[start : end if end != -1 else len(text)]
            return (("…", False),) * bool(start) + self.parts(window) + (("…", False),) * (end != -1)
        return ()


def marker(text: str) -> Marker:
    return Marker(parse(text))


Highlight = Callable[[str], tuple[tuple[str, bool], ...]]


# Where the index lives: stamped beside the snapshot, else built at start-up -----------------

INDEX_LINK = Path(".svc") / "search"  # a symbolic link to the directory of the current index, replaced atomically


def index_directory(data_dir: str | os.PathLike[str]) -> Path:
    return Path(data_dir) / INDEX_LINK


def _checksums(directory: Path) -> dict[str, str]:
    """CRC-32 of every file of every index (projects, records, browse listings), by path: what a stamped index is
    checked against."""
    sums = {}
    for part in sorted(p.name for p in directory.iterdir() if p.is_dir()):
        for path in sorted((directory / part).iterdir()):
            if path.is_file() and not path.name.startswith("."):  # tantivy's lock files come and go
                crc, chunk = 0, bytearray(1 << 20)
                with path.open("rb") as file:
                    while read := file.readinto(chunk):
                        crc = zlib.crc32(memoryview(chunk)[:read], crc)
                sums[f"{part}/{path.name}"] = f"{crc:08x}"
    return sums


def write_stamped(catalog: Catalog, data_dir: str | os.PathLike[str], processes: int = 1) -> Path:
    """Write the search index of ``catalog`` beside its snapshot (``.svc/search``), replacing the old one atomically.

    The index is written into a new directory, checksummed, and the link
    ``.svc/search`` is then replaced by one to it in one rename: a server
    starting meanwhile opens the old index or the new one, never half of one.
    An index that already matches the data (a stamp of unchanged data) is kept. ``processes``: as
    :func:`build_indexes`.
    """
    root = Path(data_dir)
    link = index_directory(root)
    if link.is_symlink() and unusable(link, catalog) is None:  # unchanged data: the index stays as it is
        return link.resolve()
    link.parent.mkdir(parents=True, exist_ok=True)
    target = Path(tempfile.mkdtemp(prefix="search-", dir=link.parent))
    try:
        build_indexes(catalog, target, catalog.data_version, processes=processes)
        os.chmod(target, 0o755)
        temporary_link = link.parent / f".{target.name}.link"
        os.symlink(target.name, temporary_link)
        if link.is_dir() and not link.is_symlink():  # a copy of the data that made the link a directory
            os.replace(link, Path(tempfile.mkdtemp(prefix="search-", dir=link.parent)))
        os.replace(temporary_link, link)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    for old in link.parent.glob("search-*"):  # earlier indexes: a server that has them open keeps its files
        if old.name != target.name and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
    return target


def open_engine(catalog: Catalog) -> SearchEngine:
    """The catalogue's stamped search index when it matches the data, else one built now (with a WARNING)."""
    directory = index_directory(catalog.data_dir)
    reason = unusable(directory, catalog)
    if reason is None:
        return SearchEngine(directory.resolve())
    logger.warning(
        "search index not used: %s; building one at start-up (slow at scale); run `svc stamp %s` to write it",
        reason,
        catalog.data_dir,
    )
    return build_temporary(catalog)


def search_engine(catalog: Catalog) -> SearchEngine:
    """The search engine of the served catalogue, opened (or built) once per catalogue, before workers fork."""
    return memo_for(catalog).get("search-engine", lambda: open_engine(catalog))
