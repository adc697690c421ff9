"""Catalogue pages: thin views over :mod:`catalog.store`."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect


def home(request: HttpRequest) -> HttpResponse:
    """`/` is the project listing (308 keeps the method)."""
    return redirect("/projects", permanent=True, preserve_request=True)
