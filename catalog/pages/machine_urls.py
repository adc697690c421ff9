"""The files machines read next to the pages: crawler files, exports, change feeds. Never translated nor prefixed.

Shapes are mirrored by :mod:`catalog.formats.links` (tested).
"""

from django.urls import path

from catalog.formats import exports, result_exports
from catalog.pages import crawler_views, dcat_views, export_views, feeds, views

_CITATION_NAMES = {"bib": "citation-bib", "ris": "citation-ris", "csl.json": "citation-csl-json"}
_FILES = [export for export in exports.WORK_EXPORTS if export is not exports.JSON]

urlpatterns = [
    path("robots.txt", crawler_views.robots_txt, name="robots-txt"),
    *(
        path(export.file, views.records_export, {"key": export.key}, name=f"records-{export.key}")
        for export in result_exports.RESULT_EXPORTS
    ),
    path("sitemap.xml", crawler_views.sitemap_xml, name="sitemap"),
    path("sitemap-<int:number>.xml", crawler_views.sitemap_page_xml, name="sitemap-page"),
    path("feeds/changes.atom", feeds.CatalogChanges(), name="changes-feed"),
    path("projects/<str:shortcode>/changes.atom", feeds.ProjectRecordChanges(), name="project-feed"),
    *(
        path(
            f"projects/<str:shortcode>/{export.file}",
            views.project_export,
            {"key": export.key},
            name=_CITATION_NAMES.get(export.key, f"project-{export.key}"),
        )
        for export in _FILES
    ),
    path("projects/<str:shortcode>/linkset", views.project_linkset, name="project-linkset"),
    *(
        path(
            f"projects/<str:shortcode>/records/<str:record_suffix>/{export.file}",
            views.record_export,
            {"key": export.key},
            name=f"record-{export.key}",
        )
        for export in _FILES
    ),
    path("projects/<str:shortcode>/records/<str:record_suffix>/linkset", views.record_linkset, name="record-linkset"),
    *(
        path(
            f"{prefix}/<str:entity_id>/{export.file}",
            views.entity_export,
            {"kind": kind, "key": export.key},
            name=f"{kind}-{export.key}",
        )
        for export in exports.DESCRIPTION_EXPORTS
        if export is not exports.JSON
        for prefix, kind in (
            ("persons", "person"),
            ("organizations", "organization"),
            ("clusters", "cluster"),
            ("collections", "collection"),
        )
    ),
    path("persons/<str:entity_id>/linkset", views.entity_linkset, {"kind": "person"}, name="person-linkset"),
    path(
        "organizations/<str:entity_id>/linkset",
        views.entity_linkset,
        {"kind": "organization"},
        name="organization-linkset",
    ),
    path(export_views.CATALOGUE_PATH.lstrip("/"), export_views.catalogue_jsonld, name="catalogue-jsonld"),
    path("catalogue/dcat", dcat_views.catalogue, name="catalogue-dcat"),
    *(
        path(
            f"catalogue/dcat.{extension}",
            dcat_views.catalogue_file,
            {"extension": extension},
            name=f"catalogue-dcat-{extension}",
        )
        for extension in dcat_views.EXTENSIONS
    ),
]
