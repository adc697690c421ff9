"""The pages, in every interface language (svc_site.urls puts them under i18n_patterns).

Page shapes are mirrored by :mod:`catalog.formats.links` (tested); the files
machines read beside them are in :mod:`catalog.pages.machine_urls`.
"""

from django.urls import path

from catalog.pages import views

urlpatterns = [
    path("", views.home, name="home"),
    path("projects", views.projects, name="projects"),
    path("projects/<str:shortcode>", views.project, name="project"),
    path("projects/<str:shortcode>/records", views.project_records, name="project-records"),
    path("records", views.records_everywhere, name="records"),
    path("records/facets/<str:facet>", views.records_facet, name="records-facet"),
    path("projects/<str:shortcode>/records/<str:record_suffix>", views.record, name="record"),
    path("persons", views.browse_listing, {"kind": "persons"}, name="persons"),
    path("organizations", views.browse_listing, {"kind": "organizations"}, name="organizations"),
    path("clusters", views.browse_listing, {"kind": "clusters"}, name="clusters"),
    path("collections", views.browse_listing, {"kind": "collections"}, name="collections"),
    path("persons/<str:person_id>", views.person, name="person"),
    path("organizations/<str:organization_id>", views.organization, name="organization"),
    path("clusters/<str:cluster_id>", views.cluster, name="cluster"),
    path("collections/<str:collection_id>", views.collection, name="collection"),
    path("about", views.about, name="about"),
    path("overview", views.overview, name="overview"),
]
