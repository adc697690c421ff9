"""Every view reads only the request inputs it declares, and the cache's key and ``Vary`` cover them (issue 25).

Responses are kept and replayed under a key derived from the view's
declaration (:mod:`catalog.web.response_cache`, docs/architecture.md "The
request path"). A view that read anything else would give one client's answer
to another. Each route of the URLconf is requested once with a request whose
environ records what the view reads (the language too, through Django's
``get_language``); the reads must fall within the view's declaration
(:func:`catalog.web.inputs.varies_on`), the key derived from that declaration
must change with each input read, and a header read must be named by the
response's ``Vary``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import translation

from catalog import runtime
from catalog.web import response_cache
from catalog.web.inputs import Input, Offers, declared_inputs, declared_offers, declared_parameters, inputs_of

BROWSER = {
    "HTTP_ACCEPT": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8",
    "HTTP_ACCEPT_LANGUAGE": "en-GB,en;q=0.9",  # English: unprefixed pages are answered, not redirected
    "HTTP_ACCEPT_ENCODING": "gzip, br",
    "HTTP_COOKIE": "other=1",
}


class RecordingEnviron(dict):
    """A WSGI environ that notes every key read from it."""

    def __init__(self, environ: dict[str, Any]) -> None:
        super().__init__(environ)
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self.read.add(str(key))
        return super().__contains__(key)


READS: dict[str, tuple[object, frozenset[str], str]] = {}


class Recorder:
    """Innermost middleware of the test: runs the view on a recording environ, notes what it read."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view, args, kwargs):
        environ = RecordingEnviron(request.META)
        request.META = request.environ = environ
        for parsed in ("GET", "COOKIES", "headers"):  # parsed before the view: parse again, from the recorder
            request.__dict__.pop(parsed, None)
        original = translation.get_language

        def get_language() -> str | None:
            caller = sys._getframe(1).f_globals.get("__name__", "")
            # Reversing a URL reads the language of every URL alike; `translation.override` reads it only to
            # put it back afterwards (the sitemap names every language's URL under each one in turn).
            if not caller.startswith(("django.urls", "django.utils.translation")):
                environ.read.add("LANGUAGE")
            return original()

        translation.get_language = get_language
        try:
            response = view(request, *args, **kwargs)
        finally:
            translation.get_language = original
        READS[request.path_info] = (view, frozenset(environ.read), response.get("Vary", ""))
        return response


def _routes(patterns, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.callback


def _samples() -> dict[str, str]:
    catalog = runtime.get_catalog()
    project = next(p for p in catalog.projects if catalog.records_of(p))
    table = catalog.records_of(project)
    samples = {
        "shortcode": project.key,
        "record_suffix": table.pids[0].rpartition("/")[2],
        "record": table.pids[0].rpartition("/")[2],
        "number": "1",
        "facet": "project",
        "rest": "nothing-here",
    }
    for kind in ("persons", "organizations", "clusters", "collections"):
        entities = getattr(catalog, kind)
        samples[kind] = next(iter(entities), "none")
    return samples


def _url(route: str, samples: dict[str, str]) -> str:
    route = route.replace("^", "").replace("$", "").replace("(?P<rest>.*)", "nothing-here")
    kind = route.split("/", 1)[0]

    def value(match: re.Match) -> str:
        name = match.group(1)
        if name in samples:
            return samples[name]
        if name in ("key", "entity_id") or name.endswith("_id"):
            return samples.get(kind.removeprefix("api/v2/").split("/")[0], samples.get(kind, "none"))
        return "x"

    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", value, route)


# Another value of each input, as a request would bring it: the key must change with it.
OTHER_VALUES = {
    Input.QUERY: {"QUERY_STRING": "other=1"},
    Input.ORIGIN: {"HTTP_HOST": "other.example"},
    Input.MEDIA_TYPE: {"HTTP_ACCEPT": "text/turtle"},
}


def _keyed(
    declared: frozenset[Input], path: str, parameters: frozenset[str] | None = None, offers: Offers | None = None
) -> frozenset[Input]:
    """The inputs the response cache's key (or the kept entry) changes with, for a route that declared ``declared``.

    The path is the key's always; the coding picks a form inside the entry; a form is never kept (POST).
    A view that reads no query parameter at all has none to key (``test_a_parameter_a_view_does_not_take…``
    checks that it ignores them); one that names some is keyed by the first.
    """
    meta = {"PATH_INFO": path, "QUERY_STRING": "", "HTTP_HOST": "testserver", "HTTP_ACCEPT": "text/html"}

    def key_of(changed: dict[str, str], language: str = "en") -> tuple:
        return response_cache.variant_key("v", path, declared, {**meta, **changed}, language, parameters, offers)

    key = key_of({})
    keyed = {Input.PATH, Input.CODING, Input.FORM}
    others = {**OTHER_VALUES, Input.QUERY: {"QUERY_STRING": f"{min(parameters)}=1" if parameters else "other=1"}}
    keyed |= {i for i, other in others.items() if key_of(other) != key}
    if parameters is not None and not parameters and Input.QUERY in declared:
        keyed.add(Input.QUERY)
    if key_of({}, "de") != key:
        keyed.add(Input.LANGUAGE)
    return frozenset(keyed)


@pytest.fixture
def recording(settings):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "tests.test_request_inputs.Recorder"]
    READS.clear()
    yield READS
    READS.clear()


@pytest.mark.slow
def test_every_route_reads_only_what_its_view_declares(client, recording):
    samples = _samples()
    routes = [route for route, _ in _routes(get_resolver().url_patterns)]
    undeclared, unknown, not_in_vary, not_keyed, undeclared_views = [], [], [], [], set()
    for route in routes:
        url = _url(route, samples)
        client.get(url, **BROWSER)
        if url not in recording:
            continue  # the view raised (a missing item): its 404 page is a view of its own
        view, read, vary = recording[url]
        declared = declared_inputs(view)
        parameters, offers = declared_parameters(view), declared_offers(view)
        if declared is None:
            undeclared_views.add(getattr(view, "__qualname__", type(view).__name__))
            continue
        found, strange = inputs_of(read - {"LANGUAGE"})
        found |= {Input.LANGUAGE} if "LANGUAGE" in read else set()
        if found - declared:
            undeclared.append((url, sorted(member.name for member in found - declared)))
        keyed = _keyed(declared, url, parameters, offers)
        if found - keyed:
            not_keyed.append((url, sorted(member.name for member in found - keyed)))
        if strange:
            unknown.append((url, sorted(strange)))
        named = {name.strip().lower() for name in vary.split(",")}
        # A header the view read must be in Vary; the coding is the wire middleware's own.
        missing = sorted(i.vary for i in found if i.vary and i is not Input.CODING and i.vary.lower() not in named)
        if missing:
            not_in_vary.append((url, missing))
    assert len(recording) >= len(routes) - 1, "every route's view ran (a sample sitemap page may be missing)"
    assert sorted(undeclared_views) == []
    assert undeclared == []
    assert unknown == []
    assert not_in_vary == []
    assert not_keyed == []


def test_the_recorder_sees_an_undeclared_read(client, recording):
    """The check can fail: a view reading a header it did not declare is caught."""
    from django.http import HttpResponse

    from catalog.web.inputs import varies_on

    @varies_on(Input.QUERY)
    def sneaky(request):
        return HttpResponse(request.META.get("HTTP_ACCEPT", ""))

    recorder = Recorder(lambda request: HttpResponse())
    request = client.get("/projects").wsgi_request
    request.__dict__.pop("svc_state", None)
    recorder.process_view(request, sneaky, (), {})
    view, read, _ = recording[request.path_info]
    found, _ = inputs_of(read)
    assert found - declared_inputs(view) == {Input.MEDIA_TYPE}


def test_the_key_check_sees_an_input_the_key_ignores():
    """The key check can fail: an input left out of the declaration is left out of the key."""
    assert _keyed(frozenset({Input.PATH}), "/projects") == {Input.PATH, Input.CODING, Input.FORM}
    every = frozenset({Input.PATH, Input.QUERY, Input.ORIGIN, Input.LANGUAGE, Input.MEDIA_TYPE})
    assert _keyed(every, "/projects") == frozenset(Input)


def test_a_parameter_a_view_does_not_take_changes_neither_its_key_nor_its_body(client):
    """Issue 39: a page, document or file that names its query parameters ignores any other (``utm_source``,
    a fresh ``zz`` per request), so the kept response answers it; the body rendered with one is the same bytes.

    Each route is rendered twice on an empty cache, with and without an unknown parameter (and with a
    parameter it reads, when it reads one, so that the language switch and the links carry both).
    """
    samples = _samples()
    compared = 0
    for route, view in _routes(get_resolver().url_patterns):
        parameters = declared_parameters(view)
        if parameters is None:
            continue  # the API and OAI-PMH refuse a parameter they do not take (400, badArgument)
        url = _url(route, samples)
        read = f"{min(parameters)}=" if parameters else ""
        bodies = []
        for query in (read, f"{read}&utm_source=x&zz=1" if read else "utm_source=x&zz=1"):
            runtime.configuration_changed()  # an empty response cache: each body is rendered
            response = client.get(f"{url}?{query}" if query else url, **{**BROWSER, "HTTP_ACCEPT_ENCODING": ""})
            bodies.append((response.status_code, b"".join(response) if response.streaming else response.content))
        assert bodies[0] == bodies[1], url
        key = response_cache.variant_key("v", url, declared_inputs(view), {"QUERY_STRING": read}, "en", parameters)
        unknown = {"QUERY_STRING": f"{read}&zz=1"}
        assert response_cache.variant_key("v", url, declared_inputs(view), unknown, "en", parameters) == key, url
        compared += 1
    assert compared > 20
