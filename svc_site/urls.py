from django.urls import include, path

urlpatterns = [
    path("api/v2/", include("catalog.api_urls")),
    path("", include("oaipmh.urls")),
    path("", include("catalog.site_urls")),
    path("", include("catalog.urls")),
]

handler404 = "catalog.views.page_not_found"
