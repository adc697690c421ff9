"""The one escaping function of the OAI responses, and the URI/language checks the schemas need."""

from catalog.formats.xmltext import esc, is_language_tag, is_uri, to_uri


def test_esc_escapes_markup_and_drops_what_xml_cannot_carry():
    assert esc("plain text") == "plain text"
    assert esc('a < b & "c" > d') == "a &lt; b &amp; &quot;c&quot; &gt; d"
    assert esc("keep\ttab\nnewline\rreturn") == "keep\ttab\nnewline\rreturn"
    assert esc("x\x00\x08\x0b\x0c\x1f\ud800\udfff\ufffe\uffffy") == "xy"
    assert esc("emoji \U0001f600 stays") == "emoji \U0001f600 stays"


def test_uris():
    assert is_uri("oai:dasch.swiss:ark:/72163/1/0803/lklK7rVuVOmpBZYWrF8o=gh")
    assert is_uri("https://x.test/a%20b?c=d#e")
    assert is_uri("https://x.test/a#") and is_uri("https://x.test/a#b%2F")
    for bad in ("", "a b", "%zz", "a#b#c", "http://[x", "é", "a%", "a%2", "a\n", "https://x.test/a\tb"):
        assert not is_uri(bad)
        assert is_uri(to_uri(bad)) or to_uri(bad) == ""
    assert to_uri(" https://x.test/a b ") == "https://x.test/a%20b"
    assert to_uri("https://x.test/é") == "https://x.test/%C3%A9"


def test_language_tags():
    assert is_language_tag("en") and is_language_tag("x-cpa") and is_language_tag("de-CH")
    assert not is_language_tag("not a language") and not is_language_tag("") and not is_language_tag(None)
