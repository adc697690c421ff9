"""The escaping writer of the XML formats: attributes, and the rule that the writers put no value in raw."""

from __future__ import annotations

import ast
import inspect

import pytest
from lxml import etree

from catalog.formats import datacite_xml, dublin_core_xml
from catalog.formats.xmltext import attribute, esc
from tests.unit.xml_hostile import CLEAN, HOSTILE


def test_an_attribute_value_is_escaped_and_read_back_as_given():
    element = etree.fromstring(f"<e{attribute('a', HOSTILE)}{attribute('b', 'plain')}/>")
    assert dict(element.attrib) == {"a": CLEAN, "b": "plain"}


@pytest.mark.parametrize("value", ["", None])
def test_an_empty_attribute_is_left_out(value):
    assert attribute("a", value) == ""


@pytest.mark.parametrize(
    "value",
    ["no-break\u00a0space", "soft\u00adhyphen", "\u2028separator", "\x7f\x85\x9f"],
)
def test_characters_legal_in_xml_but_not_printable_are_kept(value):
    element = etree.fromstring(f"<e{attribute('a', value)}>{esc(value)}</e>")
    assert (element.text, element.get("a")) == (value, value)


def _markup_values(module) -> list[str]:
    """Every value interpolated into an f-string of ``module`` that writes markup, as source text, unless it goes
    through esc() or attribute(), or is a tag name or a constant of the module."""
    allowed_calls = {"esc", "attribute"}

    def allowed(node: ast.expr) -> bool:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return node.func.id in allowed_calls
        if isinstance(node, ast.Name):
            return node.id == "name" or node.id.isupper()
        if isinstance(node, ast.IfExp):
            return allowed(node.body) and allowed(node.orelse)
        return isinstance(node, ast.Constant)

    raw = []
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if not isinstance(node, ast.JoinedStr):
            continue
        literal = "".join(part.value for part in node.values if isinstance(part, ast.Constant))
        if "<" not in literal and '="' not in literal:
            continue  # builds a value (escaped where it is written), not markup
        raw += [ast.unparse(part.value) for part in node.values if isinstance(part, ast.FormattedValue)]
    return [value for value in raw if not allowed(ast.parse(value, mode="eval").body)]


@pytest.mark.parametrize("module", [datacite_xml, dublin_core_xml])
def test_the_writers_put_every_value_into_markup_through_the_escaping(module):
    assert _markup_values(module) == []
