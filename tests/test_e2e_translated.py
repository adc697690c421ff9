"""No English interface text on a German, French or Italian page, checked in Chromium against a real `svc serve`.

The check is built from the translation catalogues: every English message whose
translation differs from it becomes a pattern (placeholders match anything,
markup is dropped), and each page in de/fr/it is searched for it after its
script has run — visible text, accessible names (``aria-label``), ``title``,
``alt``, meta and OpenGraph descriptions, the messages the script shows
(``data-message-*``) and the stacked tables' labels (``data-label``). A new
string that is shown without going through the catalogues is therefore caught
as soon as its English form is in a catalogue, and a string missing from the
catalogues is caught by tests/test_languages.py.
"""

from __future__ import annotations

import re
from functools import cache

import polib
import pytest
from playwright.sync_api import Page

from tests.conftest import PROJECT_ROOT, Server
from tests.test_e2e_browser import server  # noqa: F401 (fixtures)
from tests.test_e2e_reflow import PAGES, WITHDRAWN, in_language

TRANSLATED = ("de", "fr", "it")
# A message this long (letters, without placeholders) is also looked for inside longer texts; a shorter
# one only as a whole text, so that the data's own English words ("Image", "Text") are never mistaken for it.
INSIDE_LENGTH = 20

# Every text the reader meets, one string per element or attribute.
SHOWN_TEXTS = """() => {
  const texts = [document.title];
  const norm = s => (s || '').replace(/\\s+/g, ' ').trim();
  for (const element of document.querySelectorAll('body, body *')) {
    if (element.closest('[lang]') && element.closest('[lang]').lang !== document.documentElement.lang) continue;
    // The data's own words as written: keywords ("Data") and the names of listed entities ("About DaSCH").
    if (element.closest('.keywords, .entity-list li > a')) continue;
    if (!['SCRIPT', 'STYLE'].includes(element.tagName) && element.innerText !== undefined) {
      texts.push(norm(element.innerText));
      texts.push(norm(Array.from(element.childNodes).filter(n => n.nodeType === 3).map(n => n.data).join(' ')));
    }
    for (const attribute of element.attributes) {
      if (['aria-label', 'title', 'alt', 'placeholder', 'data-label', 'data-tabs-label'].includes(attribute.name)
          || attribute.name.startsWith('data-message-')) texts.push(norm(attribute.value));
    }
  }
  const heads = 'meta[name=description], meta[property^="og:"], meta[name^="twitter:"], link[title]';
  for (const meta of document.querySelectorAll(heads)) {
    texts.push(norm(meta.getAttribute('content') || meta.getAttribute('title')));
  }
  return texts.filter(Boolean);
}"""


def _pattern(message: str) -> tuple[re.Pattern[str], bool]:
    """The message as it shows on a page (a regular expression), and whether to look for it inside texts."""
    shown = " ".join(re.sub(r"<[^>]+>", "", message).split())
    parts = re.split(r"%\(\w+\)s|\{\w+\}", shown)
    # A placeholder stands for a name or a number, not for a paragraph of the data that begins with "About".
    pattern = re.compile(".{1,80}?".join(re.escape(part) for part in parts))
    letters = sum(character.isalpha() for character in "".join(parts))
    return pattern, letters >= INSIDE_LENGTH


@cache
def english_messages(language: str) -> tuple[tuple[str, re.Pattern[str], bool], ...]:
    """The catalogue's English messages that read differently in ``language``."""
    catalogue = polib.pofile(str(PROJECT_ROOT / "locale" / language / "LC_MESSAGES" / "django.po"))
    # An English message that is also a word of this language ("Discipline" is Italian for "Disciplines").
    native = {entry.msgstr for entry in catalogue} | {
        text for entry in catalogue for text in entry.msgstr_plural.values()
    }
    messages = []
    for entry in catalogue:
        if entry.obsolete:
            continue
        pairs = (
            [(entry.msgid, entry.msgstr_plural[0]), (entry.msgid_plural, entry.msgstr_plural[1])]
            if entry.msgid_plural
            else [(entry.msgid, entry.msgstr)]
        )
        for english, translated in pairs:
            if (
                english != translated
                and english not in native
                and re.sub(r"%\(\w+\)s|\{\w+\}", "", english).strip(" .:,()")
            ):
                messages.append((english, *_pattern(english)))
    return tuple(messages)


def english_left(page: Page, url: str, language: str) -> list[tuple[str, str]]:
    """(message, the text it was found in) for every English interface text on the page."""
    page.goto(url)
    texts = set(page.evaluate(SHOWN_TEXTS))
    found = []
    for message, pattern, inside in english_messages(language):
        for text in texts:
            if pattern.fullmatch(text) or (inside and pattern.search(text)):
                found.append((message, text[:120]))
    return found


def test_the_check_finds_english_text():
    patterns = {message: pattern for message, pattern, _ in english_messages("de")}
    assert patterns["Search projects"].fullmatch("Search projects")
    assert patterns["Search: %(text)s"].fullmatch("Search: basel")
    assert not patterns["Search projects"].fullmatch("Projekte durchsuchen")


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("path", PAGES)
def test_no_english_interface_text_in_a_translated_page(tab, server: Server, path: str, language: str):  # noqa: F811
    found = english_left(tab(), server.base_url + in_language(path, language), language)
    print(f"UNTRANSLATED\t{path}\t{language}\t{len(found)}")
    assert found == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_no_english_interface_text_on_the_withdrawn_page(tab, withdrawn_server: Server, language: str):
    found = english_left(tab(), withdrawn_server.base_url + in_language(f"/projects/{WITHDRAWN}", language), language)
    print(f"UNTRANSLATED\t/projects/{WITHDRAWN} (410)\t{language}\t{len(found)}")
    assert found == []
