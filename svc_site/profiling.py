"""Continuous CPU profiling: a Pyroscope agent in each worker when PROFILER_ENDPOINT is set.

The agent samples the worker's Python stacks 100 times per second while they
run on the CPU and pushes CPU time per function to the endpoint every ten
seconds (and once more when the worker stops). Unset, the agent is never
imported: no native library, no thread, no overhead.
"""

from __future__ import annotations

from svc_site.config import Config
from svc_site.telemetry import DEFAULT_SERVICE_NAME

SAMPLES_PER_SECOND = 100


def start(config: Config) -> None:
    """Start sampling this process (a forked worker, once: the agent's threads do not survive a fork)."""
    if not config.profiler_endpoint:
        return
    import pyroscope

    pyroscope.configure(
        application_name=config.otel_service_name or DEFAULT_SERVICE_NAME,
        server_address=config.profiler_endpoint,
        sample_rate=SAMPLES_PER_SECOND,
        oncpu=True,
        gil_only=True,
    )


def stop(config: Config) -> None:
    """Push what was sampled since the last upload, then stop the agent (started by :func:`start` under ``config``)."""
    if not config.profiler_endpoint:
        return
    import pyroscope

    pyroscope.shutdown()
