"""What a response depends on besides the data: each view declares the request inputs it reads.

A response is kept and replayed under a key derived from this declaration
(:mod:`catalog.web.response_cache`: the value of each declared input, and
``Vary`` from the same), so every input a view reads must be declared. Views
say which with :func:`varies_on`, naming the query parameters they read (a
parameter a page does not take is ignored, by the body and the key alike);
``tests/test_request_inputs.py`` runs every route with a request that records
what its view reads and fails on an input the view did not declare, the key
does not change with, or ``Vary`` does not name.
Framework-free: inputs are named by their WSGI environ keys (PEP 3333).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import unquote_plus

V = TypeVar("V", bound=Callable[..., object])


class Input(enum.Enum):
    """One kind of request input, with the environ keys it is read from and the ``Vary`` header that covers it."""

    PATH = ("PATH_INFO", "SCRIPT_NAME")
    QUERY = ("QUERY_STRING",)
    # The site's origin as the request names it (catalog.web.origin): absolute URLs in a body.
    ORIGIN = (
        "wsgi.url_scheme",
        "HTTP_HOST",
        "SERVER_NAME",
        "SERVER_PORT",
        "HTTP_X_FORWARDED_HOST",
        "HTTP_X_FORWARDED_PROTO",
        "HTTP_X_FORWARDED_PORT",
    )
    # The interface language: the URL prefix, else the cookie or Accept-Language (the language middleware).
    LANGUAGE = ("HTTP_ACCEPT_LANGUAGE", "HTTP_COOKIE")
    MEDIA_TYPE = ("HTTP_ACCEPT",)  # content negotiation
    CODING = ("HTTP_ACCEPT_ENCODING",)  # the wire middleware's, for every compressible response
    FORM = ("CONTENT_TYPE", "CONTENT_LENGTH", "wsgi.input")  # a POST's form body (OAI-PMH arguments)

    @property
    def vary(self) -> str | None:
        """The request header a response that reads this input names in ``Vary`` (None: the URL carries it)."""
        return _VARY.get(self)


_VARY = {Input.MEDIA_TYPE: "Accept", Input.CODING: "Accept-Encoding"}
# Read by the framework for every request, whatever the view: the method (GET and HEAD are answered alike,
# other methods are never kept) and the server's own facts.
IGNORED = frozenset({"REQUEST_METHOD", "SERVER_PROTOCOL", "REMOTE_ADDR", "wsgi.errors", "wsgi.multiprocess"})
_BY_KEY = {key: member for member in Input for key in member.value}
ATTRIBUTE = "varies_on"
PARAMETERS_ATTRIBUTE = "varies_on_query"
OFFERS_ATTRIBUTE = "varies_on_offers"


@dataclass(frozen=True, slots=True)
class Offers:
    """The media types a negotiating view offers: ``always`` on every URL of its route, ``sometimes`` on some.

    The response cache keys such a view by the type ``Accept`` chooses
    (:func:`catalog.web.accept.preferred`) when it is one offered always, so
    that two ``Accept`` headers choosing the same answer share one entry.
    """

    always: tuple[str, ...]
    sometimes: tuple[str, ...] = ()


def varies_on(*inputs: Input, query: Iterable[str] | None = None, offers: Offers | None = None) -> Callable[[V], V]:
    """Declare that the decorated view's response depends on ``inputs`` (the path always).

    ``query`` names the query parameters the view reads (``Input.QUERY`` is then
    implied): the view ignores any other, and so does the response's key. A view
    that declares ``Input.QUERY`` without names reads the whole query string (the
    API and OAI-PMH, which refuse a parameter they do not take). ``offers`` names
    the media types a negotiating view offers (``Input.MEDIA_TYPE`` is then implied).
    """
    declared = frozenset(
        (Input.PATH, *inputs, *((Input.QUERY,) if query is not None else ()), *((Input.MEDIA_TYPE,) if offers else ()))
    )
    parameters = frozenset(query) if query is not None else None

    def mark(view: V) -> V:
        setattr(view, ATTRIBUTE, declared)
        setattr(view, PARAMETERS_ATTRIBUTE, parameters)
        setattr(view, OFFERS_ATTRIBUTE, offers)
        return view

    return mark


def declared_inputs(view: object) -> frozenset[Input] | None:
    """What ``view`` declared (None: nothing; a class-based view declares on its class)."""
    found = getattr(view, ATTRIBUTE, None)
    return found if isinstance(found, frozenset) else None


def declared_parameters(view: object) -> frozenset[str] | None:
    """The query parameters ``view`` declared it reads (None: the whole query string, or no query at all)."""
    found = getattr(view, PARAMETERS_ATTRIBUTE, None)
    return found if isinstance(found, frozenset) else None


def declared_offers(view: object) -> Offers | None:
    """The media types ``view`` declared it negotiates among (None: it keys by the ``Accept`` header as sent)."""
    found = getattr(view, OFFERS_ATTRIBUTE, None)
    return found if isinstance(found, Offers) else None


def declared_query(query_string: str, parameters: frozenset[str] | None) -> str:
    """The part of a raw query string a view reads: the ``name=value`` fields of ``parameters``, in their order.

    The fields are kept as sent (no decoding of values), so two query strings
    give the same part only when the view reads the same values from both; a
    name is compared decoded (``%70age`` is ``page``), as the framework reads it.
    ``None`` keeps the whole string.
    """
    if parameters is None or not query_string:
        return query_string
    return "&".join(field for field in query_string.split("&") if unquote_plus(field.partition("=")[0]) in parameters)


def inputs_of(keys: Iterable[str]) -> tuple[frozenset[Input], frozenset[str]]:
    """The inputs environ ``keys`` belong to, and the keys that belong to none (and are not :data:`IGNORED`)."""
    found = {_BY_KEY[key] for key in keys if key in _BY_KEY}
    unknown = {key for key in keys if key not in _BY_KEY and key not in IGNORED}
    return frozenset(found), frozenset(unknown)
