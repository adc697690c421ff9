"""The interface language of the pages: Django's i18n, with the two rules this site adds (docs/languages.md).

One canonical URL per page and language: the pages are under ``i18n_patterns`` with
``prefix_default_language=False`` (svc_site/urls.py), so English pages are unprefixed
(`/projects`) and the others carry their code (`/de/projects`); Django's ``reverse``
under the active language writes every link to a page (:mod:`catalog.pages.page_links`,
``{% url %}`` in templates). :class:`LanguageMiddleware` is Django's ``LocaleMiddleware``
plus the switch to English and the redirect of an unprefixed page to the reader's
language. Machine surfaces (API, OAI-PMH, exports, sitemaps) are not pages: they are
never prefixed nor translated, and their answers do not depend on the language.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.middleware.locale import LocaleMiddleware
from django.urls import LocalePrefixPattern, ResolverMatch, URLResolver, get_resolver, reverse, translate_url
from django.utils import translation
from django.utils.cache import patch_vary_headers

from catalog.web.inputs import declared_parameters, declared_query

DEFAULT = "en"
# OpenGraph's locale of each interface language (language_TERRITORY): the repository is Swiss.
OG_LOCALES = {"en": "en_GB", "de": "de_CH", "fr": "fr_CH", "it": "it_CH"}
COOKIE_MAX_AGE = 365 * 24 * 3600
SAFE_METHODS = ("GET", "HEAD")


def codes() -> tuple[str, ...]:
    return tuple(code for code, _ in settings.LANGUAGES)


def sitemap_languages() -> tuple[tuple[str, str], ...]:
    """(hreflang, path prefix) of each interface language, for the sitemap's alternates: "" and "/de"."""
    prefixes = []
    for code in codes():
        with translation.override(code):
            prefixes.append((code, reverse("home").rstrip("/")))
    return tuple(prefixes)


def split_language(path: str) -> tuple[str | None, str]:
    """(`de`, `/projects`) for `/de/projects`; (None, path) for an unprefixed path (`/de-ch/…` is one)."""
    parts = path.split("/", 2)
    if len(parts) >= 2 and parts[1] in codes():
        return parts[1], "/" + (parts[2] if len(parts) == 3 else "")
    return None, path


def in_language(path: str, language: str) -> str:
    """Any path under a language's prefix, as ``i18n_patterns`` lays the pages out (the switch uses it)."""
    return path if language == DEFAULT else f"/{language}{path}"


def alternates(path: str) -> tuple[tuple[str, str], ...]:
    """(hreflang, URL) of the page at ``path`` (in the active language) in each language, then `x-default`.

    Django's ``translate_url`` resolves the path and reverses its route under each language; `x-default`
    is the unprefixed URL, which sends a reader to their language.
    """
    each = tuple((code, translate_url(path, code)) for code in codes())
    return (*each, ("x-default", dict(each)[DEFAULT]))


def _preferred(request: HttpRequest) -> str:
    """The cookie's language, else the best of Accept-Language, else English."""
    return translation.get_language_from_request(request, check_path=False)


class ToLanguage(HttpResponseRedirect):
    """302 from an unprefixed page to the same page in the reader's language.

    It varies on what chose the language and, having no content, names none (``Content-Language``).
    """


class LanguageMiddleware(LocaleMiddleware):
    """Django's LocaleMiddleware, and the rules it lacks when English is unprefixed (docs/languages.md).

    Django activates the language of the URL's prefix, or English without one. Besides:

    - `/en/…` is the switch to English: it sets the ``svc_language`` cookie and redirects to the
      unprefixed URL, so that a reader whose browser asks for German can stay in English;
    - an unprefixed page (GET or HEAD) asked for by a reader who prefers another language (cookie,
      else Accept-Language) is redirected to that language's URL before its view runs;
    - only pages say ``Content-Language``, and only an unprefixed page varies on
      ``Accept-Language, Cookie``: machine surfaces answer everyone alike.
    """

    def __init__(self, get_response: Any) -> None:
        super().__init__(get_response)
        # The pages are what the URLconf puts under i18n_patterns.
        self.pages = frozenset(
            name
            for entry in get_resolver().url_patterns
            if isinstance(entry, URLResolver) and isinstance(entry.pattern, LocalePrefixPattern)
            for name in _route_names(entry)
        )

    # MiddlewareMixin answers a response returned here; the stubs type Django's own as returning None.
    def process_request(self, request: HttpRequest) -> HttpResponse | None:  # type: ignore[override]
        language, rest = split_language(request.path_info)
        if language == DEFAULT:
            return _choose_english(request, rest)
        super().process_request(request)
        return None

    def process_view(self, request: HttpRequest, view: Any, args: Any, kwargs: Any) -> HttpResponse | None:
        match = self._negotiated(request)
        preferred = _preferred(request) if match is not None else DEFAULT
        if match is None or preferred == DEFAULT:
            return None
        # `/` shows the projects: a reader sent to another language goes straight there (one redirect).
        name, captured = ("projects", {}) if match.url_name == "home" else (match.view_name, match.kwargs)
        with translation.override(preferred):
            target = reverse(name, kwargs=captured)
        query = request.META.get("QUERY_STRING", "")
        return ToLanguage(f"{target}?{query}" if query else target)

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        try:
            prefixed, _ = split_language(request.path_info)
            if isinstance(response, ToLanguage):
                patch_vary_headers(response, ("Accept-Language", "Cookie"))
            elif (prefixed is not None and prefixed != DEFAULT) or self._negotiated(request):
                # Django's own: Content-Language, and Vary: Accept-Language when the URL has no prefix.
                response = super().process_response(request, response)
                if not prefixed:
                    patch_vary_headers(response, ("Cookie",))
            return response
        finally:
            translation.deactivate()  # the request's language ends with it

    def _negotiated(self, request: HttpRequest) -> ResolverMatch | None:
        """The route of a page named without a language prefix, by a method that reads it; else None."""
        match = request.resolver_match
        if match is None or match.url_name not in self.pages or request.method not in SAFE_METHODS:
            return None
        return match if split_language(request.path_info)[0] is None else None


def _route_names(resolver: URLResolver) -> Iterator[str]:
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            yield from _route_names(entry)
        elif entry.name:
            yield entry.name


def _choose_english(request: HttpRequest, rest: str) -> HttpResponse:
    """`/en/…`: remember English, then the unprefixed page (never another host: `/en//example.org`)."""
    query = request.META.get("QUERY_STRING", "")
    response = HttpResponseRedirect("/" + rest.lstrip("/\\") + (f"?{query}" if query else ""))
    response.set_cookie(settings.LANGUAGE_COOKIE_NAME, DEFAULT, max_age=COOKIE_MAX_AGE, samesite="Lax")
    response["Cache-Control"] = "no-store"
    return response


def context(request: HttpRequest) -> dict[str, Any]:
    """The language switch (this page in every language, query kept) and the OpenGraph locales."""
    language = translation.get_language() or DEFAULT
    _, rest = split_language(request.path_info)
    # The parameters the page reads: one it ignores is left out, so that the page is the same without it.
    match = request.resolver_match
    read = declared_parameters(match.func) if match is not None else None
    query = declared_query(request.META.get("QUERY_STRING", ""), read)
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
        "og_locale": OG_LOCALES[language],
        "og_locale_alternates": [OG_LOCALES[code] for code in codes() if code != language],
    }
