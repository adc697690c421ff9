"""What every page shell needs from the configuration."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest

from svc_site import analytics, assets


def site(request: HttpRequest) -> dict[str, Any]:
    config = settings.SVC
    return {
        "site": {
            "name": config.oai_repository_name,
            "css": assets.css_name(config),
            "js": assets.js_name(config),
            "analytics": analytics.script_attributes(config),
        }
    }
