"""catalog.web.inputs: the declared request inputs of a view, and which inputs environ keys belong to."""

from __future__ import annotations

from catalog.web.inputs import Input, declared_inputs, inputs_of, varies_on


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
