"""The metadata mapping of SPEC §5.6 in both formats, on the real corpus and on edge-case data."""

from __future__ import annotations

import pytest

from catalog.domain.loader import load_catalog
from catalog.domain.roles import is_creator_role
from catalog.formats import vocabularies
from tests.conftest import CORPUS_DIR
from tests.oai_support import NS, load, oai, project, record, serving

serve = pytest.fixture(serving)
ARK = "oai:dasch.swiss:ark:/72163/1/"


@pytest.fixture(scope="module")
def corpus_catalog():
    return load_catalog(CORPUS_DIR)


@pytest.fixture
def corpus(serve, corpus_catalog):
    return serve(corpus_catalog)


def datacite(client, identifier: str):
    document = oai(client, verb="GetRecord", identifier=ARK + identifier, metadataPrefix="oai_datacite")
    resource = document.find(".//d:resource", NS)
    assert resource is not None
    wrapper = document.find(".//w:oai_datacite", NS)
    assert wrapper.findtext("w:schemaVersion", namespaces=NS) == "4.6"
    assert wrapper.findtext("w:datacentreSymbol", namespaces=NS) == "DASCH.DSP"
    return resource


def dublin_core(client, identifier: str) -> list[tuple[str, str]]:
    document = oai(client, verb="GetRecord", identifier=ARK + identifier, metadataPrefix="oai_dc")
    return [(element.tag.rpartition("}")[2], element.text) for element in document.find(".//oai_dc:dc", NS)]


def values(resource, path: str) -> list[str]:
    return resource.xpath(path, namespaces=NS)


def test_project_creators_contributors_and_identifiers(client, corpus):
    resource = datacite(client, "0101")
    assert values(resource, "d:identifier/text()") == ["https://ark.dasch.swiss/ark:/72163/1/0101"]
    assert values(resource, "d:identifier/@identifierType") == ["ARK"]
    # "Project leader" makes a creator; persons as "Family, Given" with their ORCID and affiliation.
    assert values(resource, "d:creators/d:creator/d:creatorName/text()") == ["Gonzalez, Philippe", "Roca Escoda, Marta"]
    creator = resource.find("d:creators/d:creator[2]", NS)
    assert creator.findtext("d:givenName", namespaces=NS) == "Marta"
    assert creator.findtext("d:familyName", namespaces=NS) == "Roca Escoda"
    assert values(creator, "d:nameIdentifier/text()") == ["https://orcid.org/0000-0002-8156-2712"]
    assert values(creator, "d:nameIdentifier/@nameIdentifierScheme") == ["ORCID"]
    assert values(creator, "d:affiliation/text()") == ["Université de Lausanne"]
    # Every other attribution is a contributor, one per mapped role.
    contributors = {
        (c.findtext("d:contributorName", namespaces=NS), c.get("contributorType"))
        for c in resource.findall("d:contributors/d:contributor", NS)
    }
    assert {
        ("Stavo Debauge, Joan", "ProjectMember"),
        ("Stavo Debauge, Joan", "DataCollector"),
        ("Stavo Debauge, Joan", "DataCurator"),
        ("Cocco, Christelle", "Researcher"),
        ("Jaouen, Loïc", "Other"),
        ("Gonzalez, Philippe", "ContactPerson"),
    } <= contributors
    # A creator keeps the roles that are not leading ("Project leader, Data curator"), as contributor.
    assert {(name, kind) for name, kind in contributors if name in ("Gonzalez, Philippe", "Roca Escoda, Marta")} == {
        ("Gonzalez, Philippe", "ContactPerson"),
        ("Gonzalez, Philippe", "DataCurator"),
        ("Roca Escoda, Marta", "DataCurator"),
    }
    assert values(resource, "d:alternateIdentifiers/d:alternateIdentifier/text()") == ["0101"]
    assert values(resource, "d:resourceType/@resourceTypeGeneral") == ["Project"]
    assert values(resource, "d:publisher/text()") == ["DaSCH"]
    # Issued: no dataPublicationYear and no records, so the licence date (2021-09-02), not the start (2016).
    assert values(resource, "d:publicationYear/text()") == ["2021"]
    assert values(resource, "d:dates/d:date[@dateType='Issued']/text()") == ["2021-09-02"]


def test_compound_and_german_roles_make_creators(client, corpus, corpus_catalog):
    assert is_creator_role("Project Leader, Data Collector")
    assert is_creator_role("Projektleitung")
    assert is_creator_role("Co-Principal Investigator")
    assert not is_creator_role("Project Member, Data Collector")
    leader = next(
        (p, a) for p in corpus_catalog.projects for a in p.attributions if "Project Leader, Data Collector" in a.roles
    )
    person = corpus_catalog.persons[leader[1].contributor_id]
    resource = datacite(client, leader[0].shortcode)
    assert person.sort_name in values(resource, "d:creators/d:creator/d:creatorName/text()")


def test_projects_without_creator_roles_have_the_publisher_as_creator(client, corpus):
    resource = datacite(client, "0811")  # its one attribution is a "Data Collector"
    assert values(resource, "d:creators/d:creator/d:creatorName/text()") == ["DaSCH"]
    assert values(resource, "d:creators/d:creator/d:creatorName/@nameType") == ["Organizational"]


def test_titles_subjects_descriptions_languages(client, corpus):
    resource = datacite(client, "0101")
    titles = resource.findall("d:titles/d:title", NS)
    assert titles[0].text.startswith("Religious speech embarrassed") and titles[0].get("titleType") is None
    assert (
        titles[1].text,
        titles[1].get("titleType"),
        titles[1].get("{http://www.w3.org/XML/1998/namespace}lang"),
    ) == (
        "parole-religieuse",
        "AlternativeTitle",
        "fr",
    )
    unesco = resource.find("d:subjects/d:subject[@valueURI]", NS)
    assert unesco.text == "Sociology"
    assert unesco.get("valueURI") == "https://skos.um.es/unesco6/63/"
    assert unesco.get("subjectScheme") == "UNESCO Nomenclature for fields of science and technology"
    assert ("de", "Gender") in [
        (s.get("{http://www.w3.org/XML/1998/namespace}lang"), s.text)
        for s in resource.findall("d:subjects/d:subject", NS)
    ]
    kinds = [
        (d.get("descriptionType"), d.get("{http://www.w3.org/XML/1998/namespace}lang"))
        for d in resource.findall("d:descriptions/d:description", NS)
    ]
    assert kinds == [("Abstract", None), ("Abstract", "en"), ("Other", "fr")]
    assert values(resource, "d:language/text()") == ["fr"]
    # oai_dc carries every data language (DataCite allows one).
    assert [v for k, v in dublin_core(client, "0801a") if k == "language"] == ["en", "fr", "de", "la"]


def test_dates_and_temporal_coverage(client, corpus):
    resource = datacite(client, "0101")
    dates = [(d.get("dateType"), d.text, d.get("dateInformation")) for d in resource.findall("d:dates/d:date", NS)]
    assert dates == [
        ("Issued", "2021-09-02", None),
        ("Collected", "2016-08-01/2019-07-31", None),
        ("Coverage", "2006/2016", "2006-2016"),
    ]
    # A ChronOntology period resolves through chronontology-periods.json.
    chronontology = datacite(client, "0804")
    coverage = chronontology.find("d:dates/d:date[@dateInformation='19th Century (1800 - 1899)']", NS)
    assert coverage.text == "1800/1899"
    # An ongoing project's collection period is open-ended; an embargo gives the date it ends.
    embargoed = datacite(client, "8055")
    assert values(embargoed, "d:dates/d:date[@dateType='Available']/text()") == ["2029-08-31"]
    assert values(embargoed, "d:rightsList/d:rights[not(@rightsIdentifier)]/@rightsURI") == [
        "http://purl.org/coar/access_right/c_f1cf",
        "info:eu-repo/semantics/embargoedAccess",
    ]
    assert ("date", "info:eu-repo/date/embargoEnd/2029-08-31") in dublin_core(client, "8055")


def test_unresolvable_coverage_keeps_the_name_without_an_empty_date(client, corpus):
    # 082D's ChronOntology period "Swiss" is in neither file with a date: no empty DataCite date, the name in oai_dc.
    resource = datacite(client, "082D")
    assert resource.find("d:dates/d:date[@dateInformation='Swiss']", NS) is None
    assert all(date.text for date in resource.findall("d:dates/d:date", NS))
    assert ("coverage", "Swiss") in dublin_core(client, "082D")


def test_rights_spdx_only_for_spdx_licences(client, corpus):
    rights = datacite(client, "0101").findall("d:rightsList/d:rights", NS)
    assert (rights[0].get("rightsIdentifier"), rights[0].get("rightsIdentifierScheme")) == ("CC-BY-SA-4.0", "SPDX")
    assert rights[0].get("rightsURI") == "https://creativecommons.org/licenses/by-sa/4.0/"
    assert rights[1].get("rightsURI") == "http://purl.org/coar/access_right/c_abf2"
    # A ported licence (3.0 CH) and a local licence are no SPDX licences.
    ported = datacite(client, "0840").findall("d:rightsList/d:rights", NS)
    assert [r.get("rightsURI") for r in ported][:2] == [
        "https://creativecommons.org/licenses/by-nc-nd/3.0/ch/",
        "https://creativecommons.org/licenses/by-nc/3.0/ch/",
    ]
    assert all(r.get("rightsIdentifier") is None for r in ported)
    local = datacite(client, "082A").find("d:rightsList/d:rights", NS)
    assert local.text == "SGV Schweizerisches Volksliedarchiv" and local.get("rightsIdentifier") is None


@pytest.mark.parametrize(
    ("uri", "identifier", "expected"),
    [
        ("", "CC BY-SA 4.0", "CC-BY-SA-4.0"),
        ("", "CC BY NC 4.0", "CC-BY-NC-4.0"),
        ("", "CC BY-NC-ND 4.0", "CC-BY-NC-ND-4.0"),
        ("", "CC BY 3.0", "CC-BY-3.0"),
        ("", "CC-BY-4.0", "CC-BY-4.0"),
        ("https://creativecommons.org/licenses/by-nc-nd/4.0/deed.de", "CC BY-NC-ND", "CC-BY-NC-ND-4.0"),
        ("https://creativecommons.org/licenses/by/4.0", "", "CC-BY-4.0"),
        ("https://creativecommons.org/publicdomain/zero/1.0/", "public domain", "CC0-1.0"),
        ("https://creativecommons.org/licenses/by-nc/3.0/ch/", "CC BY-NC 3.0 CH", None),
        ("", "CC BY-NC-ND", None),
        ("", "public domain", None),
        ("", "CC BY-SA-ND 4.0", None),
        ("", "CC BY 5.0", None),
    ],
)
def test_spdx_identifiers(uri, identifier, expected):
    licence = vocabularies.spdx_licence(uri, identifier)
    assert (licence.spdx if licence else None) == expected


def test_spdx_names():
    assert vocabularies.spdx_licence("", "CC BY-NC-ND 3.0").name == (
        "Creative Commons Attribution-NonCommercial-NoDerivs 3.0 Unported"
    )


def test_contributor_types():
    assert vocabularies.contributor_types("Project Member, Data Collector, Data Curator, Data Manager") == (
        "ProjectMember",
        "DataCollector",
        "DataCurator",
        "DataManager",
    )
    assert vocabularies.contributor_types("Supervisor") == ("Supervisor",)
    assert vocabularies.contributor_types("Translation (FR), Editor") == ("Translator", "Editor")
    assert vocabularies.contributor_types("Typeface Designer") == ("Other",)
    assert vocabularies.contributor_types("Funder") == ()


def test_funding_references(client, corpus):
    resource = datacite(client, "0101")
    funding = resource.find("d:fundingReferences/d:fundingReference", NS)
    assert funding.findtext("d:funderName", namespaces=NS) == "Swiss National Science Foundation (SNSF)"
    assert funding.findtext("d:awardNumber", namespaces=NS) == "165652"
    assert funding.find("d:awardNumber", NS).get("awardURI") == "https://data.snf.ch/grants/grant/165652"
    assert funding.findtext("d:awardTitle", namespaces=NS) == "Project funding"
    # Funders are never contributors.
    assert "Swiss National Science Foundation (SNSF)" not in values(
        resource, "d:contributors//d:contributorName/text()"
    )
    # The SNSF from the curated vocabulary: its Crossref Funder ID.
    assert funding.findtext("d:funderIdentifier", namespaces=NS) == "https://doi.org/10.13039/501100001711"
    assert funding.find("d:funderIdentifier", NS).get("funderIdentifierType") == "Crossref Funder ID"
    # Without an award number there is no (empty) awardNumber.
    no_number = datacite(client, "080C").find("d:fundingReferences/d:fundingReference", NS)
    assert no_number.find("d:awardNumber", NS) is None
    # "No funding" is no grant.
    assert not values(datacite(client, next_without_funding(corpus)), "d:fundingReferences")


def next_without_funding(catalog) -> str:
    return next(p.shortcode for p in catalog.projects if p.get("funding") == "No funding")


def test_related_identifiers_and_places(client, corpus):
    beol = datacite(client, "0801a")
    assert values(beol, "d:relatedIdentifiers/d:relatedIdentifier[@relationType='IsPartOf']/text()") == [
        "https://ark.dasch.swiss/ark:/72163/1/0801",
        "https://repository.dasch.swiss/catalogue/dcat",
    ]
    assert values(beol, "d:relatedIdentifiers/d:relatedIdentifier[@relationType='IsIdenticalTo']/text()") == [
        "https://app.dasch.swiss/project/yTerZGyxjZVqFMNNKXCDPF"
    ]
    publications = datacite(client, "0117")
    dois = values(publications, "d:relatedIdentifiers/d:relatedIdentifier[@relatedIdentifierType='DOI']/text()")
    assert "10.1484/J.ALMAGEST.5.113697" in dois
    assert values(datacite(client, "0101"), "d:geoLocations/d:geoLocation/d:geoLocationPlace/text()") == [
        "France",
        "Switzerland",
    ]


def test_record_metadata(client, corpus, corpus_catalog):
    table = corpus_catalog.records["0803"]
    index = next(i for i in range(len(table)) if "file" in table.record(i))
    stored = table.record(index)
    suffix = stored["pid"].rpartition("/")[2]
    resource = datacite(client, "0803/" + suffix)
    assert values(resource, "d:identifier/text()") == [stored["pid"]]
    assert values(resource, "d:titles/d:title/text()") == [stored["label"]["en"]]
    assert values(resource, "d:titles/d:title/@xml:lang") == ["en"]
    assert values(resource, "d:creators/d:creator/d:creatorName/text()") == ["DaSCH"]
    assert values(resource, "d:resourceType/@resourceTypeGeneral") == [stored["typeOfData"]]
    assert values(resource, "d:formats/d:format/text()") == [stored["file"]["mimeType"]]
    related = {
        (r.get("relationType"), r.text) for r in resource.findall("d:relatedIdentifiers/d:relatedIdentifier", NS)
    }
    assert related == {("IsPartOf", "https://ark.dasch.swiss/ark:/72163/1/0803"), ("HasPart", stored["file"]["url"])}
    assert values(resource, "d:dates/d:date[@dateType='Created']/text()") == [stored["dateCreated"]]
    assert values(resource, "d:rightsList/d:rights/@rightsIdentifier") == ["CC0-1.0"]
    assert values(resource, "d:alternateIdentifiers/d:alternateIdentifier/text()") == [stored["id"]]
    dc = dublin_core(client, "0803/" + suffix)
    assert ("identifier", stored["pid"]) in dc and ("identifier", stored["file"]["url"]) in dc
    assert ("relation", "https://ark.dasch.swiss/ark:/72163/1/0803") in dc
    assert ("format", stored["file"]["mimeType"]) in dc and ("type", stored["typeOfData"]) in dc


def test_oai_dc_of_a_project(client, corpus):
    dc = dublin_core(client, "0101")
    kinds = [kind for kind, _ in dc]
    for kind in ("title", "creator", "subject", "description", "publisher", "contributor", "date", "type"):
        assert kind in kinds
    assert ("creator", "Gonzalez, Philippe") in dc
    assert ("identifier", "https://ark.dasch.swiss/ark:/72163/1/0101") in dc
    assert ("coverage", "2006-2016") in dc and ("coverage", "France") in dc
    assert ("rights", "info:eu-repo/semantics/openAccess") in dc
    assert ("rights", "https://creativecommons.org/licenses/by-sa/4.0/") in dc
    assert [value for kind, value in dc if kind == "date"] == ["2021-09-02"]  # Issued, not the start
    assert [value for kind, value in dc if kind == "type"] == ["Collection"]  # DCMI Type
    # The catalogue, the data application, then the text-only publications (0101 has 14 of them).
    relations = [value for kind, value in dc if kind == "relation"]
    assert relations[:2] == [
        "https://repository.dasch.swiss/catalogue/dcat",
        "https://app.ls-prod-server.dasch.swiss/project/0101",
    ]
    assert len(relations) == 16
    # Rights holders and creators are not repeated as contributors.
    contributors = [value for kind, value in dc if kind == "contributor"]
    assert "Gonzalez, Philippe" not in contributors and len(contributors) == len(set(contributors))


ILLEGAL = "\x00\x01\x08\x0b\x0c\x1f\udfff\ud800\ufffe\uffff"  # the surrogates pair with nothing
# What is left of it: the loader reads each lone surrogate as U+FFFD; the writers drop the rest.
SHOWN = "\ufffd\ufffd"


def test_characters_illegal_in_xml_are_removed(client, serve, tmp_path):
    """Control characters and lone surrogates in the data never break a response (a surrogate shows as U+FFFD)."""
    serve(
        load(
            tmp_path,
            {
                "projects/a.json": project(
                    "0AAA",
                    name=f"Bad{ILLEGAL} name & <markup>",
                    keywords=[{"en": f"key{ILLEGAL}word"}],
                    description={"en": f"tab\tand newline\nkept{ILLEGAL}"},
                ),
                "records/0AAA-records.json": [record("0AAA", "r1", label={"en": f"label{ILLEGAL}"})],
            },
        )
    )
    for prefix in ("oai_dc", "oai_datacite"):
        # oai() validates each response: malformed XML or invalid content would fail here.
        page = oai(client, verb="ListRecords", metadataPrefix=prefix)
        texts = page.xpath("//text()")
        assert f"Bad{SHOWN} name & <markup>" in texts
        assert f"label{SHOWN}" in texts
        assert f"key{SHOWN}word" in texts
        assert f"tab\tand newline\nkept{SHOWN}" in texts
    sets = oai(client, verb="ListSets")
    assert f"Bad{SHOWN} name & <markup>" in sets.xpath("//o:setName/text()", namespaces=NS)


def test_odd_data_still_gives_valid_metadata(client, serve, tmp_path):
    """Missing pids and titles, odd URLs and languages, placeholders: still valid, nothing invented."""
    serve(
        load(
            tmp_path,
            {
                "projects/a.json": project(
                    "0AAA",
                    pid="MISSING",
                    name="",
                    officialName="MISSING",
                    startDate="MISSING",
                    endDate="MISSING",
                    dataLanguage=["not a language!", "de"],
                    legalInfo=[{"license": {"licenseIdentifier": "MISSING", "licenseURI": "https://x.test/a b#c#d"}}],
                    disciplines=[{"type": "Skos", "url": "http://skos.um.es/unesco6/[bad]"}],
                    attributions=[{"contributor": "person-404", "contributorType": ["Project leader"]}],
                    funding=[{"funders": ["organization-404"], "number": "1"}],
                ),
                "records/0AAA-records.json": [
                    {"id": "http://rdfh.ch/0AAA/x", "pid": "https://elsewhere.test/x y", "label": "MISSING"},
                    record("0AAA", "a b"),
                    record("0AAA", "c d"),
                ],
            },
        )
    )
    project_resource = datacite(client, "0AAA")
    # Without a pid, the project's landing page identifies it.
    assert values(project_resource, "d:identifier/text()") == ["https://repository.dasch.swiss/projects/0AAA"]
    assert values(project_resource, "d:identifier/@identifierType") == ["URL"]
    assert values(project_resource, "d:titles/d:title/text()") == ["0AAA"]
    assert values(project_resource, "d:language/text()") == ["de"]
    assert values(project_resource, "d:rightsList/d:rights/@rightsURI")[0] == "https://x.test/a%20b#c%23d"
    assert values(project_resource, "d:creators/d:creator/d:creatorName/text()") == ["DaSCH"]
    assert values(project_resource, "d:fundingReferences") == []
    listed = oai(client, verb="ListIdentifiers", metadataPrefix="oai_datacite")
    # Record identifiers are URIs even when pids are not, and they resolve.
    records = listed.xpath("//o:identifier/text()", namespaces=NS)[1:]
    assert records == [ARK + "0AAA/a%20b", ARK + "0AAA/c%20d", ARK + "0AAA/~https%3A%2F%2Felsewhere.test%2Fx%20y"]
    for identifier in records:
        for prefix in ("oai_dc", "oai_datacite"):
            document = oai(client, verb="GetRecord", identifier=identifier, metadataPrefix=prefix)
            assert document.xpath("//o:header/o:identifier/text()", namespaces=NS) == [identifier]
