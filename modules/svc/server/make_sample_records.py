"""Write the record files of the bundled sample data (``data/records/<SHORTCODE>-records.json``).

The records are fictional, like the rest of the sample data. They are
generated rather than written by hand because one project needs more than a
thousand of them (paging, OAI resumption tokens). Generation is deterministic:
the same script always writes the same bytes, and a test compares its output
with the committed files, so edit this script and re-run it rather than
editing the JSON.

Usage: ``python modules/svc/server/make_sample_records.py [DATA_DIR]``
"""

# The sample texts are deliberately multilingual (Turkish dotless i, en dashes).
# ruff: noqa: RUF001

from __future__ import annotations

import base64
import hashlib
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent / "data"
ARK_PREFIX = "https://ark.dasch.swiss/ark:/72163/1/"
IRI_PREFIX = "http://rdfh.ch/"
ASSET_URL = "https://ingest.dasch.swiss/projects/{shortcode}/assets/{asset}/original"
PUBLISHER = "DaSCH"

Record = dict[str, Any]


@dataclass(frozen=True)
class Item:
    """What differs between the records of one project: label, type, file, description, keywords."""

    label: dict[str, str]
    type_of_data: str
    mime_type: str | None = None
    description: dict[str, str] | None = None
    keywords: tuple[dict[str, str], ...] = ()


@dataclass(frozen=True)
class Plan:
    shortcode: str
    first: datetime
    last: datetime
    items: Callable[[random.Random], list[Item]]


def resource_id(shortcode: str, number: int, salt: str = "") -> str:
    """A 22-character URL-safe id, like the repository's resource ids."""
    digest = hashlib.sha256(f"{shortcode}/{number}{salt}".encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()[:22]


def timestamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def utc(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


# ------------------------------------------------------------------ 08A1 charters (the large file)

CHARTER_ISSUERS = (
    "Der Bischof von Chur",
    "Der Abt von Pfäfers",
    "Die Äbtissin von Cazis",
    "Der Graf von Sargans",
    "Der Ritter von Marmels",
    "Der Propst von St. Luzi",
    "Die Gemeinde Maienfeld",
    "Der Vogt von Fürstenau",
)
CHARTER_ACTIONS = ("bestätigt", "verkauft", "schenkt", "verleiht", "tauscht", "verpfändet")
CHARTER_RECIPIENTS = (
    "dem Kloster St. Luzi",
    "dem Domkapitel Chur",
    "der Kirche St. Martin",
    "dem Spital zum Heiligen Geist",
    "den Brüdern von Juvalt",
    "der Nachbarschaft Tamins",
)
CHARTER_OBJECTS = (
    "einen Hof",
    "den Zehnten",
    "eine Mühle",
    "Alprechte",
    "einen Weinberg",
    "Fischereirechte",
    "eine Hube",
)
CHARTER_PLACES = (
    "Maienfeld",
    "Malans",
    "Zizers",
    "Trimmis",
    "Igis",
    "Tamins",
    "Domat/Ems",
    "Flims",
    "Ilanz",
    "Sagogn",
    "Thusis",
    "Tomils",
)
CHARTER_COUNT = 400  # three records each: transcription, recto, verso


def charters(rng: random.Random) -> list[Item]:
    items: list[Item] = []
    for number in range(1, CHARTER_COUNT + 1):
        year = 800 + number * 500 // CHARTER_COUNT - rng.randrange(0, 2)
        place = rng.choice(CHARTER_PLACES)
        regest = (
            f"{rng.choice(CHARTER_ISSUERS)} {rng.choice(CHARTER_ACTIONS)} {rng.choice(CHARTER_RECIPIENTS)} "
            f"{rng.choice(CHARTER_OBJECTS)} in {place}"
        )
        keywords = ({"de": "Urkunde"}, {"de": place}) if number % 5 == 0 else ()
        items.append(
            Item(
                label={"de": f"Urkunde {number:03d}: {regest} ({year})"},
                type_of_data="Text",
                mime_type="application/xml",
                description={"de": f"Regest: {regest}. Ausgestellt {year}. Diplomatische Transkription in TEI P5."},
                keywords=keywords,
            )
        )
        for side, side_en in (("recto", "recto"), ("verso", "verso")):
            items.append(
                Item(
                    label={"de": f"Urkunde {number:03d}, {side}", "en": f"Charter {number:03d}, {side_en}"},
                    type_of_data="Image",
                    mime_type="image/jp2",
                )
            )
    return items


# ------------------------------------------------------------------ 08A2 photo archive

PHOTO_MOTIFS = (
    "Gletschertor",
    "Hotel auf der Passhöhe",
    "Bergführer mit Gästen",
    "Zahnradbahn bei der Bergstation",
    "Seilschaft am Grat",
    "Sennerin vor der Alphütte",
    "Eisfeld mit Schlittschuhläufern",
    "Postkutsche vor dem Kurhaus",
)
PHOTO_PLACES = ("Engelberg", "Pilatus", "Rigi-Kulm", "Titlis", "Trübsee", "Melchsee-Frutt", "Brünig", "Gerschnialp")
FILM_TITLES = (
    "Skirennen auf der Gerschnialp",
    "Eröffnung der Luftseilbahn",
    "Alpaufzug in Engelberg",
    "Winterferien am Trübsee",
    "Bau der Passstrasse",
    "Gletscherwanderung mit Führer",
)


def photographs(rng: random.Random) -> list[Item]:
    items = []
    for number in range(1, 91):
        year = 1880 + number * 70 // 90
        items.append(
            Item(
                label={
                    "de": f"{rng.choice(PHOTO_MOTIFS)}, {rng.choice(PHOTO_PLACES)}, Glasplattennegativ Nr. {number} "
                    f"(um {year})"
                },
                type_of_data="Image",
                mime_type="image/jp2",
            )
        )
    for number, title in enumerate(FILM_TITLES, 1):
        items.append(
            Item(
                label={"de": f"Filmrolle {number}: {title} ({1925 + 4 * number})"},
                type_of_data="Moving image",
                mime_type="video/mp4",
                description={"de": "16-mm-Film, stumm, digitalisiert 2023."},
            )
        )
    return items


# ------------------------------------------------------------------ 08A3 dialect atlas

WALSER_PLACES = (
    "Bosco/Gurin",
    "Obersaxen",
    "Vals",
    "Davos",
    "Safien",
    "Rheinwald",
    "Gressoney",
    "Alagna",
    "Macugnaga",
    "Rimella",
    "Issime",
    "Saas",
)
WALSER_WORDS = ("Milch", "Butter", "Sennhütte", "Schnee", "Kirche", "heute", "Grossmutter", "Ziege", "Brot")
WALSER_TOPICS = ("die Alpfahrt", "die Auswanderung nach Amerika", "den Winter im Dorf", "das Heuen")


def dialect_atlas(rng: random.Random) -> list[Item]:
    items = []
    for number in range(1, 37):
        place = WALSER_PLACES[number % len(WALSER_PLACES)]
        word = rng.choice(WALSER_WORDS)
        items.append(
            Item(
                label={"de": f"Aufnahme {place}, Frage {rng.randrange(1, 421)}: «{word}»"},
                type_of_data="Audio",
                mime_type="audio/mpeg",
            )
        )
    for number in range(1, 19):
        place = WALSER_PLACES[number % len(WALSER_PLACES)]
        items.append(
            Item(
                label={"de": f"Transkription {place}: Erzählung über {rng.choice(WALSER_TOPICS)}"},
                type_of_data="Text",
                mime_type="application/pdf",
            )
        )
    for number in range(1, 7):
        items.append(
            Item(
                label={"de": f"Karte {number * 7}: Bezeichnungen für «{WALSER_WORDS[number]}»"},
                type_of_data="Image",
                mime_type="image/tiff",
            )
        )
    return items


# ------------------------------------------------------------------ 08B0 letters

LETTER_WRITERS = (
    "Isaac Dufour",
    "Élisabeth de Montrichard",
    "Pierre Mercier",
    "Jeanne-Marie Duval",
    "Abraham Golay",
    "Suzanne Cuénod",
    "Jacques-Antoine Sarrasin",
    "Marc Lullin de Châteauvieux",
)
LETTER_PLACES = ("Genève", "Lausanne", "Morges", "Nyon", "Vevey", "Berne", "Amsterdam", "Londres")
FRENCH_MONTHS = (
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
)


def letters(rng: random.Random) -> list[Item]:
    items = []
    for number in range(1, 41):
        writer, addressee = rng.sample(LETTER_WRITERS, 2)
        date = f"{rng.randrange(1, 29)} {rng.choice(FRENCH_MONTHS)} {1680 + number * 2}"
        label = {"fr": f"Lettre de {writer} à {addressee}, {rng.choice(LETTER_PLACES)}, {date}"}
        if number % 4 == 0:
            items.append(Item(label={"fr": f"Fac-similé : {label['fr']}"}, type_of_data="Image", mime_type="image/jp2"))
        else:
            items.append(Item(label=label, type_of_data="Text", mime_type="application/xml"))
    return items


# ------------------------------------------------------------------ 08C7 oral history (metadata only: no files)

INTERVIEWS = (
    {"de": "Interview mit einer ehemaligen Spulerin, Wattwil (2017)"},
    {"it": "Intervista con un ex tessitore, Bütschwil (2017)"},
    {"tr": "Eski bir dokuma işçisiyle görüşme, Lichtensteig (2018)"},
    {"de": "Interview mit einem Webermeister, Ebnat-Kappel (2017)"},
    {"de": "Gespräch mit zwei Schwestern aus dem Kosthaus, Wattwil (2018)"},
    {"it": "Intervista con un'operaia della filatura, Dietfurt (2018)"},
    {"de": "Interview mit einem Gewerkschaftssekretär, Wattwil (2018)"},
    {"tr": "Bir iplik fabrikası işçisiyle söyleşi, Bütschwil (2019)"},
    {"de": "Interview mit der Tochter eines Fabrikanten, Lichtensteig (2019)"},
    {"it": "Intervista con una coppia di emigrati, Wattwil (2019)"},
    {"de": "Rundgang durch die stillgelegte Spinnerei, Dietfurt (2019)"},
    {"de": "Interview mit einem Lehrling von 1962, Ebnat-Kappel (2019)"},
)


def interviews(rng: random.Random) -> list[Item]:
    return [
        Item(label=label, type_of_data="Video" if number % 3 else "Moving image")
        for number, label in enumerate(INTERVIEWS, 1)
    ]


# ------------------------------------------------------------------ 09E2 herbarium

TAXA = (
    "Gentiana lutea L.",
    "Arnica montana L.",
    "Trollius europaeus L.",
    "Drosera rotundifolia L.",
    "Pinguicula vulgaris L.",
    "Primula auricula L.",
    "Saxifraga oppositifolia L.",
    "Vaccinium oxycoccos L.",
    "Daphne mezereum L.",
    "Menyanthes trifoliata L.",
)
HERBARIUM_NOTES = (
    "récolté à La Brévine par un temps froid",
    "tourbière des Ponts, fleurs encore fermées",
    "envoyé par M. Godet, Neuchâtel",
    "employé contre la fièvre selon les gens du Cerneux-Péquignot",
    "Creux-du-Van, éboulis exposés au nord",
)


def herbarium(rng: random.Random) -> list[Item]:
    items = []
    for number in range(1, 31):
        taxon = TAXA[number % len(TAXA)]
        plate = 40 + number * 3
        if number % 5 == 0:
            note = f"{rng.choice(HERBARIUM_NOTES)}, {rng.choice(FRENCH_MONTHS)} {1832 + number}"
            items.append(
                Item(label={"fr": f"Annotation de la planche {plate} : {note}"}, type_of_data="Text", mime_type=None)
            )
        else:
            items.append(
                Item(
                    label={"fr": f"Planche {plate} : {taxon}"},
                    type_of_data="Image",
                    mime_type="image/jp2",
                    keywords=({"la": taxon.split()[0]},),
                )
            )
    return items


# ------------------------------------------------------------------ 0C2D papyri

PAPYRUS_TYPES = (
    "tax receipt for wheat",
    "private letter",
    "lease of a vineyard",
    "list of names",
    "school exercise (alphabet)",
    "Coptic letter",
    "account of expenses",
)


def papyri(rng: random.Random) -> list[Item]:
    items = []
    for number in range(1, 31):
        inventory = 3 + number * 7
        kind = PAPYRUS_TYPES[number % len(PAPYRUS_TYPES)]
        if number % 3 == 0:
            items.append(
                Item(
                    label={"en": f"P.Lem. inv. {inventory}: {kind}, edition (EpiDoc)"},
                    type_of_data="Text",
                    mime_type="application/xml",
                )
            )
        else:
            items.append(
                Item(label={"en": f"P.Lem. inv. {inventory}: {kind}"}, type_of_data="Image", mime_type="image/jp2")
            )
    return items


# ------------------------------------------------------------------ 1204 Romansh radio

ROMANSH_MONTHS = (
    "schaner",
    "favrer",
    "mars",
    "avrigl",
    "matg",
    "zercladur",
    "fanadur",
    "avust",
    "settember",
    "october",
    "november",
    "december",
)
RADIO_TOPICS = (
    "Dumondas davart l'agricultura",
    "Teater per radio: La mazza",
    "Reportascha da la mastralia",
    "Predgia da Nadal",
    "Chanzuns popularas da la Surselva",
    "Intervista cun in magister da Lumnezia",
)


def radio(rng: random.Random) -> list[Item]:
    items = []
    for number in range(1, 49):
        year = 1950 + number * 35 // 48
        title = (
            f"Emissiun dals {rng.randrange(1, 29)} da {rng.choice(ROMANSH_MONTHS)} {year}: {rng.choice(RADIO_TOPICS)}"
        )
        if number % 6 == 0:
            items.append(
                Item(label={"rm": f"Transcripziun – {title}"}, type_of_data="Text", mime_type="application/pdf")
            )
        else:
            items.append(Item(label={"rm": title}, type_of_data="Audio", mime_type="audio/mpeg"))
    return items


PLANS = (
    Plan("08A1", utc(2015, 3, 1), utc(2020, 11, 30), charters),
    Plan("08A2", utc(2021, 6, 1), utc(2025, 5, 31), photographs),
    Plan("08A3", utc(2013, 1, 1), utc(2018, 2, 28), dialect_atlas),
    Plan("08B0", utc(2023, 1, 1), utc(2025, 4, 30), letters),
    Plan("08C7", utc(2016, 9, 1), utc(2019, 9, 30), interviews),
    Plan("09E2", utc(2019, 4, 1), utc(2020, 12, 31), herbarium),
    Plan("0C2D", utc(2018, 1, 1), utc(2020, 7, 31), papyri),
    Plan("1204", utc(2022, 4, 1), utc(2025, 3, 31), radio),
)


def load_project(data_dir: Path, shortcode: str) -> dict[str, Any]:
    [path] = sorted((data_dir / "projects").glob(f"{shortcode}_*.json"))
    return json.loads(path.read_text(encoding="utf-8"))


def build_records(plan: Plan, project: dict[str, Any]) -> list[Record]:
    """One project's records; rights, licence and citation come from the project file."""
    rng = random.Random(f"sample-records/{plan.shortcode}")
    licence = project["legalInfo"][0]
    legal_info = {
        "license": licence["license"],
        "copyrightHolder": licence["copyrightHolder"],
        "authorship": [licence["copyrightHolder"]],
    }
    span = int((plan.last - plan.first).total_seconds())
    records = []
    for number, item in enumerate(plan.items(rng), 1):
        rid = resource_id(plan.shortcode, number)
        pid = f"{ARK_PREFIX}{plan.shortcode}/{rid}"
        created = plan.first + timedelta(seconds=rng.randrange(span))
        text = next(iter(item.label.values()))
        record: Record = {
            "id": f"{IRI_PREFIX}{plan.shortcode}/{rid}",
            "pid": pid,
            "label": item.label,
            "accessRights": project["accessRights"]["accessRights"],
            "legalInfo": legal_info,
            "howToCite": f"{text}. In: {project['name']}. {PUBLISHER}. {pid}",
            "publisher": PUBLISHER,
            "dateCreated": timestamp(created),
        }
        if rng.random() < 0.08:
            record["dateModified"] = timestamp(created + timedelta(days=rng.randrange(30, 400), hours=3))
        record["datePublished"] = timestamp(created + timedelta(days=rng.choice((0, 0, 0, 14, 90))))
        record["typeOfData"] = item.type_of_data
        record["keywords"] = list(item.keywords)
        if item.description:
            record["description"] = item.description
        if item.mime_type:
            asset = resource_id(plan.shortcode, number, salt="/asset")
            record["file"] = {
                "mimeType": item.mime_type,
                "url": ASSET_URL.format(shortcode=plan.shortcode, asset=asset),
            }
        records.append(record)
    return records


def render_all(data_dir: Path = DATA_DIR) -> dict[str, str]:
    """File name -> file text of every record file, exactly as committed."""
    return {
        f"{plan.shortcode}-records.json": json.dumps(
            build_records(plan, load_project(data_dir, plan.shortcode)), indent=2, ensure_ascii=False
        )
        + "\n"
        for plan in PLANS
    }


def main(argv: list[str]) -> int:
    data_dir = Path(argv[1]) if len(argv) > 1 else DATA_DIR
    target = data_dir / "records"
    target.mkdir(parents=True, exist_ok=True)
    for name, text in render_all(data_dir).items():
        (target / name).write_text(text, encoding="utf-8")
        print(f"wrote {target / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
