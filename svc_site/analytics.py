"""Privacy-friendly page analytics with Umami (only when a site id is set).

Umami sets no cookies and stores no personal data; its script counts a page
view on load and on every ``history.pushState``/``history.replaceState`` that
changes the URL, so the project page's tab switches (which update the address
with ``replaceState``) are counted as views of ``?tab=…`` URLs. We switch off
its optional visitor id in localStorage (``data-identity-stitching="false"``)
and let it honour Do Not Track.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from svc_site.config import Config


def script_attributes(config: Config) -> dict[str, str] | None:
    """The attributes of the analytics ``<script>``, or None when analytics is off."""
    if not config.analytics_site_id:
        return None
    base = config.analytics_url.rstrip("/")
    return {"src": f"{base}/script.js", "website_id": config.analytics_site_id, "host_url": base}


def origin(config: Config) -> str | None:
    """The origin the script loads from and reports to (for the CSP), or None when off."""
    if not config.analytics_site_id:
        return None
    parts = urlsplit(config.analytics_url)
    return f"{parts.scheme}://{parts.netloc}"
