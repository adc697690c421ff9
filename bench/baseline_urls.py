"""The Django baseline view: a response of a given size and nothing else to do."""

from __future__ import annotations

from functools import lru_cache

from django.http import HttpRequest, HttpResponse
from django.urls import path

BYTES_PATH = "bench-baseline/bytes/<int:size>"
CODED_PATH = "bench-baseline/gzip/<int:size>"


@lru_cache(maxsize=64)
def payload(size: int) -> bytes:
    return b"x" * size


def fixed_size(request: HttpRequest, size: int) -> HttpResponse:
    """``size`` bytes, prepared once: the cheapest Django response of that length."""
    return HttpResponse(payload(size))


def fixed_size_coded(request: HttpRequest, size: int) -> HttpResponse:
    """``size`` bytes sent as an already gzip-coded body: the floor of a warm compressed svc response."""
    return HttpResponse(payload(size), headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})


urlpatterns = [path(BYTES_PATH, fixed_size), path(CODED_PATH, fixed_size_coded)]
