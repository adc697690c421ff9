"""The site app: wires the framework-free parts to the site's own services once Django is set up."""

from __future__ import annotations

from django.apps import AppConfig


class SiteConfig(AppConfig):
    name = "svc_site"

    def ready(self) -> None:
        from catalog import runtime
        from svc_site import telemetry

        runtime.trace_with(telemetry.span)
