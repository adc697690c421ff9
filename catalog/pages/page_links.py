"""Links to the pages, in the language of the page being rendered.

Each is Django's ``reverse`` under the active language: the pages are under
``i18n_patterns`` (svc_site/urls.py), so a link made here is ``/projects/0803``
on an English page and ``/de/projects/0803`` on a German one, and cannot leave
the page's language. Templates reach the same routes with ``{% url %}``. The
files machines read (exports, the API, feeds, the sitemap) keep their one URL:
:mod:`catalog.formats.links`.
"""

from __future__ import annotations

from django.urls import reverse

from catalog.formats import links


def projects() -> str:
    return reverse("projects")


def project(shortcode: str, tab: str | None = None) -> str:
    path = reverse("project", args=[shortcode])
    return f"{path}?tab={tab}" if tab and tab != "overview" else path


def project_records(shortcode: str) -> str:
    return reverse("project-records", args=[shortcode])


def record(shortcode: str, pid: str) -> str:
    return reverse("record", args=[shortcode, links.record_suffix(pid)])


def all_records() -> str:
    return reverse("records")


def records_facet(key: str) -> str:
    """The page of every value of a facet of `/records`."""
    return reverse("records-facet", args=[key])


def listing(kind: str) -> str:
    """A browse listing: ``persons``, ``organizations``, ``clusters`` or ``collections``."""
    return reverse(kind)


def entity(kind: str, entity_id: str) -> str:
    """The page of an entry of a browse listing: ``entity("persons", id)`` is that person's page."""
    return reverse(kind.removesuffix("s"), args=[entity_id])


def person(person_id: str) -> str:
    return reverse("person", args=[person_id])


def organization(organization_id: str) -> str:
    return reverse("organization", args=[organization_id])


def cluster(cluster_id: str) -> str:
    return reverse("cluster", args=[cluster_id])


def collection(collection_id: str) -> str:
    return reverse("collection", args=[collection_id])


def about() -> str:
    return reverse("about")


def overview() -> str:
    return reverse("overview")
