from django.urls import URLPattern, URLResolver, include, path

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/v2/", include("catalog.api.urls")),
    path("", include("oaipmh.urls")),
    path("", include("catalog.pages.urls")),
]

handler404 = "catalog.pages.views.page_not_found"
