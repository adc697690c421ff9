"""The JSON API under /api/v2/ (described by /api/v2/openapi.json)."""

from django.urls import path, re_path

from catalog.api import views

urlpatterns = [
    path("openapi.json", views.openapi, name="api-openapi"),
    path("projects", views.entity_list("projects"), name="api-projects"),
    path("projects/<str:shortcode>", views.project_detail, name="api-project"),
    path("projects/<str:shortcode>/records", views.project_records, name="api-project-records"),
    path("projects/<str:shortcode>/records/<str:record>", views.project_record, name="api-project-record"),
    path("records", views.records_search, name="api-records"),
    *(
        route
        for kind in ("persons", "organizations", "clusters", "collections")
        for route in (
            path(kind, views.entity_list(kind), name=f"api-{kind}"),
            path(f"{kind}/<str:key>", views.entity_detail(kind), name=f"api-{kind}-detail"),
        )
    ),
    # Anything else under /api/v2/ is a JSON 404, never the HTML one.
    re_path(r"^(?P<rest>.*)$", views.unknown_endpoint, name="api-unknown"),
]
