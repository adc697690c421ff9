#!/usr/bin/env python3
"""Write a synthetic svc data directory of N records, for scale tests and the benchmark.

    python bench/make_corpus.py DEST --records N [--seed S]

The output has the shapes of the production export (all six entity types,
pretty-printed record arrays, legacy ``url`` arrays, placeholders, funding as
grants and as a string, both temporal-coverage shapes, an embargo, projects
sharing a pid) and only references that resolve: every person and organization
is used, every cluster and collection names existing projects, records and
collections. Everything is fictional, generated from the seed; the same
``--records`` and ``--seed`` always give byte-identical files.

Proportions (see bench/README.md): one project per 5,000 records (at least 10),
5 persons and 1.7 organizations per project, one cluster per 17 projects and
one collection per 10 projects (at least 2 of each). A quarter of the records
belong to one very large project; about 30 % of the projects have no records;
the rest are spread over the others with a Zipf-like (1/rank) skew.

Records are streamed to disk one at a time, so memory stays flat and a million
records take seconds, not minutes.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import sys
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

ARK_PREFIX = "https://ark.dasch.swiss/ark:/72163/1"
RECORDS_PER_PROJECT = 5_000
MIN_PROJECTS = 10
PERSONS_PER_PROJECT = 5
ORGANIZATIONS_PER_PROJECT = 1.7
PROJECTS_PER_CLUSTER = 17
PROJECTS_PER_COLLECTION = 10
LARGEST_PROJECT_SHARE = 0.25
PROJECTS_WITHOUT_RECORDS = 0.3
SHARED_PID_FAMILY = ("a", "b", "c")  # projects sharing one pid, as 0801a to 0801e do in production

# Records are created between these instants (UTC), each project in its own window.
EARLIEST = 1_199_145_600  # 2008-01-01
LATEST = 1_751_328_000  # 2025-07-01
YEAR = 31_556_952

ACCESS_RIGHTS = (
    ("Full Open Access", 60),
    ("Open Access with Restrictions", 25),
    ("Embargoed Access", 12),
    ("Metadata only Access", 3),
)
LICENSES = (
    ("CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/"),
    ("CC BY-SA 4.0", "https://creativecommons.org/licenses/by-sa/4.0/"),
    ("CC BY-NC 4.0", "https://creativecommons.org/licenses/by-nc/4.0/"),
    ("CC BY-NC-SA 4.0", "https://creativecommons.org/licenses/by-nc-sa/4.0/"),
    ("CC BY-NC-ND 4.0", "https://creativecommons.org/licenses/by-nc-nd/4.0/"),
    ("public domain", "https://creativecommons.org/publicdomain/zero/1.0/"),
)
DATA_TYPES = (("Text", 50), ("Image", 35), ("Audio", 5), ("Video", 5), ("XML", 5))
MIME_TYPES = {"Text": "image/jp2", "Image": "image/jp2", "Audio": "audio/mpeg", "Video": "video/mp4", "XML": "text/xml"}
DATA_LANGUAGES = ("de", "en", "fr", "it", "la", "rm", "el", "grc", "ar", "es")
ROLES = (
    "Project Leader",
    "Project Member",
    "Data Curator",
    "Data Collector",
    "Researcher",
    "Editor",
    "Author",
    "Contributor",
    "Principal Investigator",
    "Student Assistant",
    "Data Manager",
    "Translator",
)
JOB_TITLES = (
    "Professor",
    "Senior lecturer",
    "PhD candidate",
    "Postdoctoral researcher",
    "Archivist",
    "Curator",
    "MISSING",
)
GIVEN_NAMES = (
    "Anna", "Beat", "Chiara", "Dario", "Elif", "Fabienne", "Gian", "Hanna", "Ilaria", "Jonas", "Katrin", "Luca",
    "Mara", "Niklaus", "Odile", "Pascal", "Regula", "Sandro", "Tamara", "Urs", "Vreni", "Yannick", "Zoé", "Aurèle",
    "Björn", "Céline", "Dominik", "Esther", "Florian", "Gabriela", "Héloïse", "Iwan", "Jolanda", "Kaspar",
)  # fmt: skip
FAMILY_NAMES = (
    "Ammann", "Brunner", "Caflisch", "Dubach", "Egli", "Frei", "Gasser", "Hofstetter", "Imhof", "Jenny", "Kälin",
    "Lüthi", "Meier", "Nüesch", "Oberholzer", "Perrin", "Quadri", "Rüegg", "Schmid", "Tschudi", "Uebersax",
    "Vonlanthen", "Wyss", "Zbinden", "Béguin", "Casanova", "Decurtins", "Fässler", "Giacometti", "Haldimann",
)  # fmt: skip
# Fictional places, so that no generated organization or project names a real one.
PLACES = (
    "Aarwald", "Bergli", "Chastel", "Dornegg", "Erlenbühl", "Felsau", "Grünmatt", "Hohlenstein", "Isental",
    "Juraberg", "Kirchrain", "Lindenhof", "Moosbrugg", "Neuweiler", "Obersaxen", "Plaffenau", "Rüttigen",
    "Seewinkel", "Tannegg", "Unterbach", "Val Mora", "Wolfhalden", "Zinal", "Bellaluna", "Champfèr",
)  # fmt: skip
ORGANIZATION_KINDS = (
    "University of {}", "{} Institute for Digital Humanities", "State Archives of {}", "{} Museum of History",
    "Library of {}", "{} Centre for Manuscript Studies", "Foundation {}", "{} University of Applied Sciences",
)  # fmt: skip
TOPICS = (
    "Letters", "Manuscripts", "Photographs", "Field Notes", "Maps", "Sermons", "Inscriptions", "Oral Histories",
    "Herbarium Sheets", "Film Stills", "Account Books", "Travel Diaries", "Patent Drawings", "Song Sheets",
    "Glass Paintings", "Court Records", "Woodcuts", "Theatre Bills", "School Reports", "Papyri",
)  # fmt: skip
KINDS = ("A Digital Edition of", "Corpus of", "Database of", "Atlas of", "Archive of", "Catalogue of")
PERIODS = (
    ("the Late Middle Ages", "1301/1500"),
    ("the Early Modern Period", "1501/1800"),
    ("the Nineteenth Century", "1801/1900"),
    ("the Twentieth Century", "1901/2000"),
    ("1650\u20131720", "1650/1720"),
    ("1848\u20131914", "1848/1914"),
    ("Antiquity", "-0800/0500"),
)
DISCIPLINES = (
    {"en": "10101 Philosophy"},
    {"en": "10302 Swiss history"},
    {"en": "10402 Archaeology"},
    {"en": "10404 Visual arts and Art history"},
    {"en": "10502 Romance languages and literature"},
    {"en": "10201 Sociology"},
    {"type": "Skos", "url": "http://skos.um.es/unesco6/5505", "text": "History"},
    {"type": "Skos", "url": "http://skos.um.es/unesco6/57", "text": "Linguistics"},
)
KEYWORDS = (
    "Digital edition", "Correspondence", "Iconography", "Book history", "Material culture", "Urban history",
    "Religion", "Migration", "Music", "Cartography", "Botany", "Photography", "Printing", "Landscape", "Law",
)  # fmt: skip
LABELS = (
    "Seite {n}", "Folio {n}r", "Folio {n}v", "Holzschnitt {n}", "Letter {n}", "Photograph {n}", "Fragment {n}",
    "Map sheet {n}", "Recording {n}", "Blatt {n}, Rückseite", "Lettre n° {n}", "Fotografia {n}", "Register entry {n}",
)  # fmt: skip
SENTENCES = {
    "en": (
        "The project studies {topic} from {place} and their circulation in {period}.",
        "It publishes transcriptions, images and commentary as linked open data.",
        "A team of historians and data curators describes every item with controlled vocabularies.",
        "The collection was digitised from holdings in {place} and is enriched with persons and places.",
        "Search and browsing interfaces let researchers compare sources across time and region.",
    ),
    "de": (
        "Das Projekt untersucht {topic} aus {place} und ihre Verbreitung in {period}.",
        "Es veröffentlicht Transkriptionen, Bilder und Kommentare als verknüpfte offene Daten.",
        "Ein Team aus Historikerinnen und Datenkuratoren erschliesst jedes Objekt mit kontrollierten Vokabularen.",
    ),
    "fr": (
        "Le projet étudie les {topic} de {place} et leur circulation à l'époque de {period}.",
        "Il publie des transcriptions, des images et des commentaires sous forme de données ouvertes liées.",
    ),
}


def weighted(rng: random.Random, choices: Sequence[tuple[Any, int]]) -> Any:
    return rng.choices([value for value, _ in choices], [weight for _, weight in choices])[0]


def iso_day(moment: int) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(moment))


def iso_second(moment: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


def ascii_slug(text: str) -> str:
    """Lower-case ASCII letters and digits only, for made-up e-mail addresses and host names."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", text.lower()) if ch.isascii() and ch.isalnum())


def apportion(total: int, weights: Sequence[float]) -> list[int]:
    """Split ``total`` in proportion to ``weights`` exactly (largest remainder)."""
    weight_sum = sum(weights)
    if total == 0 or weight_sum == 0:
        return [0] * len(weights)
    shares = [total * weight / weight_sum for weight in weights]
    counts = [int(share) for share in shares]
    by_remainder = sorted(range(len(weights)), key=lambda i: (counts[i] - shares[i], i))
    for index in by_remainder[: total - sum(counts)]:
        counts[index] += 1
    return counts


@dataclass
class ProjectPlan:
    shortcode: str
    pid: str
    record_count: int
    start: int
    end: int
    access_rights: str
    license: tuple[str, str]
    topic: str
    place: str
    period: tuple[str, str]
    collection_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Sizes:
    """How many entities of each type a corpus of ``records`` records gets."""

    records: int
    projects: int
    persons: int
    organizations: int
    clusters: int
    collections: int

    @classmethod
    def for_records(cls, records: int) -> Sizes:
        projects = max(MIN_PROJECTS, round(records / RECORDS_PER_PROJECT))
        return cls(
            records=records,
            projects=projects,
            persons=PERSONS_PER_PROJECT * projects,
            organizations=max(3, round(ORGANIZATIONS_PER_PROJECT * projects)),
            clusters=max(2, round(projects / PROJECTS_PER_CLUSTER)),
            collections=max(2, round(projects / PROJECTS_PER_COLLECTION)),
        )


class CorpusWriter:
    """Generates and writes one corpus; every random draw comes from one seeded generator, in a fixed order."""

    def __init__(self, dest: Path, sizes: Sizes, seed: int) -> None:
        self.dest = dest
        self.sizes = sizes
        self.rng = random.Random(seed)
        width = max(3, len(str(max(sizes.persons, sizes.organizations, sizes.clusters, sizes.collections))))
        self.person_ids = [f"person-{i:0{width}d}" for i in range(1, sizes.persons + 1)]
        self.organization_ids = [f"organization-{i:0{width}d}" for i in range(1, sizes.organizations + 1)]
        self.cluster_ids = [f"cluster-{i:0{width}d}" for i in range(1, sizes.clusters + 1)]
        self.collection_ids = [f"collection-{i:0{width}d}" for i in range(1, sizes.collections + 1)]
        self.projects = self._plan_projects()
        # Collections name a few records; their ids are picked while the records are written.
        self.collection_records: dict[str, list[str]] = {}

    # -- planning -------------------------------------------------------------------------------

    def _shortcodes(self) -> tuple[list[str], str]:
        """Distinct 4-hex-digit shortcodes; the last three share one pid (``XXXXa``, ``XXXXb``, …)."""
        count = self.sizes.projects
        plain = count - len(SHARED_PID_FAMILY)
        codes = self.rng.sample(range(0x0100, 0x10000), plain + 1)
        family_base = f"{codes[-1]:04X}"
        return [f"{code:04X}" for code in codes[:plain]] + [family_base + s for s in SHARED_PID_FAMILY], family_base

    def _plan_projects(self) -> list[ProjectPlan]:
        rng = self.rng
        shortcodes, family_base = self._shortcodes()
        count = len(shortcodes)
        empty = round(PROJECTS_WITHOUT_RECORDS * count)
        order = list(range(count))
        rng.shuffle(order)
        largest, without_records, others = order[0], set(order[1 : 1 + empty]), order[1 + empty :]
        weights = [0.0] * count
        for rank, index in enumerate(others, start=2):  # rank 1 is the largest project
            weights[index] = 1 / rank
        rest = self.sizes.records - round(LARGEST_PROJECT_SHARE * self.sizes.records) if others else 0
        counts = apportion(rest, weights)
        counts[largest] = self.sizes.records - rest
        plans = []
        for index, shortcode in enumerate(shortcodes):
            start = rng.randrange(EARLIEST, LATEST - YEAR)
            end = min(LATEST, start + rng.randrange(2 * YEAR, 9 * YEAR))
            pid_code = family_base if shortcode.startswith(family_base) and len(shortcode) == 5 else shortcode
            plans.append(
                ProjectPlan(
                    shortcode=shortcode,
                    pid=f"{ARK_PREFIX}/{pid_code}",
                    record_count=0 if index in without_records else counts[index],
                    start=start,
                    end=end,
                    access_rights=weighted(rng, ACCESS_RIGHTS),
                    license=rng.choice(LICENSES[:-1]),
                    topic=rng.choice(TOPICS),
                    place=rng.choice(PLACES),
                    period=rng.choice(PERIODS),
                )
            )
        return plans

    # -- output helpers -------------------------------------------------------------------------

    def write_json(self, relative: str, value: Any) -> None:
        path = self.dest / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value, indent=4, ensure_ascii=False) + "\n", encoding="utf-8")

    # -- entities -------------------------------------------------------------------------------

    def write_organizations(self) -> None:
        rng = self.rng
        for index, organization_id in enumerate(self.organization_ids):
            place = PLACES[index % len(PLACES)]
            name = rng.choice(ORGANIZATION_KINDS).format(place)
            if index >= len(PLACES):
                name = f"{name} {index // len(PLACES) + 1}"
            slug = ascii_slug(name)[:24]
            organization: dict[str, Any] = {
                "id": organization_id,
                "name": name,
                "url": f"https://www.{slug}.example.org/",
            }
            if rng.random() < 0.65:
                organization["address"] = {
                    "street": f"{rng.choice(FAMILY_NAMES)}strasse {rng.randint(1, 120)}",
                    "postalCode": str(rng.randint(1000, 9699)),
                    "locality": place,
                    "country": "Switzerland",
                }
            if rng.random() < 0.35:
                organization["email"] = f"info@{slug}.example.org"
            if rng.random() < 0.3:
                organization["sameAs"] = [{"type": "ROR", "url": f"https://ror.org/0{self._token(8).lower()}"}]
            if rng.random() < 0.1:
                organization["alternativeName"] = {"en": name.upper()[:12]}
            self.write_json(f"organizations/{organization_id}.json", organization)

    def write_persons(self) -> None:
        """Persons with 0 to 2 affiliations; the first ones cover every organization but the funder (no orphans)."""
        rng = self.rng
        affiliable = self.organization_ids[1:]  # the funder (the first one) is referenced by the projects' funding
        for index, person_id in enumerate(self.person_ids):
            given, family = rng.choice(GIVEN_NAMES), rng.choice(FAMILY_NAMES)
            if index < len(affiliable):
                affiliations = [affiliable[index]]
            else:
                affiliations = rng.sample(affiliable, k=min(len(affiliable), weighted(rng, ((0, 5), (1, 88), (2, 7)))))
            person: dict[str, Any] = {
                "id": person_id,
                "givenNames": [given] + ([rng.choice(GIVEN_NAMES)] if rng.random() < 0.1 else []),
                "familyNames": [family],
                "jobTitles": [rng.choice(JOB_TITLES)],
            }
            if affiliations:
                person["affiliations"] = affiliations
            if rng.random() < 0.5:
                person["email"] = f"{ascii_slug(given)}.{ascii_slug(family)}.{index}@example.org"
            if rng.random() < 0.4:
                orcid = "-".join(f"{rng.randrange(10_000):04d}" for _ in range(4))
                person["sameAs"] = [
                    {
                        "type": "ORCID",
                        "url": f"https://orcid.org/{orcid}",
                        "text": f"ORCID URL: https://orcid.org/{orcid}",
                    }
                ]
            self.write_json(f"persons/{person_id}.json", person)

    def _token(self, length: int) -> str:
        return base64.b32encode(self.rng.randbytes(length)).decode()[:length]

    def _attributions(self) -> list[list[dict[str, Any]]]:
        """Per project: contributors; every person appears at least once, some in several projects."""
        rng = self.rng
        persons = list(self.person_ids)
        rng.shuffle(persons)
        count = len(self.projects)
        big_team = rng.randrange(count)
        teams: list[list[str]] = [[] for _ in range(count)]
        for position, person_id in enumerate(persons):
            teams[position % count].append(person_id)
        for index, team in enumerate(teams):
            extra = 45 if index == big_team else weighted(rng, ((0, 50), (1, 30), (3, 20)))
            for person_id in rng.sample(persons, k=min(extra, len(persons))):
                if person_id not in team:
                    team.append(person_id)
        attributions = []
        for team in teams:
            entries = [
                {"contributor": person_id, "contributorType": rng.sample(ROLES, k=rng.randint(1, 2))}
                for person_id in team
            ]
            if rng.random() < 0.1:
                entries.append({"contributor": rng.choice(self.organization_ids[1:]), "contributorType": ["Publisher"]})
            attributions.append(entries)
        return attributions

    def write_projects(self) -> None:
        rng = self.rng
        funder = self.organization_ids[0]
        for index, (plan, attributions) in enumerate(zip(self.projects, self._attributions(), strict=True)):
            period_name, _ = plan.period
            name = f"{rng.choice(KINDS)} {plan.topic} from {plan.place}, {period_name}"
            words = {"topic": plan.topic.lower(), "place": plan.place, "period": period_name}
            languages = ["en"] if rng.random() < 0.6 else rng.choice((["de"], ["fr"], ["de", "en"], ["en", "fr"]))
            description = {
                lang: " ".join(s.format(**words) for s in SENTENCES[lang] * rng.randint(1, 3)) for lang in languages
            }
            year = time.gmtime(plan.end).tm_year
            ongoing = plan.end >= LATEST - YEAR
            access: dict[str, Any] = {"accessRights": plan.access_rights}
            if plan.access_rights == "Embargoed Access" and rng.random() < 0.5:
                access["embargoDate"] = f"{rng.randint(2026, 2031)}-{rng.randint(1, 12):02d}-01"
            license_id, license_uri = ("MISSING", "MISSING") if rng.random() < 0.05 else plan.license
            leaders = [a["contributor"] for a in attributions if a["contributor"].startswith("person-")]
            project: dict[str, Any] = {
                "id": plan.shortcode,
                "pid": plan.pid,
                "name": name,
                "shortcode": plan.shortcode,
                "officialName": name,
                "status": "Ongoing" if ongoing else "Finished",
                "shortDescription": SENTENCES["en"][0].format(**words),
                "description": description,
                "startDate": iso_day(plan.start),
                "endDate": "MISSING" if ongoing and rng.random() < 0.5 else iso_day(plan.end),
                "howToCite": f"{name} ({year}) DaSCH. {plan.pid.removeprefix('https://')}",
                "accessRights": access,
                "legalInfo": [
                    {
                        "license": {
                            "licenseIdentifier": license_id,
                            "licenseDate": iso_day(plan.end),
                            "licenseURI": license_uri,
                        },
                        "copyrightHolder": name,
                        "authorship": ["CALCULATED"],
                    }
                ],
                "dataManagementPlan": "not accessible",
                "typeOfData": sorted(rng.sample([t for t, _ in DATA_TYPES], k=rng.randint(1, 3))),
                "dataLanguage": rng.sample(DATA_LANGUAGES, k=rng.randint(1, 3)),
                "keywords": [{"en": keyword} for keyword in rng.sample(KEYWORDS, k=rng.randint(2, 6))]
                + [{"de": plan.place}],
                "disciplines": rng.sample(DISCIPLINES, k=rng.randint(1, 2)),
                "temporalCoverage": self._temporal_coverage(plan),
                "spatialCoverage": [
                    {
                        "type": "Geonames",
                        "url": f"https://www.geonames.org/{rng.randint(2_600_000, 2_700_000)}",
                        "text": plan.place,
                    }
                ],
                "attributions": attributions,
                "abstract": {"en": " ".join(s.format(**words) for s in SENTENCES["en"])},
                "funding": self._funding(funder, always=index == 0),
            }
            url_shape = rng.random()
            app_url = f"https://app.dasch.swiss/project/{self._token(22)}"
            if url_shape < 0.6:
                project["url"] = [app_url]
            elif url_shape < 0.8:
                project["url"] = [
                    app_url,
                    f"https://{plan.place.lower().replace(' ', '')}-{plan.shortcode.lower()}.example.org/",
                ]
            elif url_shape < 0.9:
                project["url"] = {"type": "URL", "url": app_url, "text": "Discover Project Data"}
            if rng.random() < 0.12:
                project["secondaryUrl"] = {
                    "type": "URL",
                    "url": f"https://project-{plan.shortcode.lower()}.example.org/",
                }
            if rng.random() < 0.6:
                project["alternativeNames"] = [{"en": plan.topic}]
            publications = self._publications(plan, leaders)
            if publications:
                project["publications"] = publications
            if rng.random() < 0.9 and leaders:
                project["contactPoint"] = [leaders[0]]
            if not ongoing and rng.random() < 0.1:
                project["dataPublicationYear"] = str(year)
            if plan.collection_ids:
                project["collections"] = plan.collection_ids
            self.write_json(f"projects/{plan.shortcode}_{plan.topic.lower().replace(' ', '-')}.json", project)

    def _temporal_coverage(self, plan: ProjectPlan) -> list[dict[str, Any]]:
        period_name, _ = plan.period
        shape = self.rng.random()
        if shape < 0.4:
            return [{"en": period_name}]
        if shape < 0.75:
            return [
                {
                    "type": "Chronontology",
                    "url": f"https://chronontology.dainst.org/period/{self._period_id(plan.period)}",
                    "text": period_name,
                }
            ]
        return [
            {"type": "Periodo", "url": f"http://n2t.net/ark:/99152/p0{self._token(8).lower()}", "text": period_name},
            {"de": period_name, "en": period_name},
        ]

    @staticmethod
    def _period_id(period: tuple[str, str]) -> str:
        return f"bench{PERIODS.index(period):07d}"

    def _funding(self, funder: str, always: bool) -> list[dict[str, Any]] | str:
        """Grants (mostly by the one big funder), or the string "No funding"; ``always`` keeps the funder used."""
        rng = self.rng
        if rng.random() < 0.1 and not always:
            return "No funding"
        grants = []
        for _ in range(weighted(rng, ((1, 85), (2, 15)))):
            number = str(rng.randint(100_000, 230_000))
            grant: dict[str, Any] = {"funders": [funder]}
            if rng.random() < 0.2:
                grant["funders"].append(rng.choice(self.organization_ids[1:]))
            if rng.random() < 0.9:
                grant.update(number=number, name="Project funding", url=f"https://grants.example.org/grant/{number}")
            grants.append(grant)
        return grants

    def _publications(self, plan: ProjectPlan, authors: list[str]) -> list[dict[str, Any]]:
        rng = self.rng
        publications = []
        for position in range(weighted(rng, ((0, 40), (2, 40), (6, 20)))):
            year = time.gmtime(plan.start).tm_year + position
            entry: dict[str, Any] = {
                "text": f"{rng.choice(FAMILY_NAMES)} {rng.choice(GIVEN_NAMES)} ({year}), "
                f"On the {plan.topic.lower()} of {plan.place}, in Journal of Fictional Studies, {position + 1}, 1-20."
            }
            if rng.random() < 0.4:
                doi = f"10.5555/bench.{plan.shortcode.lower()}.{position}"
                entry["pid"] = {"url": f"https://doi.org/{doi}", "text": doi}
            publications.append(entry)
        return publications

    def write_clusters(self) -> None:
        rng = self.rng
        family = [plan.shortcode for plan in self.projects[-len(SHARED_PID_FAMILY) :]]
        singles = [plan.shortcode for plan in self.projects[: -len(SHARED_PID_FAMILY)]]
        rng.shuffle(singles)
        for index, cluster_id in enumerate(self.cluster_ids):
            members = family if index == 0 else [singles.pop() for _ in range(min(len(singles), rng.randint(2, 5)))]
            cluster: dict[str, Any] = {
                "id": cluster_id,
                "name": f"{rng.choice(TOPICS)} Cluster {index + 1}",
                "description": {"en": f"A cluster of {len(members)} related research projects."},
                "projects": members,
            }
            if index == 0:
                cluster["pid"] = self.projects[-1].pid
            self.write_json(f"clusters/{cluster_id}.json", cluster)

    def plan_collections(self) -> None:
        """Each collection names one or two projects (and three records of each); the first nests the second."""
        for index, collection_id in enumerate(self.collection_ids):
            members = self.rng.sample(self.projects, k=1 + (index % 2))
            for plan in members:
                plan.collection_ids.append(collection_id)
            self.collection_records[collection_id] = []

    def write_collections(self) -> None:
        for index, collection_id in enumerate(self.collection_ids):
            members = [plan.shortcode for plan in self.projects if collection_id in plan.collection_ids]
            collection: dict[str, Any] = {
                "id": collection_id,
                "name": {"en": f"Collection {index + 1}: {self.rng.choice(TOPICS)}"},
                "description": {"en": f"Selected items of {', '.join(members)}."},
                "projects": members,
                "records": self.collection_records[collection_id],
                "collections": [self.collection_ids[1]] if index == 0 else [],
            }
            if index % 2 == 0:
                collection["pid"] = f"{ARK_PREFIX}/{members[0]}/collection-{index + 1}"
            self.write_json(f"collections/{collection_id}.json", collection)

    # -- records --------------------------------------------------------------------------------

    def write_records(self) -> None:
        for plan in self.projects:
            if plan.record_count:
                with open(self.dest / "records" / f"{plan.shortcode}-records.json", "w", encoding="utf-8") as out:
                    self._write_record_array(out, plan)

    def _write_record_array(self, out: TextIO, plan: ProjectPlan) -> None:
        """Stream one project's records, pretty-printed the way the production export is."""
        rng = self.rng
        random_ = rng.random
        randbytes = rng.randbytes
        randrange = rng.randrange
        encode = base64.urlsafe_b64encode
        dumps = json.dumps
        code = plan.shortcode
        license_id, license_uri = plan.license if random_() < 0.5 else LICENSES[-1]
        constant = (
            f'    "accessRights" : "{plan.access_rights}",\n'
            '    "legalInfo" : {\n'
            '      "license" : {\n'
            f'        "licenseIdentifier" : "{license_id}",\n'
            f'        "licenseDate" : "{iso_day(plan.end)}",\n'
            f'        "licenseURI" : "{license_uri}"\n'
            "      },\n"
            '      "copyrightHolder" : "DaSCH",\n'
            '      "authorship" : [\n'
            '        "DaSCH"\n'
            "      ]\n"
            "    },\n"
        )
        wanted = {0, plan.record_count // 2, plan.record_count - 1}
        span = max(1, plan.end - plan.start)
        out.write("[\n")
        for index in range(plan.record_count):
            token = encode(randbytes(16))[:22].decode()
            record_id = f"http://rdfh.ch/{code}/{token}"
            pid = f"{ARK_PREFIX}/{code}/{token.replace('-', '=')}{token[randrange(22)]}"
            created = plan.start + randrange(span)
            published = created if random_() < 0.7 else min(LATEST, created + randrange(YEAR))
            data_type = "Text" if random_() < 0.6 else "Image"
            label = LABELS[randrange(len(LABELS))].format(n=index + 1)
            label_json = dumps(label, ensure_ascii=False)
            language = "de" if random_() < 0.2 else "en"
            parts = [
                "  {\n",
                f'    "id" : "{record_id}",\n',
                f'    "pid" : "{pid}",\n',
                f'    "label" : {{\n      "{language}" : {label_json}\n    }},\n',
                constant,
                f'    "howToCite" : {label_json},\n',
                '    "publisher" : "DaSCH",\n',
                f'    "dateCreated" : "{iso_second(created)}",\n',
            ]
            if random_() < 0.05:
                modified = min(LATEST, published + randrange(3 * YEAR))
                parts.append(f'    "dateModified" : "{iso_second(modified)[:-1]}.{randrange(10**9):09d}Z",\n')
            parts.append(f'    "datePublished" : "{iso_second(published)}",\n')
            parts.append(f'    "typeOfData" : "{data_type}",\n')
            if random_() < 0.1:
                keyword = KEYWORDS[randrange(len(KEYWORDS))]
                parts.append(f'    "keywords" : [\n      {{\n        "en" : "{keyword}"\n      }}\n    ]')
            else:
                parts.append('    "keywords" : []')
            if random_() < 0.08:
                parts.append(f',\n    "description" : "{data_type} item {index + 1} of project {code}."')
            if random_() < 0.95:
                asset = encode(randbytes(17))[:23].decode()
                parts.append(
                    ',\n    "file" : {\n'
                    f'      "mimeType" : "{MIME_TYPES[data_type]}",\n'
                    f'      "url" : "https://ingest.dasch.swiss/projects/{code}/assets/{asset}/original"\n'
                    "    }"
                )
            parts.append("\n  }")
            if index:
                out.write(",\n")
            out.write("".join(parts))
            if index in wanted:
                for collection_id in plan.collection_ids:
                    self.collection_records[collection_id].append(record_id)
        out.write("\n]\n")

    # -- temporal coverage resolution -----------------------------------------------------------

    def write_temporal_files(self) -> None:
        periods = {}
        enrichment = {}
        for period in PERIODS:
            name, span = period
            begin, end = span.split("/")
            periods[self._period_id(period)] = {"hasTimespan": [{"begin": {"at": begin}, "end": {"at": end}}]}
            enrichment[name] = {"date": span, "original_name": name, "source": "bench"}
        self.write_json("chronontology-periods.json", periods)
        self.write_json("temporal-coverage-enrichment.json", enrichment)

    def write(self) -> None:
        for kind in ("projects", "persons", "organizations", "clusters", "collections", "records"):
            (self.dest / kind).mkdir(parents=True, exist_ok=True)
        self.write_organizations()
        self.write_persons()
        self.plan_collections()
        self.write_records()
        self.write_projects()
        self.write_clusters()
        self.write_collections()
        self.write_temporal_files()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, help="directory to create (must not exist or be empty)")
    parser.add_argument("--records", type=int, required=True, help="number of records")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1); same seed, same bytes")
    args = parser.parse_args(argv)
    if args.records < 0:
        parser.error("--records must be 0 or more")
    if args.dest.exists() and (not args.dest.is_dir() or any(args.dest.iterdir())):
        parser.error(f"{args.dest} exists and is not an empty directory")

    started = time.perf_counter()
    sizes = Sizes.for_records(args.records)
    CorpusWriter(args.dest, sizes, args.seed).write()
    summary = ", ".join(f"{getattr(sizes, name)} {name}" for name in Sizes.__dataclass_fields__)
    print(f"wrote {summary} to {args.dest} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
