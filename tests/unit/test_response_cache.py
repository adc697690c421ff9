"""The response cache's rules (catalog.web.response_cache): key, Vary, Cache-Control and one entry per variant."""

from __future__ import annotations

import gc
import math
import sys
import tracemalloc

import pytest

from catalog.domain.memo import BytesLRU
from catalog.web import response_cache, wire
from catalog.web.inputs import Input, Offers
from catalog.web.response_cache import Policy, Variant

META = {
    "PATH_INFO": "/projects",
    "QUERY_STRING": "q=music",
    "wsgi.url_scheme": "https",
    "HTTP_HOST": "meta.example",
    "HTTP_ACCEPT": "text/turtle",
    "HTTP_ACCEPT_LANGUAGE": "de",
    "HTTP_COOKIE": "a=1",
}
EVERY = frozenset({Input.PATH, Input.QUERY, Input.ORIGIN, Input.LANGUAGE, Input.MEDIA_TYPE})


def _key(inputs, meta=META, language="de", version="v1"):
    return response_cache.variant_key(version, meta["PATH_INFO"], frozenset(inputs), meta, language)


@pytest.mark.parametrize(
    ("inputs", "changed"),
    [
        ({Input.QUERY}, {"QUERY_STRING": "q=art"}),
        ({Input.ORIGIN}, {"HTTP_HOST": "other.example"}),
        ({Input.ORIGIN}, {"wsgi.url_scheme": "http"}),
        ({Input.MEDIA_TYPE}, {"HTTP_ACCEPT": "text/html"}),
    ],
)
def test_a_declared_input_is_in_the_key_and_an_undeclared_one_is_not(inputs, changed):
    assert _key(inputs, {**META, **changed}) != _key(inputs)
    assert _key(set(), {**META, **changed}) == _key(set())


def test_the_language_counts_only_where_declared_and_the_data_version_always():
    assert _key({Input.LANGUAGE}, language="fr") != _key({Input.LANGUAGE}, language="de")
    assert _key(set(), language="fr") == _key(set(), language="de")
    assert _key(EVERY, version="v2") != _key(EVERY, version="v1")
    # The raw headers behind the language are not the key: the negotiated language is.
    assert _key({Input.LANGUAGE}, {**META, "HTTP_COOKIE": "b=2"}) == _key({Input.LANGUAGE})


@pytest.mark.parametrize(
    ("inputs", "negotiated", "compressible", "given", "expected"),
    [
        ((), False, False, None, None),
        ((), False, True, None, "Accept-Encoding"),
        ({Input.MEDIA_TYPE}, False, True, None, "Accept, Accept-Encoding"),
        ({Input.LANGUAGE}, True, False, None, "Accept-Language, Cookie"),
        ({Input.LANGUAGE}, False, True, None, "Accept-Encoding"),  # a prefixed URL names its language
        # What the view and the language middleware named comes first, as they named it.
        (EVERY, True, True, "Accept, Accept-Language, Cookie", "Accept, Accept-Language, Cookie, Accept-Encoding"),
        ({Input.MEDIA_TYPE}, False, False, "accept", "accept"),
        ((), False, False, "Origin", "Origin"),
    ],
)
def test_vary_names_the_headers_of_the_declared_inputs(inputs, negotiated, compressible, given, expected):
    assert (
        response_cache.vary(inputs, language_negotiated=negotiated, compressible=compressible, given=given) == expected
    )


def test_vary_star_is_never_shared():
    assert response_cache.shared(None) and response_cache.shared("Accept, Cookie")
    assert not response_cache.shared("Accept, *")


@pytest.mark.parametrize(
    ("status", "cacheable", "expected"),
    [
        (200, True, "long"),
        (200, False, "no-store"),
        (404, False, "short"),
        (308, False, "short"),
        (400, True, "no-store"),
    ],
)
def test_cache_control_by_status(status, cacheable, expected):
    assert Policy("long", "short").cache_control(status, cacheable) == expected


def _variant(body=b"x" * 5000, content_type="text/html; charset=utf-8"):
    headers = (("Content-Type", content_type), ("Content-Length", "5"), ("ETag", '"old"'), ("Vary", "Accept"))
    return Variant.of(headers, body, '"v1-tag"', math.inf, None)


def test_a_variant_keeps_the_headers_that_are_the_same_for_every_request():
    variant = _variant()
    assert variant.headers == (("Content-Type", "text/html; charset=utf-8"), ("Vary", "Accept"))
    assert variant.compressible
    assert not _variant(body=b"short").compressible
    assert not _variant(content_type="image/png").compressible


def test_compressed_forms_are_made_once_and_counted_in_the_entry():
    variant = _variant()
    plain = variant.cost()
    gz, made = variant.body_in("gzip")
    assert made and variant.body_in("gzip") == (gz, False)
    table_growth = sys.getsizeof(variant.coded) - sys.getsizeof({})  # the table of forms holds one now
    assert variant.cost() == plain + sys.getsizeof(gz) + table_growth
    assert variant.body_in(wire.IDENTITY) == (variant.body, False)


def test_find_uses_the_routes_declaration_and_the_replay_time():
    store = BytesLRU()
    inputs = frozenset({Input.PATH, Input.QUERY})
    variant = _variant()
    key = _key(inputs)
    assert response_cache.find(store, "v1", META, lambda: "de", 0.0) is None
    response_cache.keep(store, key, META["PATH_INFO"], response_cache.Route(inputs), variant)
    assert response_cache.find(store, "v1", META, lambda: pytest.fail("not declared"), 0.0) == (key, variant)
    assert response_cache.find(store, "v1", {**META, "QUERY_STRING": ""}, lambda: "de", 0.0) is None
    assert response_cache.find(store, "v2", META, lambda: "de", 0.0) is None
    variant.replay_until = 10.0
    assert response_cache.find(store, "v1", META, lambda: "de", 10.0) is None


def test_only_the_parameters_a_view_reads_are_in_the_key():
    """Issue 39: ``?zz=1``, ``?zz=2``… or ``utm_source`` find the kept response instead of rendering it again."""
    store = BytesLRU()
    inputs = frozenset({Input.PATH, Input.QUERY})
    route = response_cache.Route(inputs, frozenset({"page", "q"}))
    meta = {**META, "QUERY_STRING": "q=music&page=2"}
    key = response_cache.variant_key("v1", "/projects", inputs, meta, None, route.parameters)
    response_cache.keep(store, key, "/projects", route, _variant())
    for other in ("q=music&zz=1&page=2", "utm_source=news&q=music&page=2&fbclid=x", "q=music&page=2&"):
        assert response_cache.find(store, "v1", {**META, "QUERY_STRING": other}, lambda: "de", 0.0) is not None
    for changed in ("q=music&page=3", "q=music", "q=music&page=2&page=3", "page=2&q=music", "%71=art&page=2"):
        assert response_cache.find(store, "v1", {**META, "QUERY_STRING": changed}, lambda: "de", 0.0) is None


@pytest.mark.parametrize(
    ("header", "key"),
    [
        ("text/html, x/1", ("chosen", "text/html")),  # a fresh Accept per request that chooses the page: one entry
        ("text/html;q=0.9, x/2;q=0.1", ("chosen", "text/html")),
        (None, ("chosen", "text/html")),
        ("*/*", ("chosen", "text/html")),
        ("text/turtle", "text/turtle"),  # an export some of the route's URLs may not have: the header as sent
        ("image/png", "image/png"),  # nothing acceptable (406)
    ],
)
def test_a_negotiating_route_is_keyed_by_the_type_accept_chooses(header, key):
    offers = Offers(("text/html",), ("application/ld+json", "text/turtle"))
    assert response_cache.media_key(header, offers) == key
    assert response_cache.media_key(header, None) == header


def test_a_grown_entry_is_counted_once_at_its_new_size():
    store = BytesLRU()
    inputs = frozenset({Input.PATH})
    variant = _variant()
    key = _key(inputs)
    response_cache.keep(store, key, META["PATH_INFO"], response_cache.Route(inputs), variant)
    before, table = store.size, sys.getsizeof(variant.coded)
    variant.body_in("br")
    response_cache.grown(store, key, variant)
    assert store.size == before + sys.getsizeof(variant.coded["br"]) + sys.getsizeof(variant.coded) - table
    assert len(store) == 2  # the route's entry and the one variant


def _robots_for_hosts(store: BytesLRU, hosts: int) -> None:
    """Keep the robots.txt of ``hosts`` distinct origins as the site's middleware does: fresh objects each."""
    inputs = frozenset({Input.PATH, Input.QUERY, Input.ORIGIN})
    route = response_cache.Route(inputs, frozenset())
    for number in range(hosts):
        host = f"h{number}.example"
        meta = {"PATH_INFO": "/robots.txt", "QUERY_STRING": "", "wsgi.url_scheme": "http", "HTTP_HOST": host}
        body = f"User-agent: *\nAllow: /\nSitemap: http://{host}/sitemap.xml\n".encode()
        headers = [
            ("Content-Type", f"text/plain; charset={'utf-8'}"),
            ("Last-Modified", f"Sat, 28 Nov 2026 00:{number % 60:02d}:00 GMT"),
            ("Cache-Control", f"public, max-age={60}, stale-while-revalidate={600}"),
            ("X-Data-Version", f"v{1}"),
        ]
        variant = Variant.of(headers, body, wire.entity_tag("v1", body), math.inf, (len, f"robots{'.txt'}"))
        key = response_cache.variant_key("v1", meta["PATH_INFO"], inputs, meta, None, route.parameters)
        response_cache.keep(store, key, meta["PATH_INFO"], route, variant)


def _traced(fill) -> int:
    """Bytes still allocated after ``fill()``, by tracemalloc (the truth the accounting must not fall below)."""
    gc.collect()
    tracemalloc.start()
    try:
        fill()
        gc.collect()
        return tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()


def test_a_small_entry_counts_all_it_holds():
    """Issue 39: 80k ``Host`` headers on /robots.txt grew a worker by 50 MiB against a 16 MiB budget: each small
    entry was counted at a quarter of what it held (its body, not its tuples, table, lock and route)."""
    store = BytesLRU(max_bytes=64 * 1024 * 1024)
    traced = _traced(lambda: _robots_for_hosts(store, 3000))
    assert len(store) == 3001
    assert traced <= store.size <= 1.5 * traced, (traced, store.size)


@pytest.mark.slow
def test_small_entries_past_the_budget_hold_no_more_than_the_budget():
    store = BytesLRU(max_bytes=512 * 1024)
    traced = _traced(lambda: _robots_for_hosts(store, 6000))
    assert len(store) < 6000  # some were let go
    assert traced <= 1.1 * store.max_bytes, traced
