"""svc's gunicorn hooks: per-worker telemetry and profiler, catalogue reload on SIGHUP.

The master loads the catalogue and forks the workers, which share its memory.
SIGHUP makes gunicorn fork fresh workers and stop the old ones gracefully;
:func:`on_reload` re-reads the data directory in the master just before, so
the new workers start with the new data and share it again, while the old
ones finish their requests on the old data. Nothing is dropped: the listening
socket stays open throughout.
"""

from __future__ import annotations

import gc
from typing import Any

from django.conf import settings

from catalog import runtime
from catalog.pages import views as catalog_views
from oaipmh import views as oai_views
from svc_site import profiling, telemetry


def post_fork(_server: Any, _worker: Any) -> None:
    """In each new worker: start exporters and the profiler, which must not be inherited across a fork."""
    telemetry.start_worker(settings.SVC)
    profiling.start(settings.SVC)


def worker_exit(_server: Any, _worker: Any) -> None:
    """In a stopping worker: flush spans, metrics, logs and the last profile."""
    profiling.stop(settings.SVC)
    telemetry.shutdown()


def on_reload(_arbiter: Any) -> None:
    """SIGHUP, in the master before new workers are forked: re-read the data directory.

    The heap was frozen for the workers; unfreezing lets the collector free
    the old catalogue, and ``pre_fork`` freezes the new one again.
    """
    gc.unfreeze()
    if runtime.reload():
        warm_up()


def warm_up() -> None:
    """Build what requests would otherwise build in every worker: once, in the master, shared after fork.

    A release waiting for its activation time is warmed up too, so the workers share it when it comes.
    """
    catalog_views.warm_up()
    oai_views.warm_up()
    pending = runtime.pending()
    if pending is not None:
        with runtime.serving(pending):
            catalog_views.warm_up()
            oai_views.warm_up()


def hooks() -> dict[str, Any]:
    return {"post_fork": post_fork, "worker_exit": worker_exit, "on_reload": on_reload}
