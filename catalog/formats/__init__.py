"""Writers that turn the catalogue into bytes: citations, JSON-LD, DataCite, Dublin Core, sitemaps, links.

Free of Django and of ``svc_site`` (a test keeps it so).
"""
