"""The OAI-PMH endpoint: read the arguments (bounded), answer with :mod:`oaipmh.protocol`.

Per-client limits come first, in :mod:`oaipmh.middleware`.
"""

from __future__ import annotations

import calendar
import time

from django.conf import settings
from django.core.exceptions import TooManyFieldsSent
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, QueryDict
from django.views.decorators.csrf import csrf_exempt

from catalog import runtime
from catalog.domain.model import Catalog
from catalog.publishing.oai_identifiers import site_url
from catalog.runtime import catalog_of, get_catalog
from catalog.web import wire
from catalog.web.inputs import Input, varies_on
from catalog.web.response_cache import mark_cacheable
from oaipmh import protocol
from oaipmh.repository import repository_for

CONTENT_TYPE = "text/xml; charset=utf-8"


def oai_settings() -> protocol.OaiSettings:
    """The protocol's settings, read once from the configuration."""
    config = settings.SVC
    return protocol.OaiSettings(
        base_url=config.oai_base_url,
        repository_name=config.oai_repository_name,
        admin_email=config.oai_admin_email,
        repository_identifier=config.oai_repository_identifier,
        page_size=config.oai_page_size,
    )


def warm_up() -> None:
    """Build the OAI view of the catalogue before workers fork, so they share it and none pays for it."""
    config = settings.SVC
    repository_for(get_catalog(), config.oai_repository_identifier, site_url(config.oai_base_url))


# OAI-PMH arguments fit in a few hundred bytes; the limit leaves room for long identifiers and tokens.
MAX_FORM_BYTES = 8 * 1024
FORM_CONTENT_TYPE = "application/x-www-form-urlencoded"


@varies_on(Input.QUERY, Input.FORM)
@csrf_exempt
def endpoint(request: HttpRequest) -> HttpResponse:
    """The answer to one OAI-PMH request, admitted by :class:`oaipmh.middleware.AdmissionMiddleware`."""
    if request.method not in ("GET", "HEAD", "POST"):
        return HttpResponseNotAllowed(["GET", "HEAD", "POST"])
    if request.method == "POST":
        arguments = _form(request)
        if isinstance(arguments, HttpResponse):
            return arguments
    else:
        arguments = {name: request.GET.getlist(name) for name in request.GET}
    verb = (arguments.get("verb") or [""])[0]
    moment = runtime.moment_of(request)  # taken with the catalogue: the responseDate (see protocol.respond)
    state = runtime.state_of(request)
    catalog, responses = catalog_of(request), state.responses
    with state.telemetry.span("oaipmh.render", **{"oai.verb": verb[:40]}):
        body = protocol.respond(arguments, catalog, oai_settings(), moment, responses)
    response = HttpResponse(body, content_type=CONTENT_TYPE)
    # Rate-limited per client and stamped with the moment: any cache must ask again every time.
    response["Cache-Control"] = "no-cache"
    if sum(len(name) + sum(map(len, given)) for name, given in arguments.items()) <= MAX_KEY_LENGTH:
        response["ETag"] = _entity_tag(catalog, body)
        # Kept with its compressed variants until its responseDate's second ends: at most one
        # rendering and one compression a second per request.
        mark_cacheable(response, replay_until=_end_of_second(_response_date(body)))
    return response


MAX_KEY_LENGTH = 2048  # longer requests get no validator and are compressed on every request
_DATE_START = len(protocol.XML_HEAD) + len(b"<responseDate>")
_DATE_END = _DATE_START + len(b"2000-01-01T00:00:00Z")


def _response_date(body: bytes) -> bytes:
    return body[_DATE_START:_DATE_END]


def _end_of_second(date: bytes) -> float:
    """The POSIX time at which a response dated ``date`` (``YYYY-MM-DDThh:mm:ssZ``) is no longer this second's."""
    return calendar.timegm(time.strptime(date.decode(), "%Y-%m-%dT%H:%M:%SZ")) + 1.0


def _entity_tag(catalog: Catalog, body: bytes) -> str:
    """Weak: answers that differ only in the moment are the same answer (§8.8.1), not the same bytes.

    The moment is the responseDate and, on a list page, the resumptionToken,
    which names the second its list began (each worker and replica renders its
    own). Within one data version every such token continues the same list, so
    the tag covers the rest of the body: it stays put, on every replica, while
    the data version and the request do (computed once per kept response).
    """
    # Metadata is escaped: only the token element starts so. The last page's is empty, with no moment.
    token = body.rfind(b"<resumptionToken", _DATE_END)
    end = body.find(b"</resumptionToken>", token)
    # Sliced through a view: the body (a quarter of a megabyte for a list page) is copied once, not three times.
    view = memoryview(body)
    rest = b"".join((view[_DATE_END:token], view[end:])) if token >= 0 and end >= 0 else body[_DATE_END:]
    return wire.entity_tag(catalog.data_version, rest, weak=True)


def _form(request: HttpRequest) -> dict[str, list[str]] | HttpResponse:
    """The arguments of a POST, read into memory only: a form of at most :data:`MAX_FORM_BYTES`.

    OAI-PMH (§3.1.1.2) sends POST arguments as ``application/x-www-form-urlencoded``;
    anything else (a multipart upload in particular) is a badArgument, answered
    without reading the body, so nothing is ever spooled to disk.
    """
    if request.content_type != FORM_CONTENT_TYPE:
        return _bad_argument(f"POST arguments must be sent as {FORM_CONTENT_TYPE}")
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = -1
    if not 0 <= length <= MAX_FORM_BYTES:
        return HttpResponse(
            f"The request body is larger than {MAX_FORM_BYTES} bytes.\n",
            status=413,
            content_type="text/plain; charset=utf-8",
        )
    body = request.read(MAX_FORM_BYTES + 1)
    try:
        form = QueryDict(body, encoding="utf-8")
    except TooManyFieldsSent:
        return _bad_argument("too many arguments")
    return {name: form.getlist(name) for name in form}


def _bad_argument(message: str) -> HttpResponse:
    return HttpResponse(protocol.bad_argument(message, oai_settings()), content_type=CONTENT_TYPE)
