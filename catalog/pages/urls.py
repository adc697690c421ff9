"""The pages and the crawler files (robots.txt, sitemaps).

Page shapes are mirrored by :mod:`catalog.formats.links` (tested).
"""

from django.urls import path

from catalog.pages import crawler_views, feeds, views

urlpatterns = [
    path("robots.txt", crawler_views.robots_txt, name="robots-txt"),
    path("sitemap.xml", crawler_views.sitemap_xml, name="sitemap"),
    path("sitemap-<int:number>.xml", crawler_views.sitemap_page_xml, name="sitemap-page"),
    path("", views.home, name="home"),
    path("projects", views.projects, name="projects"),
    path("projects/<str:shortcode>", views.project, name="project"),
    path("feeds/changes.atom", feeds.CatalogChanges(), name="changes-feed"),
    path(
        "projects/<str:shortcode>/changes.atom", views.answers_gone(feeds.ProjectRecordChanges()), name="project-feed"
    ),
    path("projects/<str:shortcode>/records", views.project_records, name="project-records"),
    path("projects/<str:shortcode>/records/<str:record_suffix>", views.record, name="record"),
    path("projects/<str:shortcode>/citation.bib", views.project_citation, {"extension": "bib"}, name="citation-bib"),
    path("projects/<str:shortcode>/citation.ris", views.project_citation, {"extension": "ris"}, name="citation-ris"),
    path(
        "projects/<str:shortcode>/citation.csl.json",
        views.project_citation,
        {"extension": "csl.json"},
        name="citation-csl-json",
    ),
    path("persons/<str:person_id>", views.person, name="person"),
    path("organizations/<str:organization_id>", views.organization, name="organization"),
    path("clusters/<str:cluster_id>", views.cluster, name="cluster"),
    path("collections/<str:collection_id>", views.collection, name="collection"),
    path("about", views.about, name="about"),
]
