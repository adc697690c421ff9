"""OpenTelemetry: traces, metrics and (in DEV) logs over OTLP gRPC, only when configured.

With ``OTEL_EXPORTER_OTLP_ENDPOINT`` unset nothing here imports the
OpenTelemetry SDK, starts a thread or opens a connection. The handles live in
the application state (:class:`catalog.runtime.AppState`), not in this module:
:class:`MasterTelemetry` in the master, :class:`WorkerTelemetry` in a worker.

gunicorn forks its workers from a master that has loaded the catalogue.
Export threads and gRPC channels do not survive a fork, so the SDK runs in the
workers only (:func:`start_worker`, from gunicorn's ``post_fork``). The master
wraps the WSGI app with the API's proxy tracer, which resolves to the worker's
provider once it exists, and keeps its own spans (catalogue loads) in memory:
the next worker forked after them inherits and exports them.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from wsgiref.util import request_uri

from catalog import runtime
from catalog.domain.ledger import iso_time as ledger_iso_time
from catalog.runtime import Untraced
from catalog.web.client import request_client
from svc_site.config import Config, parse_resource_attributes
from svc_site.privacy import anonymize, redact_query

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication, WSGIEnvironment
    from opentelemetry.trace import Span

DEFAULT_SERVICE_NAME = "svc"
EXPORT_TIMEOUT_SECONDS = 5.0
# Request durations in seconds (the OpenTelemetry HTTP semantic conventions' buckets).
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0)
HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"})

AttributeValue = str | int | float | bool


class SpanLike(Protocol):
    def set_attribute(self, key: str, value: AttributeValue) -> Any: ...


@dataclass
class RecordedSpan:
    """A span finished in the master, waiting for a worker to export it."""

    name: str
    attributes: dict[str, AttributeValue]
    start_ns: int
    end_ns: int = 0
    error: str | None = None

    def set_attribute(self, key: str, value: AttributeValue) -> None:
        self.attributes[key] = value


class MasterTelemetry(Untraced):
    """The master's: spans kept in memory (catalogue loads) for the next worker forked, which exports them."""

    def __init__(self) -> None:
        self.recorded: list[RecordedSpan] = []
        # A worker takes the spans recorded so far with it; the master forgets them.
        os.register_at_fork(after_in_parent=self.recorded.clear)

    @contextmanager
    def span(self, name: str, **attributes: AttributeValue) -> Iterator[SpanLike]:
        recorded = RecordedSpan(name, dict(attributes), time.time_ns())
        try:
            yield recorded
        except BaseException as error:
            recorded.error = f"{type(error).__name__}: {error}"
            raise
        finally:
            recorded.end_ns = time.time_ns()
            self.recorded.append(recorded)


@dataclass
class WorkerTelemetry:
    """A worker's: the SDK's tracer, request-duration histogram and providers (exporting over OTLP)."""

    tracer: Any
    request_duration: Any
    providers: list[Any] = field(default_factory=list)

    @contextmanager
    def span(self, name: str, **attributes: AttributeValue) -> Iterator[SpanLike]:
        with self.tracer.start_as_current_span(name, attributes=attributes) as current:
            yield current

    def observe_request(self, method: str, route: str | None, status: int, seconds: float) -> None:
        """Name the request's span after its route and count it in the request-duration histogram.

        ``route`` is the resolved URL pattern (``/projects/<str:shortcode>``), never
        the raw path, so that span names and metric series stay few.
        """
        from opentelemetry import trace

        method = method if method in HTTP_METHODS else "_OTHER"
        attributes: dict[str, AttributeValue] = {"http.request.method": method, "http.response.status_code": status}
        current = trace.get_current_span()
        if route is None:
            current.update_name(method)  # not the raw path: unmatched URLs are unbounded
        else:
            attributes["http.route"] = route
            current.update_name(f"{method} {route}")
            current.set_attribute("http.route", route)
        self.request_duration.record(seconds, attributes)

    def shutdown(self) -> None:
        """Flush and stop the exporters: nothing recorded is lost on a graceful stop."""
        for provider in self.providers:
            provider.shutdown()

    def replay(self, recorded: RecordedSpan) -> None:
        """Export a span the master recorded before forking this worker."""
        from opentelemetry.trace import Status, StatusCode

        exported = self.tracer.start_span(recorded.name, attributes=recorded.attributes, start_time=recorded.start_ns)
        if recorded.error:
            exported.set_status(Status(StatusCode.ERROR, recorded.error))
        exported.end(end_time=recorded.end_ns)


def resource_attributes(config: Config) -> dict[str, str]:
    """OTEL_RESOURCE_ATTRIBUTES, with OTEL_SERVICE_NAME taking precedence for ``service.name``."""
    attributes = parse_resource_attributes(config.otel_resource_attributes)
    attributes["service.name"] = config.otel_service_name or attributes.get("service.name") or DEFAULT_SERVICE_NAME
    return attributes


def start_master(config: Config) -> None:
    """Keep the master's spans for the next forked worker (call before loading the catalogue)."""
    if config.otel_exporter_otlp_endpoint and not isinstance(runtime.state().telemetry, MasterTelemetry):
        runtime.use_telemetry(MasterTelemetry())


def instrument_wsgi(app: WSGIApplication, config: Config) -> WSGIApplication:
    """Wrap the WSGI app in a server span per request, or return it unchanged.

    The span is opened around the whole WSGI call, so every line Django logs
    for a request (including its own 4xx/5xx warnings, written after the
    middleware chain) carries the request's ids. Its name and ``http.route``
    are set by :func:`observe_request` once the URL is resolved.
    """
    if not config.otel_exporter_otlp_endpoint:
        return app
    from opentelemetry.instrumentation.wsgi import OpenTelemetryMiddleware
    from opentelemetry.metrics import NoOpMeterProvider
    from opentelemetry.sdk.trace import ReadableSpan

    trusted_hops = config.trusted_proxy_hops

    def privacy_hook(span: Span, environ: WSGIEnvironment) -> None:
        """Overwrite the attributes that would carry personal data: the raw query and the peer address.

        ``client.address`` becomes the client's network behind the trusted proxies, as in the access log.
        """
        if not span.is_recording():
            return
        query = redact_query(environ.get("QUERY_STRING", ""))
        suffix = f"?{query}" if query else ""
        url = request_uri(environ, include_query=False) + suffix
        replacements = {
            "http.target": environ.get("PATH_INFO", "") + suffix,
            "url.query": query,
            "http.url": url,
            "url.full": url,
            "net.peer.ip": anonymize(environ.get("REMOTE_ADDR", "")),
        }
        present = (span.attributes if isinstance(span, ReadableSpan) else None) or {}  # a recording span is the SDK's
        for key, value in replacements.items():
            if key in present:
                span.set_attribute(key, value)
        span.set_attribute("client.address", anonymize(request_client(environ, trusted_hops)))

    # Request metrics come from observe_request (by route), not from the raw paths this middleware sees.
    return OpenTelemetryMiddleware(app, request_hook=privacy_hook, meter_provider=NoOpMeterProvider())


def start_worker(config: Config) -> None:
    """Start the SDK in this (forked) worker: exporters, providers, metrics instruments.

    Replays the spans the master recorded before forking this worker.
    """
    master = runtime.use_telemetry(Untraced())
    pending = master.recorded if isinstance(master, MasterTelemetry) else []
    if not config.otel_exporter_otlp_endpoint:
        return
    from opentelemetry import metrics, trace
    from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    endpoint = config.otel_exporter_otlp_endpoint
    resource = Resource.create(resource_attributes(config))

    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(
        BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint, timeout=EXPORT_TIMEOUT_SECONDS))
    )
    trace.set_tracer_provider(tracer_provider)

    meter_provider = MeterProvider(
        resource=resource,
        metric_readers=[
            PeriodicExportingMetricReader(OTLPMetricExporter(endpoint=endpoint, timeout=EXPORT_TIMEOUT_SECONDS))
        ],
    )
    metrics.set_meter_provider(meter_provider)
    meter = meter_provider.get_meter("svc")
    request_duration = meter.create_histogram(
        "http.server.request.duration",
        unit="s",
        description="Duration of HTTP requests answered by Django, by route; its count is the request count.",
        explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS),
    )
    meter.create_observable_gauge(
        "svc.catalog.size",
        callbacks=[_observe_catalog],
        unit="{entity}",
        description="Entities in the served catalogue, by kind.",
    )
    meter.create_observable_gauge(
        "svc.release.late",
        callbacks=[observe_release_lateness],
        unit="s",
        description=(
            "How long after its activation time this replica may have answered from the release before the one it"
            " serves (0: it switched in time); docs/oai-pmh.md, Incremental harvesting."
        ),
    )

    worker = WorkerTelemetry(tracer=tracer_provider.get_tracer("svc"), request_duration=request_duration)
    worker.providers += [tracer_provider, meter_provider]
    if config.env == "DEV":
        worker.providers.append(_export_logs(endpoint, resource))
    runtime.use_telemetry(worker)
    for recorded in pending:
        worker.replay(recorded)


def _export_logs(endpoint: str, resource: Any) -> Any:
    """DEV only: every log record also goes out over OTLP (PROD logs stay on stdout)."""
    from opentelemetry._logs import set_logger_provider
    from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
    from opentelemetry.instrumentation.logging.handler import LoggingHandler
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

    from svc_site.logging_config import RequestContextFilter

    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(
        BatchLogRecordProcessor(OTLPLogExporter(endpoint=endpoint, timeout=EXPORT_TIMEOUT_SECONDS))
    )
    set_logger_provider(logger_provider)
    handler = LoggingHandler(logger_provider=logger_provider)
    handler.addFilter(RequestContextFilter(with_trace_ids=False))
    # The exporters' own complaints (collector unreachable) must not feed back into the exporter.
    handler.addFilter(lambda record: not record.name.startswith("opentelemetry"))
    logging.getLogger().addHandler(handler)
    return logger_provider


def _observe_catalog(_options: Any) -> Iterator[Any]:
    from opentelemetry.metrics import Observation

    catalog = runtime.current()
    for kind, count in catalog.counts().items() if catalog else ():
        yield Observation(count, {"svc.catalog.kind": kind})


def observe_release_lateness(_options: Any) -> Iterator[Any]:
    """The served release's lateness on this replica, with the release's activation time."""
    from opentelemetry.metrics import Observation

    state = runtime.state()
    view = state.catalog.ledger if state.catalog is not None else None
    if view is not None and view.activation is not None:
        yield Observation(state.late_by, {"svc.release.activation": ledger_iso_time(view.activation)})


def shutdown() -> None:
    """Flush and stop the exporters (gunicorn's ``worker_exit``): nothing recorded is lost on a graceful stop."""
    runtime.use_telemetry(Untraced()).shutdown()
