"""The labels the framework-free domain keeps in English, marked here so the catalogues translate them.

Templates show them through ``{% translate %}`` or the ``translated`` filter;
tests/test_languages.py checks this list against the domain's own constants.
"""

from django.utils.translation import gettext_noop

DOMAIN_LABELS = (
    # catalog.domain.search.SORTS
    gettext_noop("Best match"),
    gettext_noop("Name A–Z"),  # noqa: RUF001 (typographic dash)
    gettext_noop("Name Z–A"),  # noqa: RUF001
    gettext_noop("Newest first"),
    gettext_noop("Oldest first"),
    # catalog.domain.search.FACETS
    gettext_noop("Status"),
    gettext_noop("Access rights"),
    gettext_noop("Type of data"),
    gettext_noop("Data language"),
    gettext_noop("Discipline"),
    # catalog.domain.model.PROJECT_STATUSES and ACCESS_RIGHTS
    gettext_noop("Ongoing"),
    gettext_noop("Finished"),
    gettext_noop("Full Open Access"),
    gettext_noop("Open Access with Restrictions"),
    gettext_noop("Embargoed Access"),
    gettext_noop("Metadata only Access"),
)
