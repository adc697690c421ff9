"""Companion repository API removals and deprecations: the registry and the scanners behind `svc check-api-usage`."""
