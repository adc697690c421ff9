"""FAIR Signposting (signposting.org, levels 1 and 2): typed links of a landing page.

The same links go into the ``Link`` header (RFC 8288) and, in full, into the
linkset document (RFC 9264, ``application/linkset+json``); the header caps the
``item`` links so that it stays small.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LINKSET_TYPE = "application/linkset+json"
ABOUT_PAGE = "https://schema.org/AboutPage"
HEADER_ITEMS = 10  # item links in the header; the linkset has them all


@dataclass(frozen=True, slots=True)
class TypedLink:
    href: str
    rel: str
    type: str | None = None
    profile: str | None = None


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def link_header(links: list[TypedLink], linkset_url: str) -> str:
    """The ``Link`` header: every link except the items past :data:`HEADER_ITEMS`, then the linkset."""
    shown, items = [], 0
    for link in links:
        if link.rel == "item":
            items += 1
            if items > HEADER_ITEMS:
                continue
        shown.append(link)
    shown.append(TypedLink(linkset_url, "linkset", LINKSET_TYPE))
    parts = []
    for link in shown:
        # An href never holds ">" or a space: the catalogue's URLs are quoted path segments.
        part = f"<{link.href}> ; rel={_quoted(link.rel)}"
        if link.type:
            part += f" ; type={_quoted(link.type)}"
        if link.profile:
            part += f" ; profile={_quoted(link.profile)}"
        parts.append(part)
    return ", ".join(parts)


def linkset(anchor: str, links: list[TypedLink]) -> dict[str, Any]:
    """The RFC 9264 JSON linkset of one anchor (the landing page)."""
    context: dict[str, Any] = {"anchor": anchor}
    for link in links:
        target = {"href": link.href}
        if link.type:
            target["type"] = link.type
        if link.profile:
            target["profile"] = link.profile
        context.setdefault(link.rel, []).append(target)
    return {"linkset": [context]}
