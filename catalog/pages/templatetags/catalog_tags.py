"""Template filters for the view models' shown values."""

from __future__ import annotations

import re

from django import template
from django.utils import formats, translation
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from catalog.domain.values import Link, language_name
from catalog.pages import languages, vocabulary

register = template.Library()


_SEPARATOR = re.compile(r"([/:])(?![/:])")
_URL = re.compile(r"(?:https?://|ark:/|urn:)[^\s<>\"]+")


def _breakable(escaped: str) -> str:
    # After the last of a run of separators: `https://` stays whole, `ark:/72163/` breaks after each `/`.
    return _SEPARATOR.sub(r"\1<wbr>", escaped)


@register.filter(is_safe=True)
def break_at_slashes(value: object) -> SafeString:
    """A URL or identifier, escaped, with a line-break opportunity after each `/` and `:` (and nowhere else)."""
    return mark_safe(_breakable(conditional_escape(str(value))))


@register.filter(is_safe=True)
def break_urls(value: object) -> SafeString:
    """A text, escaped, whose URLs and identifiers may break after `/` and `:`, so they never break mid-token."""
    escaped = conditional_escape(str(value))
    return mark_safe(_URL.sub(lambda match: _breakable(match.group(0)), escaped))


@register.filter(is_safe=True)
def shown(value: object) -> SafeString:
    """A Link as an anchor, a placeholder as its red marker, anything else escaped text."""
    if isinstance(value, Link):
        return format_html('<a href="{}">{}</a>', value.href, break_urls(value.text))
    # Placeholders are str with __html__ (the red marker): keep them as they are.
    return mark_safe(conditional_escape(value if isinstance(value, str) else str(value)))


@register.filter
def number(value: object) -> str:
    """A count grouped the interface language's way (4.198 in German, 4 198 in French).

    English keeps its plain digits (4198), as it showed them before the other languages came.
    """
    language = translation.get_language() or languages.DEFAULT
    if not isinstance(value, int) or language == languages.DEFAULT:
        return str(value)
    return formats.number_format(value, force_grouping=True)


@register.filter
def language_label(code: object) -> str:
    """A language code (`de`, `rm`) as its name in the interface language; a private-use or unknown code
    (`x-cpa`) as "Unlisted language (x-cpa)"."""
    name = language_name(str(code), translation.get_language() or languages.DEFAULT)
    if name == str(code):
        return translation.gettext("Unlisted language ({code})").format(code=code)
    return name


@register.filter
def translated(value: object) -> str:
    """A label held in a variable (a facet's, a sort's), in the interface language."""
    return translation.gettext(str(value))


@register.filter
def type_of_data(value: object) -> str:
    """A type of data in the interface language when the catalogues know it, else as stored."""
    return vocabulary.type_of_data_label(str(value)) or ""
