"""Template filters for the view models' shown values."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping

from django import template
from django.utils import formats, translation
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from catalog.domain.search import FacetResult, FacetValue
from catalog.domain.values import Link, language_name
from catalog.pages import languages, vocabulary
from catalog.pages.presenters import RecordRow

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
    return _number(value, _grouped())


def _grouped() -> bool:
    """Whether the interface language groups a count's digits (:func:`number`)."""
    return (translation.get_language() or languages.DEFAULT) != languages.DEFAULT


def _number(value: object, grouped: bool) -> str:
    return formats.number_format(value, force_grouping=True) if grouped and isinstance(value, int) else str(value)


def _escape(value: str) -> str:
    """``conditional_escape``, quicker for the plain strings that make most of a listing (same bytes)."""
    return html.escape(value) if type(value) is str else conditional_escape(value)


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


def facet_value_label(key: str, value: FacetValue) -> str:
    """What a listing shows for a facet's value: a language's name, a status or access translated, a type of data
    the catalogues know in the interface language, else its label as stored."""
    if key == "language":
        return language_label(value.value)
    if key in ("status", "access"):
        return translated(value.label)
    if key == "type":
        return type_of_data(value.label)
    return value.label


SHOWN_VALUES = 8  # a facet's first values; the rest behind "Show N more"
# The most values a facet with a page of its own writes (selected ones aside): at ten million records the project
# facet of `/records` has 1,400, some 310 KB of checkboxes no one reads through and 6 ms of a search; the rest are
# on the facet's page, linked at the end of "Show N more".
INLINE_VALUES = 50


def _written(facet: FacetResult, capped: bool) -> list[tuple[int, FacetValue]]:
    """The values a listing writes, with their place in the facet: all of them, or when ``capped`` the first
    :data:`INLINE_VALUES` and every selected one after them (a checkbox left out would drop it from the search)."""
    placed = enumerate(facet.values, 1)
    if not capped:
        return list(placed)
    return [(place, value) for place, value in placed if place <= INLINE_VALUES or value.selected]


@register.simple_tag
def facet_values(facet: FacetResult, form: str, facet_pages: Mapping[str, str] | None = None) -> SafeString:
    """A facet's values as checkboxes of the form ``form``, the first :data:`SHOWN_VALUES` in view.

    A facet that has a page of its own in ``facet_pages`` (facet key -> URL) writes :data:`INLINE_VALUES` values
    at most (and those selected), then links to that page.
    Written out here, not by a template loop: a listing's facets hold hundreds of values (a project each at a
    million records, thousands at ten million), and Django's template engine spends some 40 µs on each.
    """
    key, form, grouped = _escape(facet.key), _escape(form), _grouped()
    all_values_url = (facet_pages or {}).get(facet.key)
    capped = all_values_url is not None and len(facet.values) > INLINE_VALUES
    written = _written(facet, capped)
    parts = ["<ul>\n"]
    for shown, (place, value) in enumerate(written, 1):
        if shown == SHOWN_VALUES + 1:
            more = translation.gettext("Show %(count)s more") % {"count": len(written) - SHOWN_VALUES}
            opened = " open" if facet.selected_count else ""
            parts.append(f'</ul>\n<details class="more-values"{opened}><summary>{more}</summary>\n<ul>\n')
        checked = " checked" if value.selected else ""
        label = _escape(facet_value_label(facet.key, value))
        parts.append(
            f'<li><input type="checkbox" form="{form}" data-autosubmit id="f-{key}-{place}" '
            f'name="{key}" value="{_escape(value.value)}"{checked}> <label for="f-{key}-{place}">{label} '
            f'<span class="count">({_escape(_number(value.count, grouped))})</span></label></li>\n'
        )
    if capped:
        every = translation.gettext("All %(count)s values") % {"count": _number(len(facet.values), grouped)}
        link = f'<a href="{_escape(str(all_values_url))}">{_escape(every)}</a>'
        parts.append(f'</ul>\n<p class="all-values">{link}</p>\n</details>')
    else:
        parts.append("</ul>\n</details>" if len(facet.values) > SHOWN_VALUES else "</ul>")
    return mark_safe("".join(parts))


def _marked(parts: Iterable[tuple[str, bool]]) -> str:
    """Text pieces, escaped, those the search matched in ``<mark>``."""
    return "".join(f"<mark>{_escape(text)}</mark>" if hit else _escape(text) for text, hit in parts)


@register.simple_tag
def record_rows(rows: Iterable[RecordRow], show_project: object = False, show_identifier: object = False) -> SafeString:
    """The rows of a table of records (``_record_table.html``): label and snippet with their marks, the project,
    the identifier, type and date.

    Written out here, not by a template loop, for the reason of :func:`facet_values`: a records page lists 50.
    """
    project_label, identifier_label, type_label, published_label = (
        conditional_escape(translation.gettext(text)) for text in ("Project", "Identifier", "Type", "Published")
    )
    escape = _escape
    lines = []
    for row in rows:
        label = _marked(row.label_parts) if row.label_parts else escape(row.label)
        cells = [f'<tr><td><a href="{escape(row.url)}">{label}</a>']
        if row.snippet_parts:
            cells.append(f'<p class="snippet">{_marked(row.snippet_parts)}</p>')
        cells.append("</td>")
        if show_project:
            url, name = (row.project.url, row.project.name) if row.project is not None else ("", "")
            cells.append(f'<td data-label="{project_label}"><a href="{escape(url)}">{escape(name)}</a></td>')
        if show_identifier:
            cells.append(f'<td class="identifier" data-label="{identifier_label}">{escape(row.identifier)}</td>')
        cells.append(f'<td data-label="{type_label}">{escape(row.type_of_data or "")}</td>')
        cells.append(f'<td class="date" data-label="{published_label}">{escape(row.date or "")}</td></tr>\n')
        lines.append("".join(cells))
    return mark_safe("".join(lines))
