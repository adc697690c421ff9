"""DCAT-AP 3 / DCAT-AP CH (eCH-0200) descriptions of the catalogue and its entities, built with rdflib.

The catalogue document (``/catalogue/dcat*``) is one ``dcat:Catalog`` with the
OAI-PMH endpoint and the JSON API as ``dcat:DataService``, every project as a
``dcat:Dataset`` (records are not datasets: a catalogue may hold millions) and
clusters as ``dcat:DatasetSeries``. Entity pages reuse the same builders for
their Turtle and RDF/XML exports, so one mapping serves both. The metadata
decisions (creators, licences, access rights, publications, temporal coverage)
are the ones OAI-PMH makes, read from :mod:`catalog.formats.item_metadata`.
See docs/linked-data.md for the mapping table and the vocabularies.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import DCAT, DCTERMS, FOAF, OWL, RDF, RDFS, SKOS, XSD
from rdflib.plugins.serializers import jsonld as jsonld_serializer
from rdflib.term import Node

from catalog.domain import dates
from catalog.domain.disciplines import facet_label, facet_value
from catalog.domain.identifiers import ItemIdentity, project_identity
from catalog.domain.ledger import iso_time
from catalog.domain.model import NO_DATESTAMP, Catalog, Cluster, Collection, Organization, Person, Project, RecordTable
from catalog.domain.paging import page_count
from catalog.domain.roles import creator_attributions
from catalog.domain.values import is_http_url, stored_list
from catalog.formats import exports, item_metadata, links, vocabularies, xmltext
from catalog.formats.item_metadata import ItemMetadata

# rdflib's JSON-LD writer, unannotated there: a graph and a context in, a JSON-LD document out.
_from_rdf: Callable[..., dict[str, Any]] = jsonld_serializer.from_rdf

ADMS = Namespace("http://www.w3.org/ns/adms#")
VCARD = Namespace("http://www.w3.org/2006/vcard/ns#")
HYDRA = Namespace("http://www.w3.org/ns/hydra/core#")
DCATAP = Namespace("http://data.europa.eu/r5r/")
EU = "http://publications.europa.eu/resource/authority/"
EU_LANGUAGE = Namespace(EU + "language/")
EU_FILE_TYPE = Namespace(EU + "file-type/")
EU_LICENCE = Namespace(EU + "licence/")
EU_ACCESS_RIGHT = Namespace(EU + "access-right/")
EU_THEME = Namespace(EU + "data-theme/")
IANA_MEDIA = "https://www.iana.org/assignments/media-types/"
DCAT3 = Namespace(str(DCAT))  # terms rdflib's closed DCAT namespace lacks (DCAT 3)
DATASET_SERIES = DCAT3.DatasetSeries
PROV = Namespace("http://www.w3.org/ns/prov#")
ORG = Namespace("http://www.w3.org/ns/org#")

# Where a dataset of a research-data archive sits among the EU's data themes.
THEME = EU_THEME["EDUC"]
THEME_LABEL = "Education, culture and sport"
STABLE = URIRef(EU + "planned-availability/STABLE")  # the distributions are stable URLs
ACADEMIA = URIRef("http://purl.org/adms/publishertype/Academia-ScientificOrganisation")  # the publisher's type
# ISO 19115 role code (the DCAT-AP role examples use this code list).
FUNDER_ROLE = URIRef("http://registry.it.csiro.au/def/isotc211/CI_RoleCode/funder")
INTERFACE_LANGUAGES = ("ENG", "DEU", "FRA", "ITA")
# Beyond this many datasets a catalogue document is paged (hydra:PartialCollectionView). A page of
# 200 (about 3 MB of RDF/XML, two seconds to render) stays under the page cache's limit per entry,
# so it is rendered once per data version rather than per request.
DATASETS_PER_PAGE = 200

FORMATS = {"turtle": "text/turtle", "xml": "application/rdf+xml", "json-ld": "application/ld+json"}
PREFIXES = {
    "dcat": DCAT,
    "dct": DCTERMS,
    "foaf": FOAF,
    "vcard": VCARD,
    "adms": ADMS,
    "skos": SKOS,
    "hydra": HYDRA,
    "owl": OWL,
    "rdfs": RDFS,
    "xsd": XSD,
    "dcatap": DCATAP,
    "prov": PROV,
    "org": ORG,
}

_ACCESS_RIGHTS = {
    "http://purl.org/coar/access_right/c_abf2": ("PUBLIC", "public"),
    "http://purl.org/coar/access_right/c_16ec": ("RESTRICTED", "restricted"),
    "http://purl.org/coar/access_right/c_f1cf": ("NON_PUBLIC", "non-public"),
    "http://purl.org/coar/access_right/c_14cb": ("NON_PUBLIC", "non-public"),
}
_EU_CC = {"BY": "BY", "BY-SA": "BYSA", "BY-NC": "BYNC", "BY-NC-SA": "BYNCSA", "BY-ND": "BYND", "BY-NC-ND": "BYNCND"}
_CC_SPDX = re.compile(r"CC-(BY(?:-NC)?(?:-SA|-ND)?)-([34])\.0")
_DATE = re.compile(r"-?[0-9]{4,}(?:-[0-9]{2}-[0-9]{2})?")


@dataclass(frozen=True, slots=True)
class Site:
    """What the catalogue says about itself (from the configuration)."""

    base_url: str  # scheme://host of the catalogue's URLs
    name: str  # the repository's name
    oai_url: str  # the OAI-PMH endpoint
    email: str  # the contact address
    metadata_license: str  # the licence of the metadata (a URL)


@dataclass(frozen=True, slots=True)
class Distribution:
    """One way to reach a dataset: its file name in the URL fragment, title, URL and formats."""

    key: str
    title: str
    media_type: str
    file_type: str  # EU file-type code
    metadata: bool  # the document is metadata (under the metadata licence), not access to the data
    description: str


LANDING_PAGE = Distribution(
    "landing-page", "Landing page", "text/html", "HTML", False, "The project's page, with links to its data."
)
JSON_API = Distribution(
    "json", "JSON (API)", "application/json", "JSON", True, "The project's metadata from the JSON API."
)
DATACITE_XML = Distribution(
    "datacite",
    "DataCite XML",
    "application/vnd.datacite.datacite+xml",
    "XML",
    True,
    "The project's metadata as DataCite XML (kernel 4.6).",
)
DISTRIBUTIONS = (LANDING_PAGE, JSON_API, DATACITE_XML)


def catalogue_uri(base_url: str) -> URIRef:
    return URIRef(base_url + links.CATALOGUE_DCAT_PATH)


def _ref(base_url: str, fragment: str) -> URIRef:
    """A node described inside the catalogue document (services, concept schemes, concepts)."""
    return URIRef(f"{base_url}{links.CATALOGUE_DCAT_PATH}#{fragment}")


class DcatGraph(Graph):
    """A graph that gives its triples back in the order they were added, blank nodes numbered likewise.

    Both make every rendering of the same data the same bytes, in every process, so that
    workers and replicas agree on entity tags and harvesters see no false changes:
    rdflib names blank nodes at random, and its default store hands out "all triples"
    from a set, whose order follows the process's string-hash seed (``PYTHONHASHSEED``).
    The ``SimpleMemory`` store keeps insertion order at every level (nested dicts), and
    the builders add triples in the data's order.
    """

    def __init__(self) -> None:
        super().__init__(store="SimpleMemory", bind_namespaces="core")
        self._blank_nodes = 0
        self._described: set[URIRef] = set()

    def first_time(self, node: URIRef) -> bool:
        """True the first time a shared node (an agent, a contact) is asked for: describe it once."""
        if node in self._described:
            return False
        self._described.add(node)
        return True

    def add(self, triple: tuple[Node, Node, Node]) -> DcatGraph:
        """Every triple goes in as all three formats can write it: IRIs of RFC 3986 characters, text
        without the control characters XML cannot carry (the data holds a few)."""
        subject, predicate, value = triple
        if isinstance(subject, URIRef):
            subject = URIRef(xmltext.to_uri(subject))
        if isinstance(value, URIRef):
            value = URIRef(xmltext.to_uri(value))
        elif isinstance(value, Literal) and value.datatype is None:
            text = str(value)
            if xmltext.clean(text) != text:
                value = Literal(xmltext.clean(text), lang=value.language)
        super().add((subject, predicate, value))
        return self

    def blank(self) -> BNode:
        self._blank_nodes += 1
        return BNode(f"n{self._blank_nodes}")


def new_graph() -> DcatGraph:
    graph = DcatGraph()
    for prefix, namespace in PREFIXES.items():
        graph.bind(prefix, namespace)
    return graph


def _rdf_xml(graph: Graph) -> bytes:
    """RDF/XML. rdflib names the namespaces it lacks a prefix for (ns1, ns2…) in the order of a
    set of predicates; naming them first, in the graph's order, keeps the names the same."""
    for predicate in graph.predicates(unique=True):
        graph.namespace_manager.compute_qname_strict(str(predicate))
    return graph.serialize(format="xml", encoding="utf-8")


def _json_ld(graph: Graph) -> bytes:
    """JSON-LD with its top-level nodes sorted by ``@id``: rdflib lists them in a set's order."""
    context = {prefix: str(namespace) for prefix, namespace in PREFIXES.items()}
    document = _from_rdf(graph, context, auto_compact=True)
    if isinstance(document.get("@graph"), list):
        document["@graph"].sort(key=lambda node: node["@id"])
    return json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False).encode()


def serialise(graph: Graph, media_type: str) -> bytes:
    """The graph in one of :data:`FORMATS` (by media type), UTF-8: for a :class:`DcatGraph`, the
    same bytes in every process."""
    rdflib_format = next(name for name, media in FORMATS.items() if media == media_type)
    if rdflib_format == "json-ld":
        return _json_ld(graph)
    if rdflib_format == "xml":
        return _rdf_xml(graph)
    return graph.serialize(format=rdflib_format, encoding="utf-8")


# --- small value builders ---------------------------------------------------------------------


def _text(value: str, lang: str | None) -> Literal:
    return Literal(value, lang=lang) if lang else Literal(value)


def _date(value: str | None) -> Literal | None:
    """An xsd:date (or xsd:dateTime) literal; None for a year alone (DCAT-AP CH needs a date)."""
    if not value:
        return None
    if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        return Literal(value, datatype=XSD.date)
    if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T.*", value):
        return Literal(value, datatype=XSD.dateTime)
    return None


def _time(stamp: int | None) -> Literal | None:
    if stamp is None or stamp == NO_DATESTAMP:
        return None
    return Literal(iso_time(stamp), datatype=XSD.dateTime)


def _period_bound(year: str) -> Literal | None:
    """One end of a coverage span: a year as xsd:gYear, a date as xsd:date; ``..`` (open) as None."""
    if not _DATE.fullmatch(year):
        return None
    return Literal(year, datatype=XSD.date if "-" in year.lstrip("-") else XSD.gYear)


def eu_language(code: str) -> URIRef | None:
    """The EU language authority's URI of a BCP 47 tag (its ISO 639-3 code), None for private-use or unknown."""
    alpha3 = vocabularies.language_alpha3(code)
    return EU_LANGUAGE[alpha3.upper()] if alpha3 else None


def eu_licence(spdx: str | None) -> URIRef | None:
    """The EU licence authority's URI of an SPDX Creative Commons licence (versions 3.0 and 4.0, CC0)."""
    if spdx == "CC0-1.0":
        return EU_LICENCE["CC0"]
    match = _CC_SPDX.fullmatch(spdx or "")
    return EU_LICENCE[f"CC_{_EU_CC[match.group(1)]}_{match.group(2)}_0"] if match else None


def _media_type(graph: DcatGraph, media_type: str) -> URIRef:
    node = URIRef(IANA_MEDIA + media_type)
    graph.add((node, RDF.type, DCTERMS.MediaType))
    graph.add((node, RDF.type, DCTERMS.MediaTypeOrExtent))  # its superclass, which DCAT-AP CH checks
    return node


def _file_type(graph: DcatGraph, code: str) -> URIRef:
    node = EU_FILE_TYPE[code]
    graph.add((node, RDF.type, DCTERMS.MediaTypeOrExtent))
    return node


def _document(graph: DcatGraph, url: str) -> URIRef:
    node = URIRef(url)
    graph.add((node, RDF.type, FOAF.Document))
    return node


def _licence_document(graph: DcatGraph, url: str, spdx: str | None = None, title: str | None = None) -> URIRef:
    """A licence as a ``dct:LicenseDocument``: the EU authority's URI when there is one, else the licence's URL."""
    eu = eu_licence(spdx or vocabularies.spdx_id(url))
    node = eu or URIRef(url)
    graph.add((node, RDF.type, DCTERMS.LicenseDocument))
    if eu is not None:
        graph.add((node, RDFS.seeAlso, URIRef(url)))
    if title:
        graph.add((node, DCTERMS.title, Literal(title)))
    return node


# --- agents ------------------------------------------------------------------------------------


def _publisher(graph: DcatGraph, site: Site) -> URIRef:
    """The repository as publisher: its ROR id when known, else the About page."""
    known = vocabularies.known_organisation(item_metadata.PUBLISHER)
    node = URIRef(known.ror) if known and known.ror else URIRef(site.base_url + links.about_path())
    if not graph.first_time(node):
        return node
    graph.add((node, RDF.type, FOAF.Organization))
    graph.add((node, RDF.type, FOAF.Agent))
    graph.add((node, FOAF.name, Literal(item_metadata.PUBLISHER)))
    graph.add((node, DCTERMS.type, ACADEMIA))
    graph.add((ACADEMIA, RDF.type, SKOS.Concept))
    graph.add((ACADEMIA, SKOS.prefLabel, Literal("Academia/Scientific organisation", lang="en")))
    graph.add((node, FOAF.homepage, _document(graph, site.base_url + "/")))
    return node


def _identifier(graph: DcatGraph, subject: Node, value: str, scheme: str) -> None:
    node = graph.blank()
    graph.add((subject, ADMS.identifier, node))
    graph.add((node, RDF.type, ADMS.Identifier))
    graph.add((node, SKOS.notation, Literal(value)))
    graph.add((node, ADMS.schemaAgency, Literal(scheme)))


def person_node(graph: DcatGraph, catalog: Catalog, person: Person, base_url: str) -> URIRef:
    node = URIRef(base_url + links.person_path(person.id))
    if not graph.first_time(node):
        return node
    agent = item_metadata.person_agent(person, catalog)
    graph.add((node, RDF.type, FOAF.Person))
    graph.add((node, RDF.type, FOAF.Agent))
    graph.add((node, FOAF.name, Literal(person.display_name or person.id)))
    if agent.given_name:
        graph.add((node, FOAF.givenName, Literal(agent.given_name)))
    if agent.family_name:
        graph.add((node, FOAF.familyName, Literal(agent.family_name)))
    for identifier in agent.identifiers:
        _identifier(graph, node, identifier.value, identifier.scheme)
        if is_http_url(identifier.value):
            graph.add((node, OWL.sameAs, URIRef(identifier.value)))
    return node


def organization_node(graph: DcatGraph, organization: Organization, base_url: str) -> URIRef:
    node = URIRef(base_url + links.organization_path(organization.id))
    if not graph.first_time(node):
        return node
    agent = item_metadata.organization_agent(organization)
    graph.add((node, RDF.type, FOAF.Organization))
    graph.add((node, RDF.type, FOAF.Agent))
    graph.add((node, FOAF.name, Literal(organization.display_name or organization.id)))
    for identifier in agent.identifiers:
        _identifier(graph, node, identifier.value, identifier.scheme)
        if is_http_url(identifier.value):
            graph.add((node, OWL.sameAs, URIRef(identifier.value)))
    return node


def _agent_node(graph: DcatGraph, catalog: Catalog, contributor_id: str, base_url: str) -> URIRef | None:
    if person := catalog.persons.get(contributor_id):
        return person_node(graph, catalog, person, base_url)
    if organization := catalog.organizations.get(contributor_id):
        return organization_node(graph, organization, base_url)
    return None


def _contact_point(graph: DcatGraph, catalog: Catalog | None, project: Project | None, site: Site) -> URIRef:
    """A vCard of the project's first contact that has an e-mail address, else of the repository.

    Each vCard is named (``<person page>#vcard``, ``…/catalogue/dcat#contact``), so the dataset and
    its distributions share one rather than repeating it.
    """
    for contact_id in project.contact_point_ids if project and catalog else ():
        contact = catalog.contributor(contact_id) if catalog else None
        email = item_metadata.text_value(contact.get("email")) if contact is not None else None
        if contact is not None and email and "@" in email:
            person = isinstance(contact, Person)
            page = links.person_path(contact.id) if person else links.organization_path(contact.id)
            node = URIRef(f"{site.base_url}{page}#vcard")
            graph.add((node, RDF.type, VCARD.Individual if person else VCARD.Organization))
            graph.add((node, RDF.type, VCARD.Kind))
            graph.add((node, VCARD.fn, Literal(contact.display_name)))
            graph.add((node, VCARD.hasEmail, URIRef("mailto:" + email.strip())))
            return node
    node = _ref(site.base_url, "contact")
    graph.add((node, RDF.type, VCARD.Organization))
    graph.add((node, RDF.type, VCARD.Kind))
    graph.add((node, VCARD.fn, Literal(item_metadata.PUBLISHER)))
    graph.add((node, VCARD.hasEmail, URIRef("mailto:" + site.email)))
    graph.add((node, VCARD.hasURL, URIRef(site.base_url + "/")))
    return node


# --- concepts ------------------------------------------------------------------------------------


def _theme_scheme(graph: DcatGraph) -> URIRef:
    scheme = URIRef(EU + "data-theme")
    graph.add((scheme, RDF.type, SKOS.ConceptScheme))
    graph.add((scheme, DCTERMS.title, Literal("Data theme", lang="en")))
    graph.add((THEME, RDF.type, SKOS.Concept))
    graph.add((THEME, SKOS.prefLabel, Literal(THEME_LABEL, lang="en")))
    graph.add((THEME, SKOS.inScheme, scheme))
    return scheme


def _discipline_scheme(graph: DcatGraph, base_url: str) -> URIRef:
    scheme = _ref(base_url, "disciplines")
    graph.add((scheme, RDF.type, SKOS.ConceptScheme))
    graph.add((scheme, DCTERMS.title, Literal("Disciplines of the projects (SNSF discipline list)", lang="en")))
    return scheme


def _disciplines(graph: DcatGraph, project: Project, base_url: str) -> list[URIRef]:
    """Each discipline as a concept: its own URL (UNESCO), else the SNSF code in the catalogue's scheme."""
    concepts = []
    for discipline in stored_list(project.get("disciplines")):
        url = discipline.get("url") if isinstance(discipline, Mapping) else None
        if is_http_url(url):
            label = item_metadata.text_value(discipline.get("text")) or url
            concept = URIRef(url.strip())
        else:
            text = item_metadata.text_value(
                discipline.get("text") if isinstance(discipline, Mapping) else discipline
            ) or next((t.value for t in item_metadata.texts(discipline)), None)
            if not text:
                continue
            value = facet_value(text)
            label = facet_label(value)
            concept = _ref(base_url, "discipline-" + re.sub(r"[^A-Za-z0-9_-]", "_", value))
        graph.add((concept, RDF.type, SKOS.Concept))
        graph.add((concept, SKOS.prefLabel, Literal(label)))
        graph.add((concept, SKOS.inScheme, _discipline_scheme(graph, base_url)))
        concepts.append(concept)
    return concepts


# --- datasets ------------------------------------------------------------------------------------


def _issued_and_modified(
    catalog: Catalog, project: Project, item: ItemMetadata
) -> tuple[Literal | None, Literal | None]:
    """From the change ledger (first seen, last changed); without one the Issued date of OAI, if a whole date."""
    view = catalog.ledger
    times = view.projects.get(project.key) if view is not None else None
    if times is not None:
        return _time(times.first_seen), _time(times.changed)
    return _date(item.issued), None


def _temporal(graph: DcatGraph, dataset: URIRef, item: ItemMetadata) -> None:
    """Each coverage as a ``dct:PeriodOfTime``: start and end where known, the period's name as its label."""
    for coverage in item.coverage:
        node = graph.blank()
        graph.add((dataset, DCTERMS.temporal, node))
        graph.add((node, RDF.type, DCTERMS.PeriodOfTime))
        if coverage.name:
            graph.add((node, SKOS.prefLabel, Literal(coverage.name)))
        if coverage.date:
            start, _, end = coverage.date.partition("/")
            for prop, bound in ((DCAT.startDate, start), (DCAT.endDate, end or start)):
                literal = _period_bound(bound)
                if literal is not None:
                    graph.add((node, prop, literal))


def _spatial(graph: DcatGraph, dataset: URIRef, project: Project) -> None:
    for place in stored_list(project.get("spatialCoverage")):
        url = place.get("url") if isinstance(place, Mapping) else None
        node: URIRef | BNode = URIRef(url.strip()) if is_http_url(url) else graph.blank()
        label = item_metadata.text_value(place.get("text")) if isinstance(place, Mapping) else None
        label = label or next((t.value for t in item_metadata.texts(place)), None)
        if label is None and not isinstance(node, URIRef):
            continue
        graph.add((dataset, DCTERMS.spatial, node))
        graph.add((node, RDF.type, DCTERMS.Location))
        if label:
            graph.add((node, SKOS.prefLabel, Literal(label)))


def _related(graph: DcatGraph, dataset: URIRef, item: ItemMetadata) -> None:
    """Publications (``IsCitedBy``) as ``dct:isReferencedBy``, the groups a project is part of as ``dct:isPartOf``."""
    for related in item.related:
        url = related.value if is_http_url(related.value) else None
        if related.identifier_type == "DOI":
            url = "https://doi.org/" + related.value
        if url is None:
            continue
        node = URIRef(url)
        graph.add((node, RDF.type, RDFS.Resource))
        if related.relation == "IsCitedBy":
            graph.add((dataset, DCTERMS.isReferencedBy, node))
        else:
            graph.add((dataset, DCTERMS.relation, node))


def _funding(graph: DcatGraph, dataset: URIRef, item: ItemMetadata) -> None:
    """Each funder as a qualified attribution with the role "funder"; the grant's title and number as its label.

    DCAT-AP's ``dcat:qualifiedRelation`` relates resources, not agents, so funders are attributions.
    """
    for funding in item.funding:
        attribution = graph.blank()
        graph.add((dataset, DCAT3.qualifiedAttribution, attribution))
        graph.add((attribution, RDF.type, PROV.Attribution))
        graph.add((attribution, DCAT3.hadRole, FUNDER_ROLE))
        graph.add((FUNDER_ROLE, RDF.type, DCAT.Role))
        funder: URIRef | BNode = URIRef(funding.identifier) if is_http_url(funding.identifier) else graph.blank()
        graph.add((attribution, PROV.agent, funder))
        graph.add((funder, RDF.type, FOAF.Agent))
        graph.add((funder, FOAF.name, Literal(funding.funder)))
        if funding.award_uri:
            graph.add((attribution, RDFS.seeAlso, URIRef(funding.award_uri)))
        award = " ".join(part for part in (funding.award_title, funding.award_number) if part)
        if award:
            graph.add((attribution, RDFS.label, Literal(award)))


def _access_rights(graph: DcatGraph, dataset: URIRef, item: ItemMetadata) -> None:
    if item.access is None:
        return
    code, label = _ACCESS_RIGHTS[item.access.coar_uri]
    node = EU_ACCESS_RIGHT[code]
    graph.add((dataset, DCTERMS.accessRights, node))
    graph.add((node, RDF.type, DCTERMS.RightsStatement))
    graph.add((node, SKOS.prefLabel, Literal(label, lang="en")))


def _data_rights(graph: DcatGraph, item: ItemMetadata) -> tuple[URIRef | None, BNode | None]:
    """The data's licence when it has exactly one; else a rights statement (several, or none stated)."""
    with_url = [rights for rights in item.rights if rights.uri or eu_licence(rights.spdx)]
    if len(item.rights) == 1 and with_url:
        rights = with_url[0]
        url = rights.uri or str(eu_licence(rights.spdx))
        return _licence_document(graph, url, rights.spdx, rights.text), None
    statement = graph.blank()
    graph.add((statement, RDF.type, DCTERMS.RightsStatement))
    text = "; ".join(rights.text for rights in item.rights) or "Terms of use: see the landing page"
    graph.add((statement, RDFS.label, Literal(text)))
    return None, statement


def dataset(graph: DcatGraph, catalog: Catalog, project: Project, site: Site, adms_identifiers: bool = False) -> URIRef:
    """One project as a ``dcat:Dataset`` whose subject is its landing page.

    DCAT-AP CH forbids ``adms:identifier`` on a dataset, so the catalogue leaves the ARK/DOI and the
    shortcode as ``adms:Identifier`` to the project's own description (``adms_identifiers``).
    """
    base_url = site.base_url
    page_url = base_url + links.project_path(project.shortcode)
    node = URIRef(page_url)
    item = item_metadata.project_metadata(catalog, project, base_url, "")
    graph.add((node, RDF.type, DCAT.Dataset))
    _titles_and_descriptions(graph, node, item)
    identity = project_identity(catalog, project, page_url)
    graph.add((node, DCTERMS.identifier, Literal(identity.identifier)))
    if adms_identifiers:
        _adms_identifiers(graph, node, identity, item)
    _keywords_and_themes(graph, node, project, item, base_url)
    _languages(graph, node, item)
    _temporal(graph, node, item)
    _spatial(graph, node, project)
    graph.add((node, DCAT.contactPoint, _contact_point(graph, catalog, project, site)))
    graph.add((node, DCTERMS.publisher, _publisher(graph, site)))
    _creators_and_contributors(graph, node, catalog, project, base_url)
    issued, modified = _issued_and_modified(catalog, project, item)
    _add_if(graph, node, DCTERMS.issued, issued)
    _add_if(graph, node, DCTERMS.modified, modified)
    graph.add((node, DCAT.landingPage, _document(graph, page_url)))
    _access_rights(graph, node, item)
    _related(graph, node, item)
    _funding(graph, node, item)
    for cluster in catalog.clusters_by_project.get(project.key, ()):
        graph.add((node, DCAT3.inSeries, URIRef(base_url + links.cluster_path(cluster.id))))
    licence, statement = _data_rights(graph, item)
    # DCAT-AP CH needs each distribution's issue date: without one of the dataset, the OAI datestamp.
    published = issued or _time(project.datestamp)
    for distribution in DISTRIBUTIONS:
        graph.add(
            (
                node,
                DCAT.distribution,
                _distribution(graph, catalog, project, site, distribution, licence, statement, published),
            )
        )
    return node


def _add_if(graph: DcatGraph, node: URIRef, predicate: URIRef, value: Node | None) -> None:
    if value is not None:
        graph.add((node, predicate, value))


def _titles_and_descriptions(graph: DcatGraph, node: URIRef, item: ItemMetadata) -> None:
    for title in item.titles:
        graph.add((node, DCTERMS.alternative if title.kind else DCTERMS.title, _text(title.value, title.lang)))
    descriptions = item.descriptions or [item_metadata.Text(item.titles[0].value)]
    for description in descriptions:
        graph.add((node, DCTERMS.description, _text(description.value, description.lang)))


def _adms_identifiers(graph: DcatGraph, node: URIRef, identity: ItemIdentity, item: ItemMetadata) -> None:
    if identity.identifier_type in ("ARK", "DOI"):
        _identifier(graph, node, identity.identifier, identity.identifier_type)
    for value, scheme in item.alternate_identifiers:
        _identifier(graph, node, value, scheme)


def _keywords_and_themes(graph: DcatGraph, node: URIRef, project: Project, item: ItemMetadata, base_url: str) -> None:
    for subject in item.subjects:
        if subject.value_uri is None:
            graph.add((node, DCAT.keyword, _text(subject.value, subject.lang)))
    graph.add((node, DCAT.theme, THEME))
    for concept in _disciplines(graph, project, base_url):
        graph.add((node, DCAT.theme, concept))


def _languages(graph: DcatGraph, node: URIRef, item: ItemMetadata) -> None:
    for code in item.languages:
        language = eu_language(code)
        if language is not None:
            graph.add((node, DCTERMS.language, language))
            graph.add((language, RDF.type, DCTERMS.LinguisticSystem))


def _creators_and_contributors(
    graph: DcatGraph, node: URIRef, catalog: Catalog, project: Project, base_url: str
) -> None:
    creator_ids = {attribution.contributor_id for attribution in creator_attributions(project)}
    for contributor_id in dict.fromkeys(a.contributor_id for a in project.attributions):
        agent = _agent_node(graph, catalog, contributor_id, base_url)
        if agent is not None:
            graph.add((node, DCTERMS.creator if contributor_id in creator_ids else DCTERMS.contributor, agent))


def _distribution(
    graph: DcatGraph,
    catalog: Catalog,
    project: Project,
    site: Site,
    distribution: Distribution,
    licence: URIRef | None,
    statement: BNode | None,
    issued: Literal | None,
) -> URIRef:
    base_url = site.base_url
    page_path = links.project_path(project.shortcode)
    url = {
        LANDING_PAGE: base_url + page_path,
        JSON_API: base_url + links.project_json_path(project.shortcode),
        DATACITE_XML: base_url + exports.export_path(page_path, exports.DATACITE, ""),
    }[distribution]
    node = URIRef(f"{base_url}{page_path}#distribution-{distribution.key}")
    graph.add((node, RDF.type, DCAT.Distribution))
    graph.add((node, DCTERMS.title, Literal(distribution.title, lang="en")))
    graph.add((node, DCTERMS.description, Literal(distribution.description, lang="en")))
    graph.add((node, DCATAP.availability, STABLE))
    graph.add((STABLE, RDF.type, SKOS.Concept))
    graph.add((STABLE, SKOS.prefLabel, Literal("stable", lang="en")))
    graph.add((node, DCAT.accessURL, URIRef(url)))
    graph.add((URIRef(url), RDF.type, RDFS.Resource))
    if distribution is not LANDING_PAGE:
        graph.add((node, DCAT.downloadURL, URIRef(url)))
    if distribution is JSON_API:
        graph.add((node, DCAT.accessService, _ref(base_url, "json-api")))
    graph.add((node, DCTERMS.format, _file_type(graph, distribution.file_type)))
    graph.add((node, DCAT.mediaType, _media_type(graph, distribution.media_type)))
    if distribution.metadata:
        graph.add((node, DCTERMS.license, _licence_document(graph, site.metadata_license)))
    elif licence is not None:
        graph.add((node, DCTERMS.license, licence))
    elif statement is not None:
        graph.add((node, DCTERMS.rights, statement))
    graph.add((node, DCTERMS.publisher, _publisher(graph, site)))
    graph.add((node, DCAT.contactPoint, _contact_point(graph, catalog, project, site)))
    if issued is not None:
        graph.add((node, DCTERMS.issued, issued))
    return node


def dataset_series(graph: DcatGraph, cluster: Cluster, members: Iterable[Project], site: Site) -> URIRef:
    """A cluster as a ``dcat:DatasetSeries``; its projects point to it with ``dcat:inSeries``."""
    node = URIRef(site.base_url + links.cluster_path(cluster.id))
    graph.add((node, RDF.type, DATASET_SERIES))
    graph.add((node, DCTERMS.title, Literal(cluster.name or cluster.id)))
    descriptions = item_metadata.texts(cluster.get("description"))
    for description in descriptions or [item_metadata.Text(cluster.name or cluster.id)]:
        graph.add((node, DCTERMS.description, _text(description.value, description.lang)))
    if is_http_url(cluster.get("pid")):
        graph.add((node, DCTERMS.identifier, Literal(cluster.get("pid"))))
    graph.add((node, DCTERMS.publisher, _publisher(graph, site)))
    graph.add((node, DCAT.contactPoint, _contact_point(graph, None, None, site)))
    for project in members:
        graph.add((node, DCTERMS.hasPart, URIRef(site.base_url + links.project_path(project.shortcode))))
    return node


# --- the catalogue ------------------------------------------------------------------------------


def _data_service(
    graph: DcatGraph, site: Site, fragment: str, title: str, endpoint: str, description: str, standard: str
) -> URIRef:
    node = _ref(site.base_url, fragment)
    graph.add((node, DCAT.theme, THEME))
    for keyword in ("metadata", "research data", title.split()[0]):
        graph.add((node, DCAT.keyword, Literal(keyword, lang="en")))
    graph.add((node, DCTERMS.conformsTo, URIRef(standard)))
    graph.add((URIRef(standard), RDF.type, DCTERMS.Standard))
    graph.add((node, RDF.type, DCAT.DataService))
    graph.add((node, DCTERMS.title, Literal(title, lang="en")))
    graph.add((node, DCAT.endpointURL, URIRef(endpoint)))
    graph.add((URIRef(endpoint), RDF.type, RDFS.Resource))
    graph.add((node, DCAT.endpointDescription, URIRef(description)))
    graph.add((URIRef(description), RDF.type, RDFS.Resource))
    graph.add((node, DCTERMS.publisher, _publisher(graph, site)))
    graph.add((node, DCAT.contactPoint, _contact_point(graph, None, None, site)))
    graph.add((node, DCTERMS.license, _licence_document(graph, site.metadata_license)))
    return node


def _catalogue_dates(catalog: Catalog) -> tuple[Literal | None, Literal | None]:
    """Issued: the ledger's earliest time, else the earliest Issued date; modified: the ledger's latest."""
    view = catalog.ledger
    if view is not None and view.projects:
        return _time(min(t.first_seen for t in view.projects.values())), _time(view.latest)
    issued = sorted(date for p in catalog.projects if (date := dates.project_issued(catalog, p)) and _date(date))
    return (_date(issued[0]) if issued else None), None


def catalogue_page(
    catalog: Catalog, site: Site, page: int, page_url: str, page_size: int = DATASETS_PER_PAGE
) -> DcatGraph:
    """Page ``page`` (from 1) of the catalogue: the catalogue, its services and ``page_size`` datasets.

    With more than one page, ``page_url(n)`` is the URL of page ``n`` (a format string with ``{page}``),
    and the catalogue gets a ``hydra:PartialCollectionView`` with first, last, previous and next.
    """
    graph = new_graph()
    base_url = site.base_url
    node = catalogue_uri(base_url)
    graph.add((node, RDF.type, DCAT.Catalog))
    graph.add((node, DCTERMS.title, Literal(site.name, lang="en")))
    graph.add(
        (
            node,
            DCTERMS.description,
            Literal(f"Research projects published by {item_metadata.PUBLISHER}: {site.name}.", lang="en"),
        )
    )
    graph.add((node, DCTERMS.publisher, _publisher(graph, site)))
    graph.add((node, FOAF.homepage, _document(graph, base_url + "/")))
    graph.add((node, DCAT.contactPoint, _contact_point(graph, catalog, None, site)))
    for code in INTERFACE_LANGUAGES:
        graph.add((node, DCTERMS.language, EU_LANGUAGE[code]))
        graph.add((EU_LANGUAGE[code], RDF.type, DCTERMS.LinguisticSystem))
    graph.add((node, DCTERMS.license, _licence_document(graph, site.metadata_license)))
    issued, modified = _catalogue_dates(catalog)
    if issued is not None:
        graph.add((node, DCTERMS.issued, issued))
    if modified is not None:
        graph.add((node, DCTERMS.modified, modified))
    graph.add((node, DCAT.themeTaxonomy, _theme_scheme(graph)))
    graph.add((node, DCAT.themeTaxonomy, _discipline_scheme(graph, base_url)))
    projects = catalog.projects
    oai = _data_service(
        graph,
        site,
        "oai-pmh",
        "OAI-PMH 2.0 endpoint",
        site.oai_url,
        site.oai_url + "?verb=Identify",
        "http://www.openarchives.org/OAI/2.0/openarchivesprotocol.htm",
    )
    api = _data_service(
        graph,
        site,
        "json-api",
        "JSON API",
        base_url + "/api/v2/",
        base_url + "/api/v2/openapi.json",
        "https://spec.openapis.org/oas/v3.1.0",
    )
    for service in (oai, api):
        graph.add((node, DCAT.service, service))
    pages = page_count(len(projects), page_size)
    shown = projects[(page - 1) * page_size : page * page_size]
    for project in shown:
        dataset_node = dataset(graph, catalog, project, site)
        graph.add((node, DCAT.dataset, dataset_node))
        for service in (oai, api):
            graph.add((service, DCAT.servesDataset, dataset_node))
    shortcodes = {project.key for project in shown}
    for cluster in catalog.clusters.values():
        members = [p for p in (catalog.get_project(s) for s in cluster.project_shortcodes) if p is not None]
        if any(p.key in shortcodes for p in members):
            dataset_series(graph, cluster, [p for p in members if p.key in shortcodes], site)
    if pages > 1:
        view = URIRef(page_url.format(page=page))
        graph.add((node, HYDRA.view, view))
        graph.add((node, HYDRA.totalItems, Literal(len(projects))))
        graph.add((view, RDF.type, HYDRA.PartialCollectionView))
        graph.add((view, HYDRA.first, URIRef(page_url.format(page=1))))
        graph.add((view, HYDRA.last, URIRef(page_url.format(page=pages))))
        if page > 1:
            graph.add((view, HYDRA.previous, URIRef(page_url.format(page=page - 1))))
        if page < pages:
            graph.add((view, HYDRA.next, URIRef(page_url.format(page=page + 1))))
    return graph


def catalogue_pages(catalog: Catalog, page_size: int = DATASETS_PER_PAGE) -> int:
    return page_count(len(catalog.projects), page_size)


# --- entity descriptions (the pages' Turtle and RDF/XML) ---------------------------------------------


def _in_catalogue(graph: DcatGraph, site: Site, dataset_node: URIRef) -> None:
    graph.add((catalogue_uri(site.base_url), DCAT.dataset, dataset_node))


def project_graph(catalog: Catalog, project: Project, site: Site) -> DcatGraph:
    graph = new_graph()
    _in_catalogue(graph, site, dataset(graph, catalog, project, site, adms_identifiers=True))
    return graph


def record_graph(catalog: Catalog, project: Project, table: RecordTable, index: int, site: Site) -> DcatGraph:
    """A record as a ``dcat:Resource`` part of its project's dataset (records are not catalogue datasets)."""
    graph = new_graph()
    pid = table.pids[index]
    node = URIRef(site.base_url + links.record_path(project.shortcode, pid))
    context = item_metadata.project_context(catalog, project, site.base_url, "")
    item = item_metadata.record_metadata(table.record(index), context)
    graph.add((node, RDF.type, DCAT.Resource))
    for title in item.titles:
        graph.add((node, DCTERMS.title, _text(title.value, title.lang)))
    for description in item.descriptions:
        graph.add((node, DCTERMS.description, _text(description.value, description.lang)))
    graph.add((node, DCTERMS.identifier, Literal(pid)))
    graph.add((node, DCTERMS.isPartOf, URIRef(site.base_url + links.project_path(project.shortcode))))
    graph.add((node, DCAT.landingPage, _document(graph, str(node))))
    graph.add((node, DCTERMS.publisher, _publisher(graph, site)))
    for creator in item.creators:
        agent = graph.blank()
        graph.add((node, DCTERMS.creator, agent))
        graph.add((agent, RDF.type, FOAF.Agent))
        graph.add((agent, FOAF.name, Literal(creator.name)))
    for rights in item.rights:
        url = rights.uri or (str(eu_licence(rights.spdx)) if eu_licence(rights.spdx) else None)
        if url:
            graph.add((node, DCTERMS.license, _licence_document(graph, url, rights.spdx, rights.text)))
    issued = _date(item.issued)
    if issued is not None:
        graph.add((node, DCTERMS.issued, issued))
    for subject in item.subjects:
        graph.add((node, DCAT.keyword, _text(subject.value, subject.lang)))
    _access_rights(graph, node, item)
    graph.add((URIRef(site.base_url + links.project_path(project.shortcode)), DCTERMS.hasPart, node))
    _in_catalogue(graph, site, URIRef(site.base_url + links.project_path(project.shortcode)))
    return graph


def person_graph(catalog: Catalog, person: Person, site: Site) -> DcatGraph:
    graph = new_graph()
    node = person_node(graph, catalog, person, site.base_url)
    for organization_id in dict.fromkeys(person.affiliation_ids):
        if organization := catalog.organizations.get(organization_id):
            graph.add(
                (
                    node,
                    ORG.memberOf,
                    organization_node(graph, organization, site.base_url),
                )
            )
    for project, _roles in catalog.projects_by_person.get(person.id, ()):
        graph.add((node, FOAF.made, URIRef(site.base_url + links.project_path(project.shortcode))))
    graph.add((node, RDFS.seeAlso, catalogue_uri(site.base_url)))
    return graph


def organization_graph(catalog: Catalog, organization: Organization, site: Site) -> DcatGraph:
    graph = new_graph()
    node = organization_node(graph, organization, site.base_url)
    website = organization.get("url")
    if is_http_url(website):
        graph.add((node, FOAF.homepage, _document(graph, website.strip())))
    for person in catalog.persons_by_organization.get(organization.id, ()):
        graph.add((node, FOAF.member, person_node(graph, catalog, person, site.base_url)))
    for project, _roles in catalog.projects_by_organization.get(organization.id, ()):
        graph.add((node, FOAF.made, URIRef(site.base_url + links.project_path(project.shortcode))))
    graph.add((node, RDFS.seeAlso, catalogue_uri(site.base_url)))
    return graph


def group_graph(entity: Cluster | Collection, members: list[Project], path: str, site: Site) -> DcatGraph:
    """A cluster as its ``dcat:DatasetSeries``; a collection as a ``dcat:Resource`` grouping its projects."""
    graph = new_graph()
    if isinstance(entity, Cluster):
        node = dataset_series(graph, entity, members, site)
    else:
        node = URIRef(site.base_url + path)
        graph.add((node, RDF.type, DCAT.Resource))
        graph.add((node, RDF.type, URIRef("http://purl.org/dc/dcmitype/Collection")))
        graph.add((node, DCTERMS.title, Literal(entity.name or entity.id)))
        for description in item_metadata.texts(entity.get("description")):
            graph.add((node, DCTERMS.description, _text(description.value, description.lang)))
        if is_http_url(entity.get("pid")):
            graph.add((node, DCTERMS.identifier, Literal(entity.get("pid"))))
        for project in members:
            graph.add((node, DCTERMS.hasPart, URIRef(site.base_url + links.project_path(project.shortcode))))
    # The catalogue lists datasets only (its shapes check members as dcat:Dataset): a group points to it.
    graph.add((node, RDFS.seeAlso, catalogue_uri(site.base_url)))
    return graph
