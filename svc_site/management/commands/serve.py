"""`svc serve`: load the catalogue once, then serve it with gunicorn workers."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog import runtime
from catalog.domain.loader import DataDirError
from svc_site import lifecycle, telemetry
from svc_site.assets import ensure_built
from svc_site.config import WORKER_BOUNDS, whole_number
from svc_site.server import GunicornServer, check_address_free, gunicorn_options


def _refusal(error: DataDirError, allow_empty: bool) -> str:
    """The one line ``svc serve`` stops with when the data directory cannot be served."""
    if allow_empty or "holds no entity files" not in str(error):
        return f"SVC_DATA_DIR: {error}"
    return f"SVC_DATA_DIR: {error} (SVC_ALLOW_EMPTY_DATA=true serves an empty catalogue)"


def workers(value: str) -> int:
    """--workers within the bounds SVC_WORKERS has."""
    return whole_number(value, *WORKER_BOUNDS)


class Command(BaseCommand):
    help = "Run the production web server (gunicorn) on FRAMEWORK_SITE_ADDR."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--workers",
            type=workers,
            default=settings.SVC.workers,
            help="worker processes, {} to {} (SVC_WORKERS)".format(*WORKER_BOUNDS),
        )

    def handle(self, *args: Any, workers: int, **options: Any) -> None:
        config = settings.SVC
        try:
            check_address_free(config.site_host, config.site_port)
        except OSError as error:
            raise CommandError(
                f"FRAMEWORK_SITE_ADDR {config.site_host}:{config.site_port}: cannot listen there ({error.strerror})"
            ) from None
        telemetry.start_master(config)
        try:
            runtime.check_serveable(config.data_dir, config.allow_empty_data)
            catalog = runtime.load()
        except DataDirError as error:
            raise CommandError(_refusal(error, config.allow_empty_data)) from None
        refusal = runtime.start_refusal(catalog)
        if refusal:
            raise CommandError(refusal)
        runtime.start(catalog)  # only a release that is served is recorded as the fleet's

        # A fresh clone has no built assets yet; an image has them built in.
        try:
            ensure_built()
        except OSError as error:
            raise CommandError(
                f"FRAMEWORK_SITE_ROOT {config.site_root}: cannot build the static assets there ({error.strerror})"
            ) from None
        lifecycle.warm_up()

        from svc_site.wsgi import application

        bind = (
            f"[{config.site_host}]:{config.site_port}"
            if ":" in config.site_host
            else f"{config.site_host}:{config.site_port}"
        )
        options = gunicorn_options(bind, workers, config.trusted_proxy_hops) | lifecycle.hooks()
        GunicornServer(lambda: application, options).run()
