from django.urls import include, path

urlpatterns = [
    path("api/v2/", include("catalog.api.urls")),
    path("", include("oaipmh.urls")),
    path("", include("catalog.pages.urls")),
]

handler404 = "catalog.pages.views.page_not_found"
