"""OpenTelemetry: a real `svc serve` exporting to a real OTLP gRPC receiver started here."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field

import grpc
import pytest
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2, metrics_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from svc_site.config import ConfigError, load_config
from tests.conftest import PROJECT_ROOT, start_server, stop_server
from tests.oai_support import HIGH_LIMITS_ENV
from tests.ops_support import write_data_set
from tests.release_support import activation_of, edit_json, reload, stamp

RESOURCE_ENV = {
    "OTEL_SERVICE_NAME": "svc-under-test",
    "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=ci,team=ops%20crew,service.name=overridden",
}
EXPECTED_RESOURCE = {"service.name": "svc-under-test", "deployment.environment": "ci", "team": "ops crew"}


@dataclass
class Receiver:
    """An OTLP collector's three gRPC services, keeping every export request."""

    port: int = 0
    traces: list = field(default_factory=list)
    metrics: list = field(default_factory=list)
    logs: list = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def keep(self, kind: list, request) -> None:
        with self.lock:
            kind.append(request)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class TraceService(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self, receiver: Receiver) -> None:
        self.receiver = receiver

    def Export(self, request, context):
        self.receiver.keep(self.receiver.traces, request)
        return trace_service_pb2.ExportTraceServiceResponse()


class MetricsService(metrics_service_pb2_grpc.MetricsServiceServicer):
    def __init__(self, receiver: Receiver) -> None:
        self.receiver = receiver

    def Export(self, request, context):
        self.receiver.keep(self.receiver.metrics, request)
        return metrics_service_pb2.ExportMetricsServiceResponse()


class LogsService(logs_service_pb2_grpc.LogsServiceServicer):
    def __init__(self, receiver: Receiver) -> None:
        self.receiver = receiver

    def Export(self, request, context):
        self.receiver.keep(self.receiver.logs, request)
        return logs_service_pb2.ExportLogsServiceResponse()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    receiver = Receiver()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(TraceService(receiver), server)
    metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(MetricsService(receiver), server)
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(LogsService(receiver), server)
    receiver.port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield receiver
    server.stop(grace=None)


def attributes(key_values) -> dict:
    """OTLP KeyValue list -> dict of plain values."""
    result = {}
    for item in key_values:
        kind = item.value.WhichOneof("value")
        result[item.key] = getattr(item.value, kind) if kind else None
    return result


def resources(requests, resource_field: str) -> list[dict]:
    return [attributes(part.resource.attributes) for request in requests for part in getattr(request, resource_field)]


def spans(receiver: Receiver) -> list:
    return [
        span
        for request in receiver.traces
        for resource_spans in request.resource_spans
        for scope_spans in resource_spans.scope_spans
        for span in scope_spans.spans
    ]


def metric_points(receiver: Receiver, name: str) -> list:
    points = []
    for request in receiver.metrics:
        for resource_metrics in request.resource_metrics:
            for scope_metrics in resource_metrics.scope_metrics:
                for metric in scope_metrics.metrics:
                    if metric.name == name:
                        data = getattr(metric, metric.WhichOneof("data"))
                        points.extend(data.data_points)
    return points


def log_records(receiver: Receiver) -> list:
    return [
        record
        for request in receiver.logs
        for resource_logs in request.resource_logs
        for scope_logs in resource_logs.scope_logs
        for record in scope_logs.log_records
    ]


def get(base_url: str, path: str) -> int:
    host, port = base_url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request("GET", path, headers={"X-Forwarded-For": "198.51.100.23"})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def serve_and_request(receiver: Receiver, tmp_path, framework_env: str) -> str:
    data = write_data_set(tmp_path / "data", ["0001", "0002"])
    env = {
        **RESOURCE_ENV,
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
        "FRAMEWORK_ENV": framework_env,
        "SVC_WORKERS": "1",
        "SVC_TRUSTED_PROXY_HOPS": "1",
    }
    server = start_server(data, env)
    try:
        statuses = [get(server.base_url, "/?verb=Identify&q=Jane%20Doe") for _ in range(3)]
        statuses.append(get(server.base_url, "/no-such-page"))
        statuses.append(get(server.base_url, "/dpe/oai?verb=Identify"))
        statuses += [get(server.base_url, "/projects") for _ in range(2)]  # the second one is replayed
    finally:
        output = stop_server(server)  # a graceful stop flushes every exporter
    assert statuses == [308, 308, 308, 404, 200, 200, 200], output
    return output


@pytest.mark.slow
def test_spans_metrics_and_logs_reach_the_collector_in_dev(receiver, tmp_path):
    output = serve_and_request(receiver, tmp_path, "DEV")

    for resource in resources(receiver.traces, "resource_spans") + resources(receiver.metrics, "resource_metrics"):
        assert EXPECTED_RESOURCE.items() <= resource.items()
    assert resources(receiver.logs, "resource_logs")
    for resource in resources(receiver.logs, "resource_logs"):
        assert EXPECTED_RESOURCE.items() <= resource.items()

    # Traces: one server span per request, named by route; the catalogue load the master did before forking.
    by_name: dict[str, list] = {}
    for span in spans(receiver):
        by_name.setdefault(span.name, []).append(span)
    assert len(by_name["GET /"]) == 3
    home = attributes(by_name["GET /"][0].attributes)
    assert home["http.route"] == "/"
    assert "Jane" not in json.dumps(home) and "198.51.100.23" not in json.dumps(home)
    assert home["http.target"] == "/?verb=Identify&q=REDACTED"
    assert home["client.address"] == "198.51.100.0" and home["net.peer.ip"] == "127.0.0.0"
    (missing,) = by_name["GET"]
    assert attributes(missing.attributes)["http.status_code"] == 404
    (load,) = by_name["catalog.load"]
    load_attributes = attributes(load.attributes)
    assert load_attributes["svc.catalog.projects"] == 2 and load_attributes["svc.catalog.records"] == 4
    (render,) = by_name["oaipmh.render"]
    (oai_request,) = [
        span for name, found in by_name.items() if name.startswith("GET ") and "oai" in name for span in found
    ]
    assert attributes(render.attributes)["oai.verb"] == "Identify"
    assert render.parent_span_id == oai_request.span_id and render.trace_id == oai_request.trace_id

    # Metrics: request durations by route (their count is the request count), catalogue sizes.
    durations = {
        (attrs.get("http.route"), attrs["http.response.status_code"]): point.count
        for point in metric_points(receiver, "http.server.request.duration")
        for attrs in [attributes(point.attributes)]
    }
    assert durations == {("/", 308): 3, (None, 404): 1, ("/dpe/oai", 200): 1, ("/projects", 200): 2}
    sizes = {
        attributes(point.attributes)["svc.catalog.kind"]: point.as_int
        for point in metric_points(receiver, "svc.catalog.size")
    }
    assert sizes["projects"] == 2 and sizes["records"] == 4

    # Logs: every line inside a request carries that request's trace; Django's 404 line too.
    records = log_records(receiver)
    access = [r for r in records if r.body.string_value.startswith("GET /?verb=Identify")]
    assert len(access) == 3
    assert {r.trace_id for r in access} == {span.trace_id for span in by_name["GET /"]}
    (not_found,) = [r for r in records if r.body.string_value == "Not Found: /no-such-page"]
    assert not_found.trace_id == missing.trace_id and not_found.span_id == missing.span_id

    # The readable stdout lines carry the same ids.
    assert f"Not Found: /no-such-page trace_id={missing.trace_id.hex()} span_id={missing.span_id.hex()}" in output


@pytest.mark.slow
def test_a_late_release_is_a_metric_with_how_late_it_was(receiver, tmp_path):
    """svc.release.late: 0 for a release switched to in time, the seconds late for one reloaded after its time."""
    data = write_data_set(tmp_path / "data", ["0001", "0002"])
    stamp(data)
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "SVC_WORKERS": "1", **HIGH_LIMITS_ENV}
    server = start_server(data, env)
    try:
        assert get(server.base_url, "/dpe/oai?verb=Identify") == 200
        edit_json(next((data / "projects").glob("*.json")), lambda project: project.update(name="Renamed"))
        activation = activation_of(stamp(data, 0))
        while time.time() < activation + 2:  # this replica still answers from the release before
            time.sleep(0.1)
        reload(server.process, server.output, server.base_url)
        assert get(server.base_url, "/dpe/oai?verb=Identify") == 200
    finally:
        stop_server(server)  # a graceful stop flushes every exporter
    late = {
        (attributes(point.attributes)["svc.release.activation"], point.as_int)
        for point in metric_points(receiver, "svc.release.late")
    }
    released = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(activation))
    assert {value for moment, value in late if moment != released} == {0}  # the first release: in time
    (seconds,) = {value for moment, value in late if moment == released}
    assert seconds >= 2


@pytest.mark.slow
def test_prod_keeps_logs_on_stdout_with_trace_ids(receiver, tmp_path):
    output = serve_and_request(receiver, tmp_path, "PROD")

    assert spans(receiver) and receiver.logs == []
    traces = {span.trace_id.hex(): span for span in spans(receiver)}
    lines = [json.loads(line) for line in output.splitlines()]
    access = [line for line in lines if line["logger"] == "svc.access"]
    assert len(access) == 7
    for line in access:
        assert traces[line["trace_id"]].span_id.hex() == line["span_id"]
    assert [line["client"] for line in access] == ["198.51.100.0"] * 7
    (not_found,) = [line for line in lines if line["message"] == "Not Found: /no-such-page"]
    assert not_found["trace_id"] == access[3]["trace_id"]
    outside_requests = [line for line in lines if line["logger"].startswith(("gunicorn", "catalog"))]
    assert outside_requests and all("trace_id" not in line for line in outside_requests)


def test_without_endpoint_nothing_is_loaded_or_started():
    """Unset: the app serves normally with no OpenTelemetry module, no export thread, no profiler."""
    code = """
import sys, threading
import django
django.setup()
from django.conf import settings
from svc_site import lifecycle, telemetry
telemetry.start_master(settings.SVC)
from svc_site.wsgi import application
lifecycle.post_fork(None, None)
from django.test import Client
status = Client().get("/").status_code
lifecycle.worker_exit(None, None)
loaded = sorted({name.split(".")[0] for name in sys.modules} & {"opentelemetry", "grpc", "pyroscope"})
print("result:", status, loaded, threading.active_count())
"""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("OTEL_", "PROFILER_"))}
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**env, "DJANGO_SETTINGS_MODULE": "svc_site.settings", "SVC_DATA_DIR": str(PROJECT_ROOT / "tests")},
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        timeout=60,
    )
    assert "result: 308 [] 1" in result.stdout.splitlines(), result.stdout + result.stderr


@pytest.mark.parametrize("value", ["novalue", "=x", "a=1,,b=2", "a=1,b"])
def test_resource_attributes_are_validated(value):
    with pytest.raises(
        ConfigError,
        match=f"^OTEL_RESOURCE_ATTRIBUTES: {value!r} is not allowed; expected comma-separated key=value pairs$",
    ):
        load_config({"OTEL_RESOURCE_ATTRIBUTES": value})
