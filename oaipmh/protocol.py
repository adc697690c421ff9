"""OAI-PMH 2.0 requests to responses: argument rules, errors, the request echo, the six verbs.

Framework-free: :func:`respond` takes the request's arguments (name → every
value given) and returns the complete response body. Protocol errors are
part of a normal response (HTTP 200). The ``<request>`` element echoes the
arguments, except for badVerb and badArgument, where it carries none
(OAI-PMH 2.0 §3.2). Every echoed value has been checked against the type
the schema gives it, so a response is valid whatever the request was.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from catalog.domain.memo import BytesLRU
from catalog.domain.model import Catalog
from catalog.domain.version import svc_version
from catalog.formats import dublin_core_xml
from catalog.formats.xmltext import esc, is_uri, to_uri
from catalog.publishing.datestamps import (
    GRANULARITY,
    DateArgumentError,
    DateRange,
    format_datestamp,
    now_datestamp,
    parse_range,
)
from catalog.publishing.formats import FORMATS, MetadataFormat
from catalog.publishing.oai_identifiers import site_url
from catalog.publishing.sets import SET_SPEC_RE, Selection
from oaipmh import tokens
from oaipmh.repository import Position, Repository, repository_for

OAI_NAMESPACE = "http://www.openarchives.org/OAI/2.0/"
XML_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    f'<OAI-PMH xmlns="{OAI_NAMESPACE}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    f' xsi:schemaLocation="{OAI_NAMESPACE} http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">\n'
).encode()
XML_TAIL = b"</OAI-PMH>\n"
OAI_IDENTIFIER_NAMESPACE = "http://www.openarchives.org/OAI/2.0/oai-identifier"

_METADATA_PREFIX_RE = re.compile(r"[A-Za-z0-9\-_.!~*'()]+")
ECHO_ORDER = ("identifier", "metadataPrefix", "from", "until", "set", "resumptionToken")


@dataclass(frozen=True, slots=True)
class VerbArguments:
    required: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    exclusive: str | None = None  # an argument that must come alone (resumptionToken)


_LIST_ARGUMENTS = VerbArguments(frozenset({"metadataPrefix"}), frozenset({"from", "until", "set"}), "resumptionToken")
VERBS: dict[str, VerbArguments] = {
    "Identify": VerbArguments(),
    "ListMetadataFormats": VerbArguments(optional=frozenset({"identifier"})),
    "ListSets": VerbArguments(exclusive="resumptionToken"),
    "GetRecord": VerbArguments(required=frozenset({"identifier", "metadataPrefix"})),
    "ListIdentifiers": _LIST_ARGUMENTS,
    "ListRecords": _LIST_ARGUMENTS,
}


@dataclass(frozen=True, slots=True)
class OaiError:
    code: str
    message: str


class ProtocolError(Exception):
    def __init__(self, *errors: OaiError) -> None:
        super().__init__(errors)
        self.errors = errors


@dataclass(frozen=True, slots=True)
class OaiSettings:
    """What the protocol needs of the configuration: passed in, so that this package never reads it."""

    base_url: str
    repository_name: str
    admin_email: str
    repository_identifier: str
    page_size: int


@dataclass(frozen=True, slots=True)
class Request:
    verb: str
    arguments: dict[str, str]
    dates: DateRange
    repository: Repository
    config: OaiSettings


MAX_KEY_LENGTH = 2048  # requests with longer arguments are not cached


def respond(
    arguments: Mapping[str, Sequence[str]],
    catalog: Catalog,
    config: OaiSettings,
    moment: int | None = None,
    responses: BytesLRU | None = None,
) -> bytes:
    """The complete response body for one request.

    ``moment`` is the second the request arrived, when ``catalog`` was chosen
    for it: the responseDate. Taken then rather than after rendering, no
    answer from a release is dated after the moment the next one is served
    from (the guarantee of docs/oai-pmh.md, "Incremental harvesting").

    Harvesters repeat requests (a retried page, the same Identify every run):
    a response depends only on the data version, the config and the
    arguments, so a repeated one is answered from ``responses`` (the
    application state's response cache) without rendering; only responseDate
    is new. Cached by the arguments in name order (``?a=1&b=2`` and ``?b=2&a=1`` are
    one request); malformed requests (badVerb, badArgument) are answered
    without being cached, so that junk arguments cannot push out real pages.
    """
    key = tuple(sorted((name, tuple(values)) for name, values in arguments.items()))
    cacheable = sum(len(name) + sum(map(len, values)) for name, values in key) <= MAX_KEY_LENGTH
    if responses is not None and cacheable and _well_formed(arguments):
        # Kept at most an hour: a list's first page names the moment it was issued, and tokens expire.
        hour = int(time.time()) // 3600
        rest = responses.get_or_render(
            ("oai", catalog.data_version, config, key, hour), lambda: _render(arguments, catalog, config)
        )
    else:
        rest = _render(arguments, catalog, config)
    return _dated(rest, moment)


def bad_argument(message: str, config: OaiSettings) -> bytes:
    """A complete badArgument response, for a request whose arguments could not even be read."""
    return _dated(_response(_request_element(config), _errors((OaiError("badArgument", message),))))


def _dated(rest: bytes, moment: int | None = None) -> bytes:
    """The whole response: the head with the responseDate (``moment``, or this second), then ``rest``."""
    date = now_datestamp() if moment is None else format_datestamp(moment)
    return b"".join((XML_HEAD, b"<responseDate>", date.encode(), b"</responseDate>\n", rest))


def _well_formed(arguments: Mapping[str, Sequence[str]]) -> bool:
    verbs = arguments.get("verb") or []
    if len(verbs) != 1 or verbs[0] not in VERBS:
        return False
    try:
        check_arguments(verbs[0], arguments)
    except ProtocolError:
        return False
    return True


def _render(arguments: Mapping[str, Sequence[str]], catalog: Catalog, config: OaiSettings) -> bytes:
    """Everything after ``responseDate``: the part that depends only on the data, the config and the request."""
    verbs = arguments.get("verb") or []
    if len(verbs) != 1 or verbs[0] not in VERBS:
        if not verbs:
            message = "the verb argument is missing"
        elif len(verbs) > 1:
            message = "the verb argument is repeated"
        else:
            message = f"'{verbs[0]}' is not an OAI-PMH verb"
        return _response(_request_element(config), _errors((OaiError("badVerb", message),)))
    verb = verbs[0]
    try:
        checked, dates = check_arguments(verb, arguments)
    except ProtocolError as error:
        return _response(_request_element(config), _errors(error.errors))
    repository = repository_for(catalog, config.repository_identifier, site_url(config.base_url))
    request = Request(verb, checked, dates, repository, config)
    try:
        content = HANDLERS[verb](request)
    except ProtocolError as error:
        bare = any(e.code in ("badVerb", "badArgument") for e in error.errors)
        echo = _request_element(config) if bare else _request_element(config, verb, checked)
        return _response(echo, _errors(error.errors))
    return _response(_request_element(config, verb, checked), content)


def check_arguments(verb: str, arguments: Mapping[str, Sequence[str]]) -> tuple[dict[str, str], DateRange]:
    """The arguments of ``verb`` if they follow its rules; else every badArgument found."""
    rules = VERBS[verb]
    allowed = rules.required | rules.optional | ({rules.exclusive} if rules.exclusive else set())
    errors: list[OaiError] = []
    checked: dict[str, str] = {}
    for name, values in arguments.items():
        if name == "verb":
            continue
        if name not in allowed:
            errors.append(OaiError("badArgument", f"'{name}' is not an argument of {verb}"))
        elif len(values) != 1:
            errors.append(OaiError("badArgument", f"the argument '{name}' is repeated"))
        else:
            checked[name] = values[0]
    if rules.exclusive and rules.exclusive in checked:
        if len(checked) > 1:
            errors.append(OaiError("badArgument", f"{rules.exclusive} must be the only argument besides the verb"))
    else:
        errors.extend(
            OaiError("badArgument", f"the argument '{name}' is required for {verb}")
            for name in sorted(rules.required - checked.keys())
        )

    identifier = checked.get("identifier")
    if identifier is not None and not is_uri(identifier):
        errors.append(OaiError("badArgument", "the identifier is not a URI"))
    prefix = checked.get("metadataPrefix")
    if prefix is not None and not _METADATA_PREFIX_RE.fullmatch(prefix):
        errors.append(OaiError("badArgument", "the metadataPrefix has characters a metadataPrefix cannot have"))
    set_spec = checked.get("set")
    if set_spec is not None and not SET_SPEC_RE.fullmatch(set_spec):
        errors.append(OaiError("badArgument", "the set is not a setSpec"))
    dates = DateRange()
    try:
        dates = parse_range(checked.get("from"), checked.get("until"))
    except DateArgumentError as error:
        errors.append(OaiError("badArgument", str(error)))
    if errors:
        raise ProtocolError(*errors)
    return checked, dates


# --- envelope ------------------------------------------------------------------------------


def _request_element(config: OaiSettings, verb: str | None = None, arguments: Mapping[str, str] | None = None) -> str:
    attributes = f' verb="{verb}"' if verb else ""
    for name in ECHO_ORDER:
        if arguments and name in arguments:
            attributes += f' {name}="{esc(arguments[name])}"'
    return f"<request{attributes}>{esc(to_uri(config.base_url))}</request>\n"


def _errors(errors: Sequence[OaiError]) -> str:
    return "".join(f'<error code="{error.code}">{esc(error.message)}</error>\n' for error in errors)


def _response(request: str, content: str | bytes) -> bytes:
    return b"".join((request.encode(), content if isinstance(content, bytes) else content.encode(), XML_TAIL))


# --- verbs ------------------------------------------------------------------------------------


def identify(request: Request) -> str:
    config, repository = request.config, request.repository
    return (
        "<Identify>"
        f"<repositoryName>{esc(config.repository_name)}</repositoryName>"
        f"<baseURL>{esc(to_uri(config.base_url))}</baseURL>"
        "<protocolVersion>2.0</protocolVersion>"
        f"<adminEmail>{esc(config.admin_email)}</adminEmail>"
        f"<earliestDatestamp>{format_datestamp(repository.earliest_stamp)}</earliestDatestamp>"
        f"<deletedRecord>{'persistent' if repository.ledger else 'no'}</deletedRecord>"
        f"<granularity>{GRANULARITY}</granularity>"
        # The content-coding svc_site.cache serves on request (it also serves br to clients asking for it).
        "<compression>gzip</compression>"
        "<description>"
        f'<oai-identifier xmlns="{OAI_IDENTIFIER_NAMESPACE}" xsi:schemaLocation="{OAI_IDENTIFIER_NAMESPACE}'
        ' http://www.openarchives.org/OAI/2.0/oai-identifier.xsd">'
        "<scheme>oai</scheme>"
        f"<repositoryIdentifier>{esc(config.repository_identifier)}</repositoryIdentifier>"
        "<delimiter>:</delimiter>"
        f"<sampleIdentifier>{esc(repository.sample_identifier)}</sampleIdentifier>"
        "</oai-identifier></description>"
        f"<description>{_software_description()}</description>"
        "</Identify>\n"
    )


def _software_description() -> str:
    """The software behind the repository and its version, in simple Dublin Core (its title is ``svc --version``)."""
    return (
        f"{dublin_core_xml.OPEN}"
        f"<dc:title>svc {esc(svc_version())}</dc:title>"
        "<dc:description>The software that serves this OAI-PMH repository.</dc:description>"
        "<dc:type>Software</dc:type>"
        f"{dublin_core_xml.CLOSE}"
    )


def _metadata_format(prefix: str) -> MetadataFormat:
    found = FORMATS.get(prefix)
    if found is None:
        raise ProtocolError(
            OaiError("cannotDisseminateFormat", f"'{prefix}' is not a metadata format of this repository")
        )
    return found


def _unknown_identifier(identifier: str) -> OaiError:
    return OaiError("idDoesNotExist", f"'{identifier}' is not an identifier of this repository")


def list_metadata_formats(request: Request) -> str:
    identifier = request.arguments.get("identifier")
    if identifier is not None and request.repository.resolve(identifier) is None:
        raise ProtocolError(_unknown_identifier(identifier))
    formats = "".join(
        f"<metadataFormat><metadataPrefix>{f.prefix}</metadataPrefix><schema>{f.schema}</schema>"
        f"<metadataNamespace>{f.namespace}</metadataNamespace></metadataFormat>"
        for f in FORMATS.values()
    )
    return f"<ListMetadataFormats>{formats}</ListMetadataFormats>\n"


def list_sets(request: Request) -> str:
    if "resumptionToken" in request.arguments:
        raise ProtocolError(OaiError("badResumptionToken", "ListSets is complete in one response; it has no tokens"))
    sets = "\n".join(
        f"<set><setSpec>{oai_set.spec}</setSpec><setName>{esc(oai_set.name)}</setName></set>"
        for oai_set in request.repository.sets.sets
    )
    return f"<ListSets>\n{sets}\n</ListSets>\n"


def get_record(request: Request) -> str:
    identifier = request.arguments["identifier"]
    prefix = request.arguments["metadataPrefix"]
    position = request.repository.resolve(identifier)
    errors = []
    if position is None:
        errors.append(_unknown_identifier(identifier))
    try:
        metadata_format = _metadata_format(prefix)
    except ProtocolError as error:
        errors.extend(error.errors)
    if errors:
        raise ProtocolError(*errors)
    assert position is not None
    return f"<GetRecord>{request.repository.record(position, metadata_format)}</GetRecord>\n"


def _list_state(request: Request, now: int) -> tuple[tokens.ListState, MetadataFormat, Position | None]:
    """Where the requested page starts: after the token's last item, or (None) at the list's beginning."""
    repository = request.repository
    token = request.arguments.get("resumptionToken")
    if token is not None:
        try:
            state = tokens.decode(token, request.verb, repository.token_key, now)
        except tokens.BadResumptionToken as error:
            raise ProtocolError(OaiError("badResumptionToken", str(error))) from None
        if state.metadata_prefix not in FORMATS:
            raise ProtocolError(OaiError("badResumptionToken", tokens.DAMAGED))
        return state, FORMATS[state.metadata_prefix], repository.position_after(state.deletions, state.after)

    metadata_format = _metadata_format(request.arguments["metadataPrefix"])
    set_spec = request.arguments.get("set")
    oai_set = repository.find_set(set_spec)
    if set_spec is not None and oai_set is None:
        # OAI-PMH 2.0 §4.6/§4.7: a set the repository does not have selects no records.
        raise ProtocolError(OaiError("noRecordsMatch", f"'{set_spec}' is not a set of this repository"))
    total = repository.count(oai_set, request.dates)
    if total == 0:
        raise ProtocolError(OaiError("noRecordsMatch", "no items match the request"))
    state = tokens.ListState(
        verb=request.verb,
        metadata_prefix=metadata_format.prefix,
        set_spec=oai_set.spec if oai_set else None,
        low=request.dates.low,
        high=request.dates.high,
        issued=max(now, repository.latest_first_seen),
        deletions=False,
        after=("", ""),
        cursor=0,
        complete_list_size=total,
    )
    return state, metadata_format, None


def _list(request: Request, render: Callable[[Repository, Position, MetadataFormat], str]) -> bytes:
    repository = request.repository
    now = int(time.time())
    state, metadata_format, start = _list_state(request, now)
    oai_set = repository.find_set(state.set_spec)
    # A set gone with a new release selects nothing more from the live items; its deletions still follow.
    selection = repository.selection(oai_set) if oai_set or not state.set_spec else Selection(False, False, ())
    dates = DateRange(state.low, state.high)
    page_size = request.config.page_size
    issued = state.issued if start is not None else None
    # One item more than the page: whether the list goes on, whatever a release did to its size.
    items = repository.scan(selection, dates, start or (0, -1), page_size + 1, state.set_spec, issued)
    if not items:
        raise ProtocolError(OaiError("noRecordsMatch", "no items are left in this list after the latest data release"))
    more = len(items) > page_size
    items = items[:page_size]
    delivered = state.cursor + len(items)
    # completeListSize as counted when the list began, unless a release has made it grow since.
    size = max(state.complete_list_size, delivered + 1) if more else delivered
    token = ""
    if more:
        deletions, after = repository.key_of(items[-1])
        following = dataclasses.replace(
            state, deletions=deletions, after=after, cursor=delivered, complete_list_size=size
        )
        token = (
            f'<resumptionToken completeListSize="{size}" cursor="{state.cursor}"'
            f' expirationDate="{format_datestamp(state.expires)}">'
            f"{tokens.encode(following, repository.token_key)}</resumptionToken>\n"
        )
    elif state.cursor > 0:
        token = f'<resumptionToken completeListSize="{size}" cursor="{state.cursor}"/>\n'
    # Encoded item by item: UTF-8 encoding is a copy for ASCII text but goes character by character through a
    # string holding any other, so a page's few non-ASCII items are encoded on their own (ten times quicker).
    body = b"\n".join([render(repository, item, metadata_format).encode() for item in items])
    return b"".join((f"<{request.verb}>\n".encode(), body, f"\n{token}</{request.verb}>\n".encode()))


def list_identifiers(request: Request) -> bytes:
    return _list(request, lambda repository, item, _format: repository.header(item))


def list_records(request: Request) -> bytes:
    return _list(request, lambda repository, item, metadata_format: repository.record(item, metadata_format))


HANDLERS: dict[str, Callable[[Request], str | bytes]] = {
    "Identify": identify,
    "ListMetadataFormats": list_metadata_formats,
    "ListSets": list_sets,
    "GetRecord": get_record,
    "ListIdentifiers": list_identifiers,
    "ListRecords": list_records,
}
