"""catalog.web.inputs: the declared request inputs of a view, and which inputs environ keys belong to."""

from __future__ import annotations

import pytest

from catalog.web.inputs import Input, declared_inputs, declared_parameters, declared_query, inputs_of, varies_on


def test_a_declaration_always_includes_the_path():
    @varies_on(Input.QUERY, Input.MEDIA_TYPE)
    def view(request):
        return None

    assert declared_inputs(view) == {Input.PATH, Input.QUERY, Input.MEDIA_TYPE}


def test_an_undecorated_view_declares_nothing():
    assert declared_inputs(lambda request: None) is None


def test_a_class_declares_for_its_instances():
    @varies_on(Input.ORIGIN)
    class Feed:
        pass

    assert declared_inputs(Feed()) == {Input.PATH, Input.ORIGIN}


def test_environ_keys_map_to_inputs_and_strangers_are_named():
    found, unknown = inputs_of(
        ["PATH_INFO", "QUERY_STRING", "HTTP_HOST", "HTTP_ACCEPT", "HTTP_COOKIE", "REQUEST_METHOD", "HTTP_X_SECRET"]
    )
    assert found == {Input.PATH, Input.QUERY, Input.ORIGIN, Input.MEDIA_TYPE, Input.LANGUAGE}
    assert unknown == {"HTTP_X_SECRET"}


def test_only_negotiated_headers_need_a_vary():
    assert {member: member.vary for member in Input if member.vary} == {
        Input.MEDIA_TYPE: "Accept",
        Input.CODING: "Accept-Encoding",
    }


def test_naming_the_parameters_read_declares_the_query():
    @varies_on(Input.ORIGIN, query=("page", "q"))
    def view(request):
        return None

    @varies_on(Input.QUERY)
    def whole(request):
        return None

    assert declared_inputs(view) == {Input.PATH, Input.ORIGIN, Input.QUERY}
    assert declared_parameters(view) == {"page", "q"}
    assert declared_parameters(whole) is None


@pytest.mark.parametrize(
    ("query", "parameters", "part"),
    [
        ("page=2&zz=1&utm_source=x", {"page"}, "page=2"),
        ("zz=1&q=a+b&page=2&q=c", {"page", "q"}, "q=a+b&page=2&q=c"),  # values as sent, in their order
        ("%70age=2", {"page"}, "%70age=2"),  # the name compared decoded, as the framework reads it
        ("page", {"page"}, "page"),  # a name without a value is still read (an empty value)
        ("zz=1&&", {"page"}, ""),
        ("zz=1", set(), ""),
        ("zz=1&page=2", None, "zz=1&page=2"),  # no names: the whole query string
        ("", {"page"}, ""),
    ],
)
def test_the_declared_part_of_a_query(query, parameters, part):
    assert declared_query(query, None if parameters is None else frozenset(parameters)) == part
