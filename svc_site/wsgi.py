"""WSGI entry point: Django behind the /healthz short-cut."""

import os

from django.core.wsgi import get_wsgi_application

from healthz.wsgi import with_healthz

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "svc_site.settings")

application = with_healthz(get_wsgi_application())
