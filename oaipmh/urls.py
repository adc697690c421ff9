"""The OAI-PMH endpoint lives at the path of SVC_OAI_BASE_URL (with or without a trailing slash, never redirected)."""

from django.conf import settings
from django.urls import path

from oaipmh import views

urlpatterns = [
    path(settings.SVC.oai_path, views.endpoint, name="oai"),
    path(f"{settings.SVC.oai_path}/", views.endpoint),
]
