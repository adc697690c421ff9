"""The site app: wires the framework-free parts to the site's own services once Django is set up."""

from __future__ import annotations

from django.apps import AppConfig


class SiteConfig(AppConfig):
    name = "svc_site"

    def ready(self) -> None:
        from django import db
        from django.core import signals
        from django.core.cache import close_caches

        # Rendered bodies depend on the configuration: a change of it (tests make them) starts empty response caches.
        signals.setting_changed.connect(_configuration_changed)
        # svc has no database (DATABASES is empty): Django's per-request connection housekeeping
        # would only walk an empty list twice per request.
        signals.request_started.disconnect(db.reset_queries)
        signals.request_started.disconnect(db.close_old_connections)
        signals.request_finished.disconnect(db.close_old_connections)
        # Nor any cache of Django's (svc keeps its own, per catalogue): nothing to close after a request.
        signals.request_finished.disconnect(close_caches)


def _configuration_changed(*, setting: str, **_: object) -> None:
    if setting == "SVC":
        from catalog import runtime

        runtime.configuration_changed()
