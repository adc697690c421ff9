"""Turning stored values into what a page may show.

The stored JSON mixes language maps, reference objects (``{type, url, text}``),
plain strings and the placeholders ``MISSING``/``CALCULATED``. Everything a
page displays goes through :class:`Values`, which applies one rule: a
placeholder is hidden, or — with ``SVC_SHOW_PLACEHOLDER_VALUES`` — shown as a
red marker, but never becomes a link, a date or a URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeGuard
from urllib.parse import urlsplit

from catalog.domain.model import Frozen, Project, is_placeholder, language_items, pick_language

# Names of the data languages the catalogue uses (BCP 47 primary subtags); an
# unknown code is shown as it is.
LANGUAGE_NAMES = {
    "ar": "Arabic",
    "cs": "Czech",
    "de": "German",
    "el": "Greek",
    "en": "English",
    "es": "Spanish",
    "fa": "Persian",
    "fr": "French",
    "gsw": "Swiss German",
    "grc": "Ancient Greek",
    "he": "Hebrew",
    "hu": "Hungarian",
    "it": "Italian",
    "ja": "Japanese",
    "la": "Latin",
    "nl": "Dutch",
    "pl": "Polish",
    "pt": "Portuguese",
    "rm": "Romansh",
    "ru": "Russian",
    "sa": "Sanskrit",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "zh": "Chinese",
}


def language_name(code: str) -> str:
    primary = code.split("-")[0].lower()
    name = LANGUAGE_NAMES.get(primary)
    return f"{name} ({code})" if name and primary != code.lower() else name or code


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
    if isinstance(value, tuple):
        return value
    return () if value is None else (value,)


class Values:
    """The display rules, for one setting of ``show_placeholders``."""

    def __init__(self, show_placeholders: bool) -> None:
        self.show_placeholders = show_placeholders

    def placeholder(self, value: str) -> Placeholder | None:
        return Placeholder(value) if self.show_placeholders else None

    def text(self, value: Frozen) -> str | None:
        """A plain or language-map text; None when there is nothing to show."""
        if is_placeholder(value):
            return self.placeholder(value)
        if isinstance(value, Mapping):
            value = pick_language(value)
            if is_placeholder(value):
                return self.placeholder(value)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            text = str(value).strip()
            return text or None
        return None

    def texts(self, values: Frozen) -> list[str]:
        return [shown for value in stored_list(values) if (shown := self.text(value))]

    def language_texts(self, value: Frozen) -> list[tuple[str | None, str]]:
        """Every language version of a text, as (language, text) pairs."""
        if is_placeholder(value):
            shown = self.placeholder(value)
            return [(None, shown)] if shown else []
        pairs: list[tuple[str | None, str]] = []
        for language, text in language_items(value):
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
        return text[:10] if len(text) >= 10 and text[4] == "-" and text[7] == "-" else text


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
