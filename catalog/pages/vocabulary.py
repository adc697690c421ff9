"""The labels the framework-free domain keeps in English, marked here so the catalogues translate them.

Templates show them through ``{% translate %}`` or the ``translated`` filter;
tests/test_languages.py checks this list against the domain's own constants.
"""

from django.utils.translation import gettext, gettext_noop

from catalog.domain.model import ACCESS_RIGHTS, FUNDER_ROLE

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
    gettext_noop("Licence"),
    gettext_noop("Funder"),  # also catalog.domain.model.FUNDER_ROLE, the one role the loader names itself
    gettext_noop("Organization"),
    gettext_noop("Contributor"),
    # catalog.domain.model.PROJECT_STATUSES and ACCESS_RIGHTS
    gettext_noop("Ongoing"),
    gettext_noop("Finished"),
    gettext_noop("Full Open Access"),
    gettext_noop("Open Access with Restrictions"),
    gettext_noop("Embargoed Access"),
    gettext_noop("Metadata only Access"),
)

# catalog.domain.all_records.FACETS (with "Type of data" and "Licence" above)
ALL_RECORDS_FACETS = (gettext_noop("Project"), gettext_noop("Creator"), gettext_noop("Year"))

# Types of data the catalogue's data uses (the values of ``typeOfData``); another value is shown as stored.
TYPES_OF_DATA = (
    gettext_noop("Text"),
    gettext_noop("Image"),
    gettext_noop("XML"),
    gettext_noop("Video"),
    gettext_noop("Audio"),
    gettext_noop("Sound"),
    gettext_noop("Dataset"),
    gettext_noop("Software"),
    gettext_noop("3D model"),
)

# catalog.formats.exports and catalog.formats.citation.STYLES: the labels that are words, not format names.
FORMAT_LABELS = (
    gettext_noop("Formatted citation"),
    gettext_noop("Chicago author-date"),
    gettext_noop("Chicago notes and bibliography"),
)

# catalog.domain.search.BadQuery: why a listing's parameters cannot be answered (the 400 page says it).
BAD_QUERY_REASONS = (
    gettext_noop("give one page number"),
    gettext_noop("the page must be a positive whole number, not {given}"),
    gettext_noop("the search text is longer than {limit} characters"),
    gettext_noop("give one sort order"),
    gettext_noop("unknown sort order {sort}; use one of {sorts}"),
    gettext_noop("more than {limit} filter values"),
    gettext_noop("give one year for {name}"),
    gettext_noop("the year must be a whole number from 1 to 9999, not {given}"),
)


def type_of_data_label(value: str | None) -> str | None:
    """A type of data in the interface language when it is one the catalogues know."""
    return gettext(value) if value in TYPES_OF_DATA else value


def role_label(role: str) -> str:
    """A role as shown: the loader's own "Funder" translated, the data's roles as written."""
    return gettext(role) if role == FUNDER_ROLE else role


def access_rights_label(value: str | None) -> str | None:
    """One of the access rights the catalogue knows in the interface language, another as stored."""
    return gettext(value) if value in ACCESS_RIGHTS else value
