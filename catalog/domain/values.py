"""Turning stored values into what a page may show.

The stored JSON mixes language maps, reference objects (``{type, url, text}``),
plain strings and the placeholders ``MISSING``/``CALCULATED``. Everything a
page displays goes through :class:`Values`, which applies one rule: a
placeholder is hidden, or — with ``SVC_SHOW_PLACEHOLDER_VALUES`` — shown as a
red marker, but never becomes a link, a date or a URL.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import TypeGuard
from urllib.parse import urlsplit

import langcodes
from langcodes.tag_parser import LanguageTagError

from catalog.domain.model import (
    PREFERRED_LANGUAGES,
    Frozen,
    Project,
    is_placeholder,
    language_items,
    pick_language,
)

# Names of the data languages the catalogue uses (BCP 47 primary subtags); an
# unknown code is shown as it is.


@lru_cache(maxsize=4096)
def language_name(code: str, in_language: str = "en") -> str:
    """The name of a BCP 47 tag in a language ("cop" -> "Coptic", "de-CH" -> "German (Switzerland)",
    in "de": "Deutsch (Schweiz)"), from the CLDR data of ``langcodes``; the code itself when the tag
    is not valid or names no known language."""
    try:
        language = langcodes.Language.get(code)
    except (LanguageTagError, ValueError):
        return code
    if not language.language or language.language == "und" or not language.is_valid():
        return code
    if language.display_name("en").startswith("Unknown language"):
        return code
    name = language.display_name(in_language)
    return name[:1].upper() + name[1:]  # CLDR writes French and Italian names in lower case


class Placeholder(str):
    """A placeholder shown on purpose: renders as a red marker in templates."""

    def __html__(self) -> str:
        # The value is one of the fixed placeholder words: nothing to escape.
        return f'<span class="placeholder">{self}</span>'


@dataclass(frozen=True, slots=True)
class Link:
    href: str
    text: str


Shown = str | Link | None


def is_http_url(value: object) -> TypeGuard[str]:
    if not isinstance(value, str) or is_placeholder(value):
        return False
    parts = urlsplit(value.strip())
    return parts.scheme in {"http", "https"} and bool(parts.netloc)


def stored_strings(value: Frozen) -> tuple[str, ...]:
    """A stored list of strings (or one string) as a tuple of strings."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, tuple):
        return tuple(item for item in value if isinstance(item, str))
    return ()


def stored_list(value: Frozen) -> tuple[Frozen, ...]:
    """A stored list as a tuple: frozen (a project's) or parsed JSON (a record's, read on demand)."""
    if isinstance(value, tuple):
        return value
    if isinstance(value, list):
        return tuple(value)
    return () if value is None else (value,)


def language_order(value: Frozen, language: str) -> list[tuple[str | None, str]]:
    """The (language, text) pairs of a text, the reader's language first, else English, else as stored."""
    pairs = list(language_items(value))
    rank = {language: 0, "en": 1}
    return sorted(pairs, key=lambda pair: rank.get(pair[0] or "", 2))


class Values:
    """The display rules, for one setting of ``show_placeholders`` and one reader's language.

    ``format_date`` shows a full date (YYYY-MM-DD) the reader's way; partial dates stay as stored.
    """

    def __init__(
        self, show_placeholders: bool, language: str = "en", format_date: Callable[[date], str] | None = None
    ) -> None:
        self.show_placeholders = show_placeholders
        self.language = language
        self.format_date = format_date

    def placeholder(self, value: str) -> Placeholder | None:
        return Placeholder(value) if self.show_placeholders else None

    def text(self, value: Frozen) -> str | None:
        """A plain or language-map text; None when there is nothing to show."""
        if is_placeholder(value):
            return self.placeholder(value)
        if isinstance(value, Mapping):
            value = pick_language(value, (self.language, *PREFERRED_LANGUAGES))
            if is_placeholder(value):
                return self.placeholder(value)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            text = str(value).strip()
            return text or None
        return None

    def texts(self, values: Frozen) -> list[str]:
        return [shown for value in stored_list(values) if (shown := self.text(value))]

    def language_texts(self, value: Frozen) -> list[tuple[str | None, str]]:
        """Every language version of a text, as (language, text) pairs, the reader's language first."""
        if is_placeholder(value):
            shown = self.placeholder(value)
            return [(None, shown)] if shown else []
        pairs: list[tuple[str | None, str]] = []
        for language, text in language_order(value, self.language):
            if is_placeholder(text):
                shown = self.placeholder(text)
                if shown:
                    pairs.append((language, shown))
            else:
                pairs.append((language, text))
        return pairs

    def url(self, value: Frozen) -> str | None:
        """A URL to link to, or None (never a placeholder)."""
        return value.strip() if is_http_url(value) else None

    def link(self, url: Frozen, text: Frozen = None) -> Shown:
        """A link when the URL is usable, else the text (or a shown placeholder)."""
        href = self.url(url)
        label = self.text(text) if text is not None else None
        if href:
            return Link(href, label if label and not isinstance(label, Placeholder) else href)
        if label:
            return label
        return self.placeholder(url) if is_placeholder(url) else None

    def reference(self, value: Frozen) -> Shown:
        """A reference object ``{type, url, text}``, a language map or a plain string."""
        if isinstance(value, Mapping) and ("url" in value or "text" in value):
            return self.link(value.get("url"), value.get("text"))
        if isinstance(value, str) and is_http_url(value):
            return Link(value.strip(), value.strip())
        return self.text(value)

    def references(self, values: Frozen) -> list[Shown]:
        return [shown for value in stored_list(values) if (shown := self.reference(value))]

    def date(self, value: Frozen) -> str | None:
        """An ISO date or timestamp shown as its date part (YYYY-MM-DD)."""
        if is_placeholder(value):
            return self.placeholder(value)
        if not isinstance(value, str) or not value.strip():
            return None
        text = value.strip()
        if not (len(text) >= 10 and text[4] == "-" and text[7] == "-"):
            return text
        if self.format_date is not None:
            try:
                return self.format_date(date.fromisoformat(text[:10]))
            except ValueError:
                pass
        return text[:10]


_CC_DEED_RE = re.compile(
    r"^https?://(?:www\.)?creativecommons\.org/(licenses/[a-z-]+/\d\.\d(?:/[a-z]{2})?|publicdomain/zero/1\.0)"
    r"(?:/(?:deed\.[a-z_-]+|legalcode(?:\.[a-z_-]+)?)?)?/?$",
    re.IGNORECASE,
)


def canonical_licence_uri(uri: str) -> str:
    """One URI per licence: a Creative Commons licence as ``https://creativecommons.org/…/4.0/``.

    The data writes the same licence with and without the trailing slash, over http, and as a
    language's deed (``…/deed.de``); every surface names it by this one form. Other URIs stay as given.
    """
    text = uri.strip()
    match = _CC_DEED_RE.match(text)
    return f"https://creativecommons.org/{match.group(1).lower()}/" if match else text


_CC_PATH = re.compile(r"creativecommons\.org/(?:licenses/([a-z-]+)|publicdomain/(zero))/(\d\.\d)/(?:([a-z]{2})/)?$")


def licence_label(value: str) -> str:
    """A licence as people name it: "CC BY-NC 4.0", "CC0 1.0", "CC BY-SA 3.0 CH"; another value as it is."""
    match = _CC_PATH.search(value)
    if not match:
        return value
    elements, zero, version, port = match.groups()
    name = "CC0" if zero else "CC " + elements.upper()
    return f"{name} {version}" + (f" {port.upper()}" if port else "")


def shorten(text: str, length: int) -> str:
    """Cut a text at a word boundary, marking the cut with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= length:
        return text
    cut = text[: length - 1].rsplit(" ", 1)[0].rstrip(" ,;:.")
    return cut + "…"


def access_right(project: Project) -> tuple[Frozen, Frozen]:
    """The access right and embargo date of a project (either may be missing)."""
    value = project.get("accessRights")
    if isinstance(value, Mapping):
        return value.get("accessRights"), value.get("embargoDate")
    return value, None


def project_urls(project: Project, values: Values) -> tuple[Shown, Shown]:
    """The data link and the website link: a reference object or the legacy ``[data, website]`` array."""
    stored = project.get("url")
    if isinstance(stored, tuple):
        data = values.reference(stored[0]) if len(stored) > 0 else None
        website = values.reference(stored[1]) if len(stored) > 1 else None
    else:
        data, website = values.reference(stored) if stored is not None else None, None
    return data, website
