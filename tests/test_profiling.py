"""CPU profiling: a real `svc serve` pushing profiles to a Pyroscope-compatible endpoint started here."""

from __future__ import annotations

import gzip
import http.client
import http.server
import threading
import time
from collections import Counter
from collections.abc import Iterator

import pytest

from tests.conftest import start_server, stop_server
from tests.ops_support import mapped_files, worker_pids, write_data_set

PUSH_PATH = "/push.v1.PusherService/Push"  # Pyroscope's push API, as the agent speaks it


class PushEndpoint(http.server.ThreadingHTTPServer):
    """Answers 200 to every push and keeps (path, headers, body)."""

    def __init__(self) -> None:
        self.pushes: list[tuple[str, dict, bytes]] = []
        super().__init__(("127.0.0.1", 0), PushHandler)


class PushHandler(http.server.BaseHTTPRequestHandler):
    server: PushEndpoint

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.pushes.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[PushEndpoint]:
    server = PushEndpoint()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def protobuf_fields(data: bytes) -> Iterator[tuple[int, int | bytes]]:
    """(field number, value) pairs of a protobuf message: just enough wire format to read a profile."""
    index = 0

    def varint() -> int:
        nonlocal index
        shift = result = 0
        while True:
            byte = data[index]
            index += 1
            result |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return result

    while index < len(data):
        key = varint()
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            yield number, varint()
        elif wire_type == 2:
            length = varint()
            yield number, data[index : index + length]
            index += length
        elif wire_type in (1, 5):
            size = 8 if wire_type == 1 else 4
            yield number, int.from_bytes(data[index : index + size], "little")
            index += size
        else:
            raise ValueError(f"wire type {wire_type}")


def decode_varints(data: bytes) -> list[int]:
    """A packed repeated integer field."""
    values, shift, current = [], 0, 0
    for byte in data:
        current |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            values.append(current)
            shift = current = 0
    return values


def values_of(message: bytes, number: int) -> list:
    return [value for field_number, value in protobuf_fields(message) if field_number == number]


def pushed_profiles(body: bytes) -> tuple[dict[str, str], list[bytes]]:
    """The labels and pprof profiles of a push (PushRequest: series -> labels, samples -> raw_profile)."""
    labels, profiles = {}, []
    for series in values_of(gzip.decompress(body), 1):
        for label in values_of(series, 1):
            pair = dict(protobuf_fields(label))
            labels[pair[1].decode()] = pair[2].decode()
        for sample in values_of(series, 2):
            (profile,) = values_of(sample, 1)
            profiles.append(gzip.decompress(profile) if profile[:2] == b"\x1f\x8b" else profile)
    return labels, profiles


def cpu_time_by_function(pprof: bytes) -> tuple[list[tuple[str, str]], Counter]:
    """A pprof profile's sample types, and the time each function ("file:name") was on the stack."""
    strings = [value.decode() for value in values_of(pprof, 6)]
    sample_types = [
        (strings[t.get(1, 0)], strings[t.get(2, 0)]) for t in map(dict, map(protobuf_fields, values_of(pprof, 1)))
    ]
    functions = {}
    for function in map(dict, map(protobuf_fields, values_of(pprof, 5))):
        functions[function[1]] = f"{strings[function.get(4, 0)]}:{strings[function.get(2, 0)]}"
    locations = {
        values_of(location, 1)[0]: [dict(protobuf_fields(line))[1] for line in values_of(location, 4)]
        for location in values_of(pprof, 4)
    }
    time_by_function: Counter = Counter()
    for sample in values_of(pprof, 2):
        location_ids = [i for v in values_of(sample, 1) for i in (decode_varints(v) if isinstance(v, bytes) else [v])]
        (value,) = [i for v in values_of(sample, 2) for i in (decode_varints(v) if isinstance(v, bytes) else [v])]
        for name in {functions[function_id] for location_id in location_ids for function_id in locations[location_id]}:
            time_by_function[name] += value
    return sample_types, time_by_function


def hammer(base_url: str, seconds: float) -> int:
    host, port = base_url.removeprefix("http://").split(":")
    count, end = 0, time.monotonic() + seconds
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    while time.monotonic() < end:
        connection.request("GET", "/no-such-page")
        connection.getresponse().read()
        count += 1
    connection.close()
    return count


@pytest.mark.slow
def test_workers_push_cpu_time_per_function(endpoint, tmp_path):
    data = write_data_set(tmp_path / "data", ["0001"])
    server = start_server(
        data,
        {
            "PROFILER_ENDPOINT": f"http://127.0.0.1:{endpoint.server_port}",
            "OTEL_SERVICE_NAME": "svc-profiled",
            "SVC_WORKERS": "1",
            "RUST_LOG": "warn",  # keep the sampled work in the request path, not in writing logs
        },
    )
    try:
        (worker,) = worker_pids(server.process.pid)
        assert any("pyroscope" in path for path in mapped_files(worker))
        assert hammer(server.base_url, 1.5) > 0
    finally:
        output = stop_server(server)  # the worker pushes what it sampled since the last upload as it stops

    assert endpoint.pushes, output
    time_by_function: Counter = Counter()
    for path, headers, body in endpoint.pushes:
        assert path == PUSH_PATH and headers["content-encoding"] == "gzip"
        labels, profiles = pushed_profiles(body)
        assert labels["service_name"] == "svc-profiled"
        for profile in profiles:
            sample_types, times = cpu_time_by_function(profile)
            assert sample_types == [("cpu", "nanoseconds")]
            time_by_function.update(times)
    middleware = [name for name in time_by_function if "svc_site/middleware.py:AccessLogMiddleware.__call__" in name]
    assert middleware and time_by_function[middleware[0]] > 0, time_by_function.most_common(10)
