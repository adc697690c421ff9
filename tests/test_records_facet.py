"""`/records/facets/<key>`: every value of a facet of `/records` for a search, and `/records`' link to it."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from catalog.domain import all_records
from catalog.pages.templatetags.catalog_tags import INLINE_VALUES
from tests import datadir
from tests.conftest import SAMPLE_DIR, Server, start_server, stop_server, tree_of
from tests.http_support import fetch, head_and_get, same_headers

pytestmark = pytest.mark.usefixtures("static_assets")

CREATORS = 130  # more than INLINE_VALUES and than one page of the facet (100)
SEARCH = {"q": "plan", "type": "Image"}


def creator(number: int) -> str:
    return f"Author {number:03}"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    """Two projects whose records name 130 creators, author n on 1 to 3 records (so counts tie and differ)."""
    records: dict[str, list[dict]] = {"0C10": [], "0C11": []}
    for number in range(1, CREATORS + 1):
        for copy in range(1 + number % 3):
            shortcode = "0C10" if copy % 2 == 0 else "0C11"
            records[shortcode].append(
                datadir.record(
                    shortcode,
                    f"r{number}-{copy}",
                    label="Site plan",
                    typeOfData="Image" if copy < 2 else "Text",
                    legalInfo=[{"authorship": [creator(number)]}],
                )
            )
    projects = [datadir.project("0C10"), datadir.project("0C11")]
    return datadir.write_data_dir(tmp_path_factory.mktemp("facets"), projects=projects, records=records)


@pytest.fixture
def catalog(install_catalog, data_dir):
    return install_catalog(data_dir)


def listed(tree) -> list[tuple[str, str, str]]:
    """(label, count, link) of each value a facet page lists."""
    return [
        (item.xpath("string(a/strong)") or item.xpath("string(a)"), item.xpath("string(span[@class='count'])"), href)
        for item in tree.xpath("//ul[contains(@class, 'facet-values')]/li")
        for href in item.xpath("a/@href")
    ]


def test_the_values_and_counts_are_those_of_the_records_facet(client, catalog):
    query = all_records.AllRecordsQuery.from_params({key: [value] for key, value in SEARCH.items()})
    expected = next(facet for facet in all_records.search_catalog(catalog, query).facets if facet.key == "creator")
    assert len(expected.values) == CREATORS
    pages = [tree_of(client.get("/records/facets/creator?" + urlencode({**SEARCH, "page": n}))) for n in (1, 2)]
    shown = [(label, count) for tree in pages for label, count, _ in listed(tree)]
    assert shown == [(value.label, str(value.count)) for value in expected.values]
    assert [len(listed(tree)) for tree in pages] == [100, CREATORS - 100]
    records = tree_of(client.get("/records?" + urlencode(SEARCH)))
    boxes = records.xpath("//input[@name='creator']")
    written = [(box.get("value"), box.getparent().xpath("string(label/span[@class='count'])")) for box in boxes]
    assert written == [(label, f"({count})") for label, count in shown[:INLINE_VALUES]]


def test_records_links_every_value_from_the_capped_facet(client, catalog):
    tree = tree_of(client.get("/records?" + urlencode({**SEARCH, "sort": "newest", "page": "1"})))
    creators = tree.xpath("//fieldset[input[@name='creator'] or .//input[@name='creator']]")[0]
    assert creators.xpath(".//details/p[@class='all-values']/a/@href") == [
        "/records/facets/creator?q=plan&type=Image&sort=newest"
    ]
    assert creators.xpath("string(.//p[@class='all-values']/a)") == f"All {CREATORS} values"
    assert not tree.xpath("//fieldset[.//input[@name='type']]//p[@class='all-values']")  # two values: no link


def test_a_value_selected_beyond_the_cap_stays_checked_on_records(client, catalog):
    last = tree_of(client.get("/records/facets/creator?" + urlencode({**SEARCH, "page": 2})))
    label, _, _ = listed(last)[-1]
    tree = tree_of(client.get("/records?" + urlencode({**SEARCH, "creator": label})))
    assert tree.xpath(f"//input[@name='creator'][@value='{label}']/@checked") == ["checked"]
    assert len(tree.xpath("//input[@name='creator']")) == INLINE_VALUES + 1


def test_each_value_links_to_the_search_with_it_selected_or_without_it(client, catalog):
    tree = tree_of(client.get("/records/facets/creator?" + urlencode({**SEARCH, "creator": creator(5)})))
    links = {label: href for label, _, href in listed(tree)}
    assert links[creator(5)] == "/records?q=plan&type=Image"
    assert links[creator(7)] == "/records?" + urlencode({**SEARCH, "creator": [creator(5), creator(7)]}, doseq=True)
    assert tree.xpath("//li[a/strong]/a/strong/text()") == [creator(5)]  # the selected value, shown so
    assert tree.xpath("//a[.='Back to the records']/@href") == ["/records?q=plan&type=Image&creator=Author+005"]


def test_the_page_names_the_facet_and_stays_out_of_search_engines(client, catalog):
    tree = tree_of(client.get("/records/facets/project"))
    assert tree.xpath("//h1/text()") == ["Project — all values"]
    assert tree.xpath("//title/text()")[0].startswith("Project — all values · ")
    assert tree.xpath("//meta[@name='robots']/@content") == ["noindex, follow"]
    assert [label for label, _, _ in listed(tree)] == [f"Lake Dwellings of the Jura {c}" for c in ("0C10", "0C11")]
    german = tree_of(client.get("/de/records/facets/year"))
    assert german.xpath("//h1/text()") == ["Jahr — alle Werte"]


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/records/facets/colour", 404),
        ("/records/facets/creator?page=3", 404),
        ("/records/facets/creator?page=2", 200),
        ("/records/facets/year?q=nothingmatches&page=2", 404),
        ("/records/facets/creator?sort=random", 400),
    ],
)
def test_an_unknown_facet_or_a_page_past_the_end_is_not_found(client, catalog, path, status):
    assert client.get(path).status_code == status


@pytest.fixture(scope="module")
def served() -> Iterator[Server]:
    """A real `svc serve` of the sample data: what a browser meets over a socket."""
    running = start_server(SAMPLE_DIR, {"SVC_WORKERS": "1"})
    yield running
    stop_server(running)


def test_over_a_socket_the_page_answers_head_gzip_and_its_errors_as_the_listings_do(served: Server):
    head, get = head_and_get(served.base_url, "/records/facets/project?q=plan")
    assert (head.status, get.status) == (200, 200) and head.body == b"" and same_headers(head, get)
    assert head.headers["content-length"] == str(len(get.body)) and "Accept-Encoding" in get.headers["vary"]
    zipped = fetch(served.base_url, "/records/facets/project?q=plan", headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip" and gzip.decompress(zipped.body) == get.body
    assert [
        fetch(served.base_url, path).status for path in ("/records/facets/colour", "/records/facets/type?sort=x")
    ] == [
        404,
        400,
    ]
