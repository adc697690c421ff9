"""The OAI-PMH endpoint lives at the path of SVC_OAI_BASE_URL (with or without a trailing slash, never redirected)."""

import re

from django.conf import settings
from django.urls import re_path

from oaipmh import views

urlpatterns = [
    re_path(rf"^{re.escape(settings.SVC.oai_path)}/?$", views.endpoint, name="oai"),
]
