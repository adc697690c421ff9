"""The interface language of the pages: from the URL prefix, then a cookie or Accept-Language, then English.

One canonical URL per page and language: English pages are unprefixed (`/projects`),
the others carry their code (`/de/projects`). An unprefixed page asked for by a
reader who prefers German (cookie, else Accept-Language) is redirected to its
`/de/` URL (302, ``Vary: Accept-Language, Cookie``); `/en/…` sets the cookie to
English and redirects to the unprefixed page, so the switch can go back to
English for a reader whose browser asks for German. Machine surfaces (API,
OAI-PMH, exports, sitemaps) are not pages: they are never prefixed nor translated.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.cache import patch_vary_headers

DEFAULT = "en"
# OpenGraph's locale of each interface language (language_TERRITORY): the repository is Swiss.
OG_LOCALES = {"en": "en_GB", "de": "de_CH", "fr": "fr_CH", "it": "it_CH"}
HOME = "/projects"  # what `/` shows: a reader sent to another language goes straight there (one redirect)
COOKIE_MAX_AGE = 365 * 24 * 3600


def codes() -> tuple[str, ...]:
    return tuple(code for code, _ in settings.LANGUAGES)


def sitemap_languages() -> tuple[tuple[str, str], ...]:
    """(hreflang, path prefix) of each interface language, for the sitemap's alternates."""
    return tuple((code, in_language("", code)) for code in codes())


def split_language(path: str) -> tuple[str | None, str]:
    """(`de`, `/projects`) for `/de/projects`; (None, path) for an unprefixed path."""
    parts = path.split("/", 2)
    if len(parts) >= 2 and parts[1] in codes():
        return parts[1], "/" + (parts[2] if len(parts) == 3 else "")
    return None, path


def in_language(path: str, language: str) -> str:
    """The page's path in a language: English unprefixed, the others under their code."""
    return path if language == DEFAULT else f"/{language}{path}"


def is_page(path: str) -> bool:
    """Whether an unprefixed path names a translated page (not the API, OAI-PMH or an export)."""
    return _is_page_path(urlsplit(path).path)


@functools.lru_cache(maxsize=4096)
def _is_page_path(plain: str) -> bool:
    # Resolving walks the whole URLconf; the answer for a path never changes while the process runs.
    with translation.override("de"):
        try:
            resolve(in_language(plain, "de"))
        except Resolver404:
            return False
    return True


_LINK = re.compile(r'\b(href|action)="(/[^"/][^"]*|/)"')


def localize_links(html: str, language: str) -> str:
    """Points the page's own links (``href="/…"``, form actions) at the pages in ``language``."""
    if language == DEFAULT:
        return html

    def prefixed(match: re.Match[str]) -> str:
        attribute, url = match.groups()
        return f'{attribute}="{in_language(url, language)}"' if is_page(url) else match.group(0)

    return _LINK.sub(prefixed, html)


def _preferred(request: HttpRequest) -> str:
    """The cookie's language, else the best of Accept-Language, else English."""
    return translation.get_language_from_request(request, check_path=False)


class LanguageMiddleware:
    """Activates the language of the URL; redirects unprefixed pages to the reader's language."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language, rest = split_language(request.path_info)
        query = request.META.get("QUERY_STRING", "")
        suffix = f"?{query}" if query else ""
        if language == DEFAULT:
            # One leading slash: `/en//example.org` must not become a redirect to another host.
            response: HttpResponse = HttpResponseRedirect("/" + rest.lstrip("/\\") + suffix)
            response.set_cookie(settings.LANGUAGE_COOKIE_NAME, DEFAULT, max_age=COOKIE_MAX_AGE, samesite="Lax")
            response["Cache-Control"] = "no-store"
            return response
        negotiated = language is None and request.method in ("GET", "HEAD") and is_page(rest)
        if negotiated:
            preferred = _preferred(request)
            if preferred != DEFAULT:
                target = HOME if rest == "/" else rest
                response = HttpResponseRedirect(in_language(target, preferred) + suffix)
                patch_vary_headers(response, ("Accept-Language", "Cookie"))
                return response
        active = language or DEFAULT
        translation.activate(active)
        request.LANGUAGE_CODE = active
        try:
            response = self.get_response(request)
        finally:
            translation.deactivate()
        if negotiated:
            patch_vary_headers(response, ("Accept-Language", "Cookie"))
        if language is not None or negotiated:
            response.headers.setdefault("Content-Language", active)
        return response


def context(request: HttpRequest) -> dict[str, Any]:
    """The language switch (this page in every language, query kept) and the hreflang codes."""
    language = translation.get_language() or DEFAULT
    _, rest = split_language(request.path_info)
    query = request.META.get("QUERY_STRING", "")
    suffix = f"?{query}" if query else ""
    names = dict(settings.LANGUAGES)
    switch = [
        # English goes through /en/ so that it sticks for a reader whose browser asks for another language.
        (code, names[code], f"/en{rest}{suffix}" if code == DEFAULT else in_language(rest, code) + suffix)
        for code in codes()
    ]
    return {
        "language": language,
        "language_switch": switch,
        "language_codes": codes(),
        "og_locale": OG_LOCALES[language],
        "og_locale_alternates": [OG_LOCALES[code] for code in codes() if code != language],
    }
