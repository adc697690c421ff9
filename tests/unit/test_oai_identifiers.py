"""OAI identifiers without a server: local ids from ARKs, record suffixes, the fallback year, the site's origin."""

from __future__ import annotations

from catalog.domain.model import Project, RecordTable, freeze
from catalog.publishing.oai_identifiers import (
    fallback_year,
    project_local_ids,
    record_suffix_of,
    shared_pid_prefix,
    site_url,
)

ARK = "https://ark.dasch.swiss/ark:/72163/1"


def project(shortcode: str, **fields) -> Project:
    raw = {"id": shortcode, "shortcode": shortcode, "name": "P", "status": "Finished", **fields}
    return Project.from_raw(freeze(raw))


def test_a_unique_ark_is_the_local_id_and_shared_or_missing_ones_fall_back_to_the_shortcode():
    projects = [
        project("0803", pid=f"{ARK}/0803"),
        project("0801a", pid=f"{ARK}/0801"),
        project("0801b", pid=f"{ARK}/0801"),
        project("0900", pid="MISSING"),
    ]
    assert project_local_ids(projects) == [
        "ark:/72163/1/0803",
        "ark:/72163/1/0801a",
        "ark:/72163/1/0801b",
        "ark:/72163/1/0900",
    ]


def test_a_derived_local_id_never_takes_one_an_ark_already_names():
    projects = [project("0801", pid=f"{ARK}/0900"), project("0900", pid=f"{ARK}/0900"), project("0801x")]
    # 0801 and 0900 share an ARK, so both derive theirs; 0801x has none.
    assert project_local_ids(projects) == ["ark:/72163/1/0801", "ark:/72163/1/0900", "ark:/72163/1/0801x"]


def test_the_fallback_year_is_the_projects_own_or_the_epochs():
    assert fallback_year(project("0803", startDate="2009-03-01")) == "2009"
    assert fallback_year(project("0803")) == "1970"


def test_records_share_the_most_common_prefix_and_others_carry_their_whole_pid():
    pids = [f"{ARK}/0803/a", f"{ARK}/0803/b", "https://elsewhere.org/x"]
    table = RecordTable.build("0803", [{"pid": pid, "id": pid} for pid in pids])
    prefix = shared_pid_prefix(table)
    assert prefix == f"{ARK}/0803/"
    assert record_suffix_of(prefix, f"{ARK}/0803/b") == "b"
    assert record_suffix_of(prefix, "https://elsewhere.org/x") == "~https%3A%2F%2Felsewhere.org%2Fx"
    assert shared_pid_prefix(None) == "/"


def test_the_site_is_the_origin_of_the_oai_base_url():
    assert site_url("https://meta.dasch.swiss/oai/v2?x=1") == "https://meta.dasch.swiss"
