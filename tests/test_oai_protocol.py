"""OAI-PMH 2.0 verbs, arguments and errors, through Django, on the real corpus.

Every response is validated strictly against ../shared/schemas/all.xsd,
metadata payloads included (see tests/oai_support.py).
"""

from __future__ import annotations

import pytest

from catalog import runtime
from catalog.domain.loader import load_catalog
from tests.conftest import CORPUS_DIR
from tests.oai_support import (
    NS,
    OAI_PATH,
    errors,
    harvest,
    identifiers,
    oai,
    parse_valid,
    request_attributes,
    serving,
    token,
)

PROJECT = "oai:dasch.swiss:ark:/72163/1/0803"
RECORD = "oai:dasch.swiss:ark:/72163/1/0803/00bnHlmDVIq_Blb4DvKGiQU"


serve = pytest.fixture(serving)


@pytest.fixture(scope="module")
def corpus():
    return load_catalog(CORPUS_DIR)


@pytest.fixture(autouse=True)
def served(serve, corpus):
    serve(corpus)


def test_identify(client):
    document = oai(client, verb="Identify")
    identify = document.find("o:Identify", NS)
    assert identify.findtext("o:repositoryName", namespaces=NS) == "DaSCH Service Platform Repository"
    assert identify.findtext("o:baseURL", namespaces=NS) == "https://repository.dasch.swiss/dpe/oai"
    assert identify.findtext("o:protocolVersion", namespaces=NS) == "2.0"
    assert identify.findtext("o:adminEmail", namespaces=NS) == "info@dasch.swiss"
    assert identify.findtext("o:deletedRecord", namespaces=NS) == "no"
    assert identify.findtext("o:granularity", namespaces=NS) == "YYYY-MM-DDThh:mm:ssZ"
    # The earliest datestamp over all items: project 0807 starts on 1980-04-01.
    assert identify.findtext("o:earliestDatestamp", namespaces=NS) == "1980-04-01T00:00:00Z"
    description = identify.find("o:description/i:oai-identifier", NS)
    assert description.findtext("i:repositoryIdentifier", namespaces=NS) == "dasch.swiss"
    assert description.findtext("i:delimiter", namespaces=NS) == ":"
    sample = description.findtext("i:sampleIdentifier", namespaces=NS)
    assert not errors(oai(client, verb="GetRecord", identifier=sample, metadataPrefix="oai_dc"))
    assert request_attributes(document) == {"verb": "Identify"}
    assert document.findtext("o:request", namespaces=NS) == "https://repository.dasch.swiss/dpe/oai"


def test_earliest_datestamp_is_the_smallest_item_datestamp(client, corpus):
    stamps = [p.datestamp for p in corpus.projects] + list(corpus.records["0803"].datestamps)
    assert min(stamps) == 323395200  # 1980-04-01T00:00:00Z


def test_list_metadata_formats(client):
    for arguments in ({}, {"identifier": PROJECT}, {"identifier": RECORD}):
        document = oai(client, verb="ListMetadataFormats", **arguments)
        prefixes = document.xpath("//o:metadataPrefix/text()", namespaces=NS)
        assert prefixes == ["oai_dc", "oai_datacite"]
        assert request_attributes(document) == {"verb": "ListMetadataFormats", **arguments}
    schemas = document.xpath("//o:schema/text()", namespaces=NS)
    assert schemas == [
        "http://www.openarchives.org/OAI/2.0/oai_dc.xsd",
        "http://schema.datacite.org/oai/oai-1.1/oai.xsd",
    ]
    unknown = oai(client, verb="ListMetadataFormats", identifier="oai:dasch.swiss:ark:/72163/1/ffff")
    assert errors(unknown) == ["idDoesNotExist"]
    assert request_attributes(unknown) == {
        "verb": "ListMetadataFormats",
        "identifier": "oai:dasch.swiss:ark:/72163/1/ffff",
    }


def test_list_sets_has_the_hierarchy(client):
    document = oai(client, verb="ListSets")
    specs = document.xpath("//o:set/o:setSpec/text()", namespaces=NS)
    assert specs[:5] == ["entityType", "entityType:ResearchProject", "entityType:Record", "project", "openaire_data"]
    # A set that can never hold an item is not advertised: no clusters as items, no project without records.
    catalog = runtime.get_catalog()
    with_records = {f"project:{p.shortcode}" for p in catalog.projects if catalog.records_of(p)}
    assert {s for s in specs if s.startswith("project:")} == with_records
    assert "entityType:ProjectCluster" not in specs and "cluster" in specs
    assert {s for s in specs if s.startswith("cluster:")} == {f"cluster:cluster-00{n}" for n in range(1, 6)}
    assert len(specs) == 5 + len(with_records) + 1 + 5
    names = dict(zip(specs, document.xpath("//o:set/o:setName/text()", namespaces=NS), strict=True))
    assert names["cluster:cluster-003"] == "Bernoulli-Euler Online (BEOL)"
    assert token(document) is None


@pytest.mark.parametrize("prefix", ["oai_dc", "oai_datacite"])
@pytest.mark.parametrize("identifier", [PROJECT, RECORD])
def test_get_record(client, prefix, identifier):
    document = oai(client, verb="GetRecord", identifier=identifier, metadataPrefix=prefix)
    assert identifiers(document) == [identifier]
    assert request_attributes(document) == {"verb": "GetRecord", "identifier": identifier, "metadataPrefix": prefix}
    metadata = document.find("o:GetRecord/o:record/o:metadata", NS)
    root = metadata[0]
    assert root.tag == (
        "{http://www.openarchives.org/OAI/2.0/oai_dc/}dc"
        if prefix == "oai_dc"
        else "{http://schema.datacite.org/oai/oai-1.1/}oai_datacite"
    )


def test_projects_sharing_a_pid_get_distinct_identifiers_that_resolve(client):
    listed, _ = harvest(client, metadataPrefix="oai_dc", set="entityType:ResearchProject")
    shared = [identifier for identifier in listed if "/0801" in identifier]
    assert shared == [f"oai:dasch.swiss:ark:/72163/1/0801{letter}" for letter in "abcde"]
    for identifier in shared:
        for prefix in ("oai_dc", "oai_datacite"):
            document = oai(client, verb="GetRecord", identifier=identifier, metadataPrefix=prefix)
            assert identifiers(document) == [identifier]
        assert not errors(oai(client, verb="ListMetadataFormats", identifier=identifier))
    # The ARK they share identifies none of them: each is identified by its landing page and IsPartOf the ARK
    # (the cluster that carries it), as it IsPartOf the catalogue.
    document = oai(client, verb="GetRecord", identifier=shared[2], metadataPrefix="oai_datacite")
    assert document.xpath("//d:identifier/text()", namespaces=NS) == ["https://repository.dasch.swiss/projects/0801c"]
    assert document.xpath("//d:identifier/@identifierType", namespaces=NS) == ["URL"]
    assert document.xpath("//d:relatedIdentifier[@relationType='IsPartOf']/text()", namespaces=NS) == [
        "https://ark.dasch.swiss/ark:/72163/1/0801",
        "https://repository.dasch.swiss/catalogue/dcat",
    ]
    assert document.xpath("//d:alternateIdentifier/text()", namespaces=NS) == ["0801c"]
    # The shared pid itself names no single item.
    assert errors(
        oai(client, verb="GetRecord", identifier="oai:dasch.swiss:ark:/72163/1/0801", metadataPrefix="oai_dc")
    ) == ["idDoesNotExist"]


@pytest.mark.parametrize("verb", ["ListIdentifiers", "ListRecords"])
@pytest.mark.parametrize("prefix", ["oai_dc", "oai_datacite"])
def test_complete_list_pages_with_tokens(client, verb, prefix):
    listed, pages = harvest(client, verb, metadataPrefix=prefix)
    assert len(listed) == len(set(listed)) == 85 + 4198
    assert len(pages) == 43
    for number, page in enumerate(pages):
        resumption = token(page)
        assert resumption.get("completeListSize") == "4283"
        assert resumption.get("cursor") == str(100 * number)
        assert len(identifiers(page)) == (100 if number < 42 else 83)
    assert not pages[-1].xpath("//o:resumptionToken/text()", namespaces=NS)  # the last token is empty
    assert request_attributes(pages[1]) == {"verb": verb, "resumptionToken": token(pages[0]).text}
    tokens = [token(page).text for page in pages[:-1]]
    assert len(set(tokens)) == len(tokens)
    # Items come projects by shortcode, each followed by its records by pid.
    assert listed[0] == "oai:dasch.swiss:ark:/72163/1/0101"
    first_record = listed.index(PROJECT) + 1
    assert listed[first_record].startswith(PROJECT + "/")


def test_a_single_page_list_has_no_token(client):
    document = oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc", set="cluster:cluster-002")
    assert identifiers(document) == ["oai:dasch.swiss:ark:/72163/1/0866", "oai:dasch.swiss:ark:/72163/1/0867"]
    assert token(document) is None


def test_page_size_follows_the_configuration(client, settings):
    from tests.oai_support import config

    settings.SVC = config(oai_page_size=7)
    listed, pages = harvest(client, metadataPrefix="oai_dc", set="entityType:ResearchProject")
    assert len(listed) == 85 and len(pages) == 13
    assert token(pages[-1]).get("cursor") == "84"


def test_post_form_encoded(client):
    document = oai(client, "post", verb="GetRecord", identifier=RECORD, metadataPrefix="oai_datacite")
    assert identifiers(document) == [RECORD]
    page = oai(client, "post", verb="ListIdentifiers", metadataPrefix="oai_dc")
    following = oai(client, "post", verb="ListIdentifiers", resumptionToken=token(page).text)
    assert identifiers(following)[0] != identifiers(page)[0]


def test_endpoint_answers_without_redirect_and_refuses_other_methods(client):
    assert client.get(OAI_PATH + "/", {"verb": "Identify"}).status_code == 200
    assert client.get(OAI_PATH).status_code == 200  # badVerb, still HTTP 200
    response = client.put(OAI_PATH)
    assert response.status_code == 405 and "POST" in response["Allow"]


# --- errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"verb": "Frobnicate"},
        {"verb": ["Identify", "Identify"]},
        {"verb": ""},
        {"Verb": "Identify"},
    ],
)
def test_bad_verb(client, query):
    document = parse_valid(client.get(OAI_PATH, query).content)
    assert errors(document) == ["badVerb"]
    assert request_attributes(document) == {}


@pytest.mark.parametrize(
    "query",
    [
        {"verb": "Identify", "metadataPrefix": "oai_dc"},  # illegal argument
        {"verb": "Identify", "identifier": PROJECT},
        {"verb": "GetRecord", "identifier": PROJECT},  # missing argument
        {"verb": "GetRecord", "metadataPrefix": "oai_dc"},
        {"verb": "GetRecord", "identifier": [PROJECT, RECORD], "metadataPrefix": "oai_dc"},  # repeated
        {"verb": "ListRecords"},
        {"verb": "ListIdentifiers", "metadataPrefix": ["oai_dc", "oai_dc"]},
        {"verb": "ListRecords", "metadataPrefix": "oai_dc", "resumptionToken": "abc"},  # exclusive
        {"verb": "ListSets", "resumptionToken": "abc", "set": "project"},
        {"verb": "ListRecords", "metadataPrefix": "oai_dc", "set": "bad set"},  # malformed set
        {"verb": "ListRecords", "metadataPrefix": "oai dc"},  # malformed prefix
        {"verb": "GetRecord", "identifier": "oai:dasch.swiss:a b", "metadataPrefix": "oai_dc"},  # not a URI
        {"verb": "GetRecord", "identifier": "", "metadataPrefix": "oai_dc"},
        {"verb": "ListRecords", "metadataPrefix": "oai_dc", "from": "yesterday"},
        {"verb": "ListMetadataFormats", "set": "project"},
    ],
)
def test_bad_argument_echoes_no_attributes(client, query):
    document = parse_valid(client.get(OAI_PATH, query).content)
    assert set(errors(document)) == {"badArgument"}
    assert request_attributes(document) == {}
    assert document.findtext("o:request", namespaces=NS) == "https://repository.dasch.swiss/dpe/oai"


def test_every_bad_argument_is_reported(client):
    document = parse_valid(client.get(OAI_PATH, {"verb": "Identify", "foo": "1", "bar": "2"}).content)
    assert errors(document) == ["badArgument", "badArgument"]


def test_cannot_disseminate_format(client):
    for verb, arguments in (
        ("ListRecords", {}),
        ("ListIdentifiers", {}),
        ("GetRecord", {"identifier": PROJECT}),
    ):
        document = oai(client, verb=verb, metadataPrefix="marc21", **arguments)
        assert errors(document) == ["cannotDisseminateFormat"]
        assert request_attributes(document) == {"verb": verb, "metadataPrefix": "marc21", **arguments}


def test_get_record_reports_both_an_unknown_format_and_an_unknown_identifier(client):
    document = oai(client, verb="GetRecord", identifier="oai:dasch.swiss:nothing", metadataPrefix="marc21")
    assert sorted(errors(document)) == ["cannotDisseminateFormat", "idDoesNotExist"]


@pytest.mark.parametrize(
    "identifier",
    [
        "oai:dasch.swiss:ark:/72163/1/ffff",
        "oai:dasch.swiss:ark:/72163/1/0803/doesnotexist",
        "oai:other.repo:ark:/72163/1/0803",
        "ark:/72163/1/0803",
        "oai:dasch.swiss:ark:/72163/1/0803/",
        "oai:dasch.swiss:",
        "urn:nbn:ch:1",
    ],
)
def test_id_does_not_exist(client, identifier):
    document = oai(client, verb="GetRecord", identifier=identifier, metadataPrefix="oai_dc")
    assert errors(document) == ["idDoesNotExist"]
    assert request_attributes(document)["identifier"] == identifier


def test_no_records_match(client):
    for arguments in (
        {"set": "entityType:ProjectCluster"},  # clusters are sets, not items: not advertised
        {"set": "nonsense:set"},  # an unknown set selects nothing (OAI-PMH 2.0 §3.6: noRecordsMatch)
        {"from": "2100-01-01"},
        {"until": "1900-01-01"},
    ):
        document = oai(client, verb="ListRecords", metadataPrefix="oai_dc", **arguments)
        assert errors(document) == ["noRecordsMatch"]
        assert request_attributes(document) == {"verb": "ListRecords", "metadataPrefix": "oai_dc", **arguments}


@pytest.mark.parametrize(
    "value",
    ["abc", "", "!!!", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "x\x01y"],
)
def test_bad_resumption_token(client, value):
    document = oai(client, verb="ListRecords", resumptionToken=value)
    assert errors(document) == ["badResumptionToken"]
    assert request_attributes(document)["verb"] == "ListRecords"


def test_tokens_are_verb_specific(client):
    page = oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc")
    document = oai(client, verb="ListRecords", resumptionToken=token(page).text)
    assert errors(document) == ["badResumptionToken"]
    assert "ListRecords" in document.findtext("o:error", namespaces=NS)


def test_a_tampered_token_is_refused(client):
    issued = token(oai(client, verb="ListRecords", metadataPrefix="oai_dc")).text
    tampered = issued[:10] + ("A" if issued[10] != "A" else "B") + issued[11:]
    assert errors(oai(client, verb="ListRecords", resumptionToken=tampered)) == ["badResumptionToken"]


def test_list_sets_has_no_tokens(client):
    assert errors(oai(client, verb="ListSets", resumptionToken="anything")) == ["badResumptionToken"]


def test_repeated_requests_are_identical_but_for_the_response_date(client):
    def body(**arguments):
        content = client.get(OAI_PATH, arguments).content
        return content.split(b"</responseDate>", 1)[1]

    first = body(verb="ListRecords", metadataPrefix="oai_datacite")
    assert body(verb="ListRecords", metadataPrefix="oai_datacite") == first
