"""What of a request may be written to logs and traces.

Logs and traces leave the service (log shippers, tracing back-ends), so they
carry no personal data: client addresses are cut to their network and query
values are kept only for parameters known to carry none.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import parse_qsl, quote

# Prefix lengths kept of a client address: enough to see which network a
# harvester runs in, not which person sent a request.
ANONYMIZED_IPV4_PREFIX = 24
ANONYMIZED_IPV6_PREFIX = 48

# Query parameters whose values are protocol vocabulary or opaque cursors
# (the OAI-PMH arguments, page numbers), never something a person typed.
LOGGED_QUERY_PARAMETERS = frozenset(
    {"verb", "metadataPrefix", "set", "from", "until", "identifier", "resumptionToken", "page"}
)
REDACTED = "REDACTED"

# Characters that could end a log line, forge another or drive a terminal: C0 and C1 controls, DEL,
# and the Unicode line and paragraph separators.
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def anonymize(address: str) -> str:
    """The network of ``address`` (IPv4 /24, IPv6 /48), or ``-`` if it is not an IP address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return "-"
    prefix = ANONYMIZED_IPV4_PREFIX if ip.version == 4 else ANONYMIZED_IPV6_PREFIX
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False).network_address)


def redact_query(query_string: str) -> str:
    """The query string with every value outside :data:`LOGGED_QUERY_PARAMETERS` replaced.

    Parameter names stay, so a log still shows the shape of a request.
    """
    if not query_string:
        return ""
    pairs = parse_qsl(query_string, keep_blank_values=True)
    return "&".join(
        f"{quote(name, safe='')}={quote(value, safe='') if name in LOGGED_QUERY_PARAMETERS else REDACTED}"
        for name, value in pairs
    )


def printable(text: str) -> str:
    """``text`` on one line and inert in a terminal: control characters written as ``\\n``, ``\\x1b``, ``\\u2028``."""
    return _UNPRINTABLE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[char]
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
