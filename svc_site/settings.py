"""Django settings: everything comes from the environment through svc_site.config."""

from __future__ import annotations

import secrets
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from svc_site.config import PROJECT_ROOT, ConfigError, load_config
from svc_site.logging_config import build_logging

try:
    SVC, _ = load_config()
except ConfigError as error:
    raise ImproperlyConfigured(str(error)) from None

BASE_DIR = PROJECT_ROOT
# Nothing is signed or stored: no sessions, no auth, no CSRF-protected forms.
SECRET_KEY = secrets.token_urlsafe(50)
DEBUG = False
ALLOWED_HOSTS = list(SVC.allowed_hosts)

INSTALLED_APPS = [
    "django.contrib.staticfiles",
    "svc_site",
    "catalog",
    "catalog.pages",
    "catalog.api",
    "oaipmh",
    "healthz",
    "validation",
]

MIDDLEWARE = [
    "svc_site.middleware.AccessLogMiddleware",
    "svc_site.middleware.DataVersionMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "svc_site.security.SecurityHeadersMiddleware",
    "oaipmh.middleware.AdmissionMiddleware",
    "svc_site.cache.ResponseCacheMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "catalog.pages.languages.LanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
]

ROOT_URLCONF = "svc_site.urls"
WSGI_APPLICATION = "svc_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "svc_site.context_processors.site",
                "catalog.pages.languages.context",
            ]
        },
    }
]

DATABASES: dict[str, dict[str, Any]] = {}
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en"
USE_I18N = True
# The interface languages (docs/languages.md); names as each language writes itself, for the switch.
LANGUAGES = [("en", "English"), ("de", "Deutsch"), ("fr", "Français"), ("it", "Italiano")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_NAME = "svc_language"

STATIC_URL = "/static/"
STATIC_ROOT = SVC.site_root
# The CSS/JS package is published under the FRAMEWORK_* names by svc_site.assets;
# anything in static/public/ is published as it is.
STATICFILES_DIRS = [BASE_DIR / "static" / "public"]
STATICFILES_FINDERS = [
    "svc_site.assets.PackageFinder",
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
]
# Fingerprinted names (svc.3f2a….css) are served by WhiteNoise as immutable, cached for a year.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "svc_site.assets.SiteStaticStorage"},
}

LOGGING_CONFIG = None
build_logging(SVC)

# Nothing is cached through Django's cache framework; OAI rate limits keep
# their own state (in process, or in Redis with SVC_CACHE_URL: catalog.web.ratelimit).
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
