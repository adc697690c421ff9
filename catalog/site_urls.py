"""Site-wide files for crawlers, routed before the catalogue pages."""

from django.urls import path

from catalog import site_views

urlpatterns = [
    path("robots.txt", site_views.robots_txt, name="robots-txt"),
    path("sitemap.xml", site_views.sitemap_xml, name="sitemap"),
    path("sitemap-<int:number>.xml", site_views.sitemap_page_xml, name="sitemap-page"),
]
