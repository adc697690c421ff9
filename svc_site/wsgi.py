"""WSGI entry point: Django (traced when OpenTelemetry is on) behind the /healthz short-cut."""

import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

from healthz.wsgi import with_healthz
from svc_site.telemetry import instrument_wsgi

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "svc_site.settings")

application = with_healthz(instrument_wsgi(get_wsgi_application(), settings.SVC))
