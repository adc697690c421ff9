"""catalog.publishing.changes without a catalogue: the sources an existing ledger holds, read project by project."""

from __future__ import annotations

import io

from catalog.publishing.changes import KnownSources, published_fingerprint

LEDGER = (
    "svc-ledger\t2\t300\n"
    "P\t0001\tf\t100\t\t\tA\tark:/1/0001\tp/\tentityType\tentityType\n"
    "R\tp/1\tf1\t100\t\t\ts1\n"
    "R\tp/2\tf2\t100\t\t200\ts2\tentityType\tp/\n"
    "P\t0003\tf\t100\t\t\tC\tark:/1/0003\tq/\tentityType\tentityType\n"
    "R\tq/1\tf3\t100\t\t\ts3\n"
    "E\tpersons\tperson-1\tf4\t100\t\t\n"
)


def test_sources_come_project_by_project_and_skip_projects_not_asked_for() -> None:
    known = KnownSources(io.StringIO(LEDGER))
    assert known.of("0000") == {}
    assert known.of("0001") == {"p/1": "s1", "p/2": "s2"}
    assert known.of("0002") == {}
    assert known.of("0003") == {"q/1": "s3"}
    assert known.of("0004") == {}


def test_a_version_1_ledger_or_none_knows_no_sources() -> None:
    assert KnownSources(io.StringIO("svc-ledger\t1\nR\tp/1\tf1\t100\t\t\n")).of("0001") == {}
    assert KnownSources(None).of("0001") == {}


def test_the_fingerprint_covers_the_sets_and_every_format() -> None:
    base = published_fingerprint(("a", "b"), ("<dc/>", "<datacite/>"))
    assert base != published_fingerprint(("a",), ("<dc/>", "<datacite/>"))
    assert base != published_fingerprint(("a", "b"), ("<dc/>", "<datacite x='1'/>"))
    assert base == published_fingerprint(["a", "b"], iter(["<dc/>", "<datacite/>"]))
