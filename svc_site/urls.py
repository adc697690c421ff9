from django.conf.urls.i18n import i18n_patterns
from django.urls import URLPattern, URLResolver, include, path

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/v2/", include("catalog.api.urls")),
    path("", include("oaipmh.urls")),
    # The pages: English unprefixed, the other languages under /de/, /fr/, /it/ (catalog.pages.languages).
    # Before the machine files, which are fewer requests: no page pattern takes a machine file's path.
    *i18n_patterns(path("", include("catalog.pages.urls")), prefix_default_language=False),
    path("", include("catalog.pages.machine_urls")),
]

handler404 = "catalog.pages.views.page_not_found"
