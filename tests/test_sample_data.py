"""The bundled sample data (modules/svc/server/data): loads cleanly, is consistent, and shows every data shape.

The sample data is what a newcomer sees first and what the page, API and OAI tests
can rely on, so it must carry each shape the real corpus has (legacy URL arrays,
placeholders, both funding and both coverage shapes, …) and nothing may dangle.
"""

from __future__ import annotations

import re
import runpy
import unicodedata
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from catalog.domain.loader import load_catalog
from catalog.domain.model import Catalog, is_placeholder, language_items, thaw
from tests.conftest import PROJECT_ROOT, SAMPLE_DIR, run_svc
from validation.checks import JOB_TITLE_ROLE_WORDS

ARK_PREFIX = "https://ark.dasch.swiss/ark:/72163/1/"
CHRONONTOLOGY_PERIOD = re.compile(r"^https?://chronontology\.dainst\.org/period/([A-Za-z0-9]+)$")
XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@pytest.fixture(scope="module")
def sample() -> Catalog:
    return load_catalog(SAMPLE_DIR)


@pytest.fixture(scope="module")
def projects(sample: Catalog) -> dict[str, dict[str, Any]]:
    return {project.shortcode: thaw(project.raw) for project in sample.projects}


def all_records(sample: Catalog) -> Iterator[tuple[str, dict[str, Any]]]:
    for key, table in sample.records.items():
        for index in range(len(table)):
            yield key, table.record(index)


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, str):
        yield value


def orcid_is_valid(orcid: str) -> bool:
    """ISO 7064 MOD 11-2 check digit, as ORCID defines it."""
    digits = orcid.replace("-", "")
    total = 0
    for digit in digits[:-1]:
        total = (total + int(digit)) * 2
    check = (12 - total % 11) % 11
    return digits[-1] == ("X" if check == 10 else str(check))


def ror_is_valid(ror_id: str) -> bool:
    """ISO 7064 MOD 97-10 over the Crockford base32 value, as ROR defines it."""
    alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
    value = 0
    for char in ror_id[:7]:
        value = value * 32 + alphabet.index(char)
    return int(ror_id[7:]) == 98 - (value * 100) % 97


# ---------------------------------------------------------------- loading and consistency


def test_counts_and_no_load_problems(sample: Catalog) -> None:
    assert sample.problems == ()
    assert sample.counts() == {
        "projects": 14,
        "persons": 43,
        "organizations": 16,
        "clusters": 2,
        "collections": 2,
        "records": 1516,
    }


def test_svc_validate_accepts_the_sample_data() -> None:
    result = run_svc("validate", str(SAMPLE_DIR))
    assert result.returncode == 0, result.stderr


def test_file_names_match_ids(sample: Catalog) -> None:
    for project in sample.projects:
        assert re.fullmatch(r"[0-9A-F]{4}", project.shortcode), project.shortcode
        assert project.id == project.shortcode
        assert project.pid == ARK_PREFIX + project.shortcode
        [path] = (SAMPLE_DIR / "projects").glob(f"{project.shortcode}_*.json")
        assert re.fullmatch(rf"{project.shortcode}_[a-z0-9-]+\.json", path.name)
    for kind, entities in (("persons", sample.persons), ("organizations", sample.organizations)):
        assert sorted(path.stem for path in (SAMPLE_DIR / kind).glob("*.json")) == sorted(entities)
        assert all(re.fullmatch(rf"{kind[:-1]}-\d{{3}}", entity_id) for entity_id in entities)
    for kind, entities in (("clusters", sample.clusters), ("collections", sample.collections)):
        names = sorted(path.name for path in (SAMPLE_DIR / kind).glob("*.json"))
        assert [name[: len(kind) + 3] for name in names] == sorted(entities)
        assert all(re.fullmatch(rf"{kind[:-1]}-\d{{3}}-[a-z0-9-]+\.json", name) for name in names)


def test_every_reference_resolves(sample: Catalog) -> None:
    for project in sample.projects:
        for attribution in project.attributions:
            assert sample.contributor(attribution.contributor_id), (project.shortcode, attribution)
        for contact_id in project.contact_point_ids:
            assert sample.contributor(contact_id), (project.shortcode, contact_id)
        for funder_id in project.funder_ids:
            assert funder_id in sample.organizations, (project.shortcode, funder_id)
        # Membership is stated on both sides and must agree.
        for cluster_id in project.cluster_ids:
            assert project.shortcode in sample.clusters[cluster_id].project_shortcodes
        for collection_id in project.collection_ids:
            assert project.shortcode in sample.collections[collection_id].project_shortcodes
    for person in sample.persons.values():
        for organization_id in person.affiliation_ids:
            assert organization_id in sample.organizations, (person.id, organization_id)
    for cluster in sample.clusters.values():
        for shortcode in cluster.project_shortcodes:
            assert cluster.id in sample.get_project(shortcode).cluster_ids
    for collection in sample.collections.values():
        for shortcode in collection.project_shortcodes:
            assert collection.id in sample.get_project(shortcode).collection_ids
        for child_id in collection.collection_ids:
            assert child_id in sample.collections
        for pid in collection.record_ids:
            shortcode = pid.removeprefix(ARK_PREFIX).split("/")[0]
            table = sample.records[shortcode.lower()]
            assert table.index_of_pid(pid) is not None, (collection.id, pid)


def test_records_belong_to_their_project(sample: Catalog) -> None:
    for key, table in sample.records.items():
        shortcode = sample.project_by_key[key].shortcode
        for index in range(len(table)):
            record = table.record(index)
            suffix = record["pid"].removeprefix(f"{ARK_PREFIX}{shortcode}/")
            assert re.fullmatch(r"[A-Za-z0-9_-]{22}", suffix), record["pid"]
            assert record["id"] == f"http://rdfh.ch/{shortcode}/{suffix}"
            assert table.datestamp(index) is not None
            assert table.index_of_suffix(suffix) == index


def test_nothing_is_orphaned(sample: Catalog) -> None:
    referenced_persons = set(sample.projects_by_person)
    referenced_organizations = set(sample.projects_by_organization) | set(sample.persons_by_organization)
    assert set(sample.persons) == referenced_persons
    assert set(sample.organizations) == referenced_organizations
    for collection_id in sample.collections:
        parents = sample.parent_collections.get(collection_id, ())
        members = [p for p in sample.projects if collection_id in p.collection_ids]
        assert parents or members, collection_id
    for cluster in sample.clusters.values():
        assert cluster.project_shortcodes, cluster.id


def test_no_duplicate_identifiers(sample: Catalog) -> None:
    shortcodes = [project.key for project in sample.projects]
    pids = [project.pid for project in sample.projects]
    pids += [c.get("pid") for c in (*sample.clusters.values(), *sample.collections.values()) if c.get("pid")]
    record_pids = [record["pid"] for _, record in all_records(sample)]
    record_ids = [record["id"] for _, record in all_records(sample)]
    for values in (shortcodes, pids, record_pids, record_ids):
        assert [value for value, n in Counter(values).items() if n > 1] == []
    # Loaded by id, so a duplicate file would have shown up as a load problem.
    assert len(list((SAMPLE_DIR / "persons").glob("*.json"))) == len(sample.persons)


def test_job_titles_hold_no_project_roles(sample: Catalog) -> None:
    for person in sample.persons.values():
        for title in person.get("jobTitles", ()):
            assert title.strip().lower() not in JOB_TITLE_ROLE_WORDS, (person.id, title)


def test_temporal_coverage_resolves_offline(sample: Catalog, projects: dict[str, dict[str, Any]]) -> None:
    """Chronontology URLs through the periods file, names through the enrichment file (SPEC §5.7)."""
    periods = sample.chronontology_periods
    enrichment = sample.temporal_coverage_enrichment
    unresolved = []
    for shortcode, project in projects.items():
        for entry in project["temporalCoverage"]:
            period = CHRONONTOLOGY_PERIOD.match(entry.get("url", ""))
            if period:
                assert period.group(1) in periods, (shortcode, entry)
                continue
            names = [entry["text"]] if "url" in entry else [text for _, text in language_items(entry)]
            for name in names:
                assert name in enrichment, (shortcode, name)
                if enrichment[name]["source"] == "unresolved":
                    assert enrichment[name]["date"] is None
                    unresolved.append(name)
                else:
                    assert re.fullmatch(r"-?\d{4}/-?\d{4}", enrichment[name]["date"]), name
    assert unresolved == ["Zeit der Klosterreformen"]


# ---------------------------------------------------------------- the corpus's shapes are all present


def test_project_url_shapes(projects: dict[str, dict[str, Any]]) -> None:
    urls = [p["url"] for p in projects.values() if "url" in p]
    assert any(isinstance(u, list) and len(u) == 1 and not is_placeholder(u[0]) for u in urls)
    assert any(isinstance(u, list) and len(u) == 2 for u in urls)
    assert ["MISSING"] in urls
    assert any(isinstance(u, dict) and set(u) == {"type", "url", "text"} for u in urls)
    assert any("url" not in p for p in projects.values())
    assert any(set(p.get("secondaryUrl", {})) == {"type", "url"} for p in projects.values())


def test_placeholders(sample: Catalog, projects: dict[str, dict[str, Any]]) -> None:
    values = list(projects.values())
    assert any(p["endDate"] == "MISSING" for p in values)
    assert any(p.get("dataManagementPlan") == "MISSING" for p in values)
    assert any(p["howToCite"] == "MISSING" for p in values)
    assert any(info["license"]["licenseURI"] == "MISSING" for p in values for info in p["legalInfo"])
    assert any({"type": "URL", "url": "MISSING"} in p["spatialCoverage"] for p in values)
    assert sum(info["authorship"] == ["CALCULATED"] for p in values for info in p["legalInfo"]) >= 10
    assert any(person.get("email") == "MISSING" for person in sample.persons.values())
    assert any(organization.get("email") == "MISSING" for organization in sample.organizations.values())


def test_statuses_access_rights_and_embargo(projects: dict[str, dict[str, Any]]) -> None:
    values = list(projects.values())
    assert {p["status"] for p in values} == {"Ongoing", "Finished"}
    assert {p["accessRights"]["accessRights"] for p in values} == {
        "Full Open Access",
        "Open Access with Restrictions",
        "Embargoed Access",
        "Metadata only Access",
    }
    [embargoed] = [p for p in values if "embargoDate" in p["accessRights"]]
    assert embargoed["accessRights"]["accessRights"] == "Embargoed Access"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", embargoed["accessRights"]["embargoDate"])


def test_funding_shapes(projects: dict[str, dict[str, Any]]) -> None:
    fundings = [p["funding"] for p in projects.values()]
    assert "No funding" in fundings
    grants = [grant for funding in fundings if isinstance(funding, list) for grant in funding]
    assert any({"funders", "number", "name", "url"} == set(g) for g in grants)
    assert any("url" in g and "number" not in g for g in grants)
    assert any(set(g) == {"funders"} for g in grants)
    assert any(set(g) == {"funders", "name"} for g in grants)
    assert any(len(g["funders"]) > 1 for g in grants)


def test_coverage_and_discipline_shapes(projects: dict[str, dict[str, Any]]) -> None:
    temporal = [entry for p in projects.values() for entry in p["temporalCoverage"]]
    assert any("url" not in entry for entry in temporal)
    assert any(CHRONONTOLOGY_PERIOD.match(entry.get("url", "")) for entry in temporal)
    assert any(entry.get("url", "").startswith("http://chronontology") for entry in temporal)
    assert any(entry.get("type") == "Periodo" for entry in temporal)
    assert any(len(entry) > 1 and "url" not in entry for entry in temporal)
    spatial = [entry for p in projects.values() for entry in p["spatialCoverage"]]
    assert any(entry["url"].startswith("https://www.geonames.org/") and "text" in entry for entry in spatial)
    assert any("text" not in entry and not is_placeholder(entry["url"]) for entry in spatial)
    disciplines = [entry for p in projects.values() for entry in p["disciplines"]]
    assert any(entry.get("url", "").startswith("http://skos.um.es/unesco6/") for entry in disciplines)
    assert {language for entry in disciplines if "url" not in entry for language in entry} >= {"en", "de", "fr"}


def test_descriptive_fields(projects: dict[str, dict[str, Any]]) -> None:
    values = list(projects.values())
    keyword_languages = {language for p in values for keyword in p["keywords"] for language in keyword}
    assert keyword_languages >= {"en", "de", "fr", "it", "rm", "la"}
    assert {language for p in values for language in p["description"]} >= {"en", "de", "fr", "it", "rm"}
    publications = [pub for p in values for pub in p.get("publications", ())]
    assert any("pid" not in pub for pub in publications)
    dois = [pub["pid"]["url"] for pub in publications if "pid" in pub]
    assert dois and all(doi.startswith("https://doi.org/10.5555/") for doi in dois)  # the DOI test prefix
    assert any("pid" in pub and "text" not in pub["pid"] for pub in publications)
    for name in ("abstract", "alternativeNames", "dataPublicationYear", "imageCredit", "provenance"):
        assert any(name in p for p in values), name
    for name in ("additionalMaterial", "documentationMaterial"):
        assert any(isinstance(p.get(name), list) for p in values), name
    languages = {language for p in values for language in p["dataLanguage"]}
    assert languages >= {"de", "fr", "it", "rm", "la", "grc", "gsw"}
    assert {kind for p in values for kind in p["typeOfData"]} == {"Text", "Image", "XML", "Audio", "Video"}


def test_licences(projects: dict[str, dict[str, Any]]) -> None:
    licences = {info["license"]["licenseIdentifier"] for p in projects.values() for info in p["legalInfo"]}
    assert licences >= {"CC BY 4.0", "CC BY-NC 4.0", "CC BY-SA 4.0", "CC BY-NC-SA 4.0", "public domain", "MISSING"}
    assert any(not name.startswith(("CC ", "public", "MISSING")) for name in licences)
    assert any(len(p["legalInfo"]) > 1 for p in projects.values())


def test_attribution_roles(sample: Catalog) -> None:
    roles = [role for p in sample.projects for a in p.attributions for role in a.roles]
    assert {"Projektleitung", "Principal Investigator", "Editor", "Data curator", "Funder", "PI"} <= set(roles)
    assert "Project Leader, Data Collector" in roles
    assert any(len(a.roles) > 1 for p in sample.projects for a in p.attributions)
    assert any(a.contributor_id in sample.organizations for p in sample.projects for a in p.attributions)
    assert any(c in sample.organizations for p in sample.projects for c in p.contact_point_ids)
    assert any(len(projects) > 1 for projects in sample.projects_by_person.values())


def test_person_and_organization_identifiers(sample: Catalog) -> None:
    same_as = [ref for person in sample.persons.values() for ref in thaw(person.get("sameAs", ()))]
    orcids = [ref["url"].removeprefix("https://orcid.org/") for ref in same_as if ref["type"] == "ORCID"]
    assert len(orcids) >= 10 and all(orcid_is_valid(orcid) for orcid in orcids)
    # Invented iDs only, from a block ORCID has not issued: no real researcher is linked.
    assert all(orcid.startswith("0009-0099-") for orcid in orcids)
    assert any(ref["type"] == "GND" and ref["url"].startswith("http://d-nb.info/gnd/") for ref in same_as)
    assert any(len(person.affiliation_ids) > 1 for person in sample.persons.values())
    assert any(not person.affiliation_ids for person in sample.persons.values())
    rors = [
        ref["url"].removeprefix("https://ror.org/")
        for organization in sample.organizations.values()
        for ref in thaw(organization.get("sameAs", ()))
        if ref["type"] == "ROR"
    ]
    assert len(rors) >= 5 and all(ror_is_valid(ror) for ror in rors)
    addresses = [thaw(organization.get("address")) for organization in sample.organizations.values()]
    assert all({"street", "postalCode", "locality", "country"} <= set(address) for address in addresses)
    assert any("canton" in address for address in addresses)
    assert any("additional" in address for address in addresses)
    assert any(address["country"] != "Switzerland" for address in addresses)


def test_clusters_and_nested_collections(sample: Catalog) -> None:
    assert sorted(bool(cluster.get("pid")) for cluster in sample.clusters.values()) == [False, True]
    nested = [collection for collection in sample.collections.values() if collection.collection_ids]
    assert len(nested) == 1
    [child_id] = nested[0].collection_ids
    assert sample.parent_collections[child_id] == (nested[0],)
    assert all(collection.record_ids and collection.project_shortcodes for collection in sample.collections.values())


def test_record_shapes(sample: Catalog) -> None:
    assert max(len(table) for table in sample.records.values()) >= 1000
    assert len(sample.records) >= 6
    records = [record for _, record in all_records(sample)]
    assert {record["typeOfData"] for record in records} >= {"Text", "Image", "Audio", "Video", "Moving image"}
    assert any("dateModified" in record for record in records)
    assert any("dateModified" not in record for record in records)
    with_file = [record for record in records if "file" in record]
    assert with_file and len(with_file) < len(records)
    assert all(set(record["file"]) == {"mimeType", "url"} for record in with_file)
    assert {lang for record in records for lang in record["label"]} >= {"de", "en", "fr", "rm", "it", "tr"}
    assert any(record.get("description") for record in records)
    assert any(record["keywords"] for record in records)


def test_text_for_sanitising_and_accent_folding(sample: Catalog) -> None:
    """Exactly one description carries a character illegal in XML 1.0 (OAI must strip it)."""
    everything = [
        *(thaw(entity.raw) for entity in sample.projects),
        *(thaw(entity.raw) for entity in sample.persons.values()),
        *(thaw(entity.raw) for entity in sample.organizations.values()),
        *(thaw(entity.raw) for entity in sample.clusters.values()),
        *(thaw(entity.raw) for entity in sample.collections.values()),
        *(record for _, record in all_records(sample)),
    ]
    illegal = [text for entity in everything for text in strings(entity) if XML_ILLEGAL.search(text)]
    assert len(illegal) == 1
    assert illegal[0] in [text for p in sample.projects for _, text in language_items(p.get("description"))]
    names = [project.name for project in sample.projects]
    folded = [unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode() for name in names]
    assert "Lettres lemaniques" in folded and "Lettres lémaniques" in names


def test_committed_records_match_their_generator() -> None:
    """The record files are generated; the committed bytes must be exactly what the script writes."""
    generator = runpy.run_path(str(PROJECT_ROOT / "modules" / "svc" / "server" / "make_sample_records.py"))
    rendered = generator["render_all"](SAMPLE_DIR)
    committed = {path.name: path.read_text(encoding="utf-8") for path in (SAMPLE_DIR / "records").glob("*.json")}
    assert sorted(rendered) == sorted(committed)
    for name, text in rendered.items():
        assert text == committed[name], f"{name} differs from make_sample_records.py output: re-run the script"
