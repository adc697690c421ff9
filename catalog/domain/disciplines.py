"""Disciplines grouped for the listing's facet: one value per SNSF code, one label each.

Projects write an SNSF discipline as free text with its five-digit code in
front, in several spellings and languages ("10404 Kunstgeschichte", "10404
Visual arts and Art history"). The facet groups them by the code and shows the
canonical English label of the SNSF discipline list; the URL keeps the code.
Other entries (UNESCO references, plain text) are grouped by their trimmed text.
"""

from __future__ import annotations

import re

SNSF_CODE = re.compile(r"^\s*([12345][0-9]{4})(?![0-9])\s*(.*)$")

# English labels of the SNSF discipline list, for the codes the catalogue uses.
SNSF_LABELS = {
    "10101": "Philosophy",
    "10102": "Religious studies, Theology",
    "10103": "Ecclesiastical history",
    "10104": "Education and learning sciences, subject-specific education",
    "10105": "Psychology",
    "10201": "Sociology",
    "10202": "Political science",
    "10207": "Social anthropology and ethnology",
    "10300": "Art studies",
    "10301": "General history (without pre- and early history)",
    "10302": "Swiss history",
    "10303": "Ancient history and Classical studies",
    "10400": "Ethnology, social and human geography",
    "10402": "Archaeology",
    "10403": "Ethnology",
    "10404": "Visual arts and Art history",
    "10405": "Musicology",
    "10406": "Theatre and Cinema",
    "10407": "Architecture and Social urban science",
    "10501": "German and English languages and literature",
    "10502": "Romance languages and literature",
    "10600": "Sociology, social work, political science, media and communication studies, health",
    "10603": "Arts",
    "10604": "Music, Theatre",
    "10607": "Applied linguistics",
    "20200": "Astronomy, Astrophysics and Space Sciences",
}


def facet_value(text: str) -> str:
    """The facet value of one discipline text: its SNSF code, else the text itself (trimmed)."""
    text = " ".join(text.split())
    match = SNSF_CODE.match(text)
    return match.group(1) if match else text


def facet_label(value: str) -> str:
    """``10404`` -> ``10404 Visual arts and Art history``; other values are their own label."""
    label = SNSF_LABELS.get(value)
    if label:
        return f"{value} {label}"
    return f"SNSF {value}" if value.isdigit() and len(value) == 5 else value
