"""One version: pyproject.toml's, and every place that shows it says the same.

`svc --version`, the OpenAPI document's `info.version`, the software description
of OAI-PMH Identify, the image's `org.opencontainers.image.version` label (passed
by scripts/build-image) and CHANGELOG.md's latest release all name it, and no
file of svc spells it out again (catalog/domain/version.py reads it).
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from importlib.metadata import version

import pytest

from catalog.domain.version import svc_version
from svc_site.cli import main
from tests.conftest import PROJECT_ROOT
from tests.oai_support import NS, oai

VERSION = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
RELEASE_HEADING = re.compile(r"^## \[(?P<version>[^\]]+)\] - (?P<date>\d{4}-\d{2}-\d{2})$", re.MULTILINE)
SERVICE_PACKAGES = ("catalog", "oaipmh", "svc_site", "validation", "healthz", "apiusage")


def test_the_installed_version_is_pyprojects() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)
    assert version("svc") == svc_version() == VERSION


def test_svc_version_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert main(["stamp", "--version"]) == 0
    assert capsys.readouterr().out == f"svc {VERSION}\nsvc {VERSION}\n"


def test_the_openapi_document_gives_it(client) -> None:
    assert client.get("/api/v2/openapi.json").json()["info"]["version"] == VERSION


def test_oai_pmh_identify_describes_the_software_and_its_version(client) -> None:
    identify = oai(client, verb="Identify").find("o:Identify", NS)  # valid against the XSDs
    software = identify.find("o:description/oai_dc:dc", NS)
    assert software.findtext("dc:title", namespaces=NS) == f"svc {VERSION}"
    assert software.findtext("dc:type", namespaces=NS) == "Software"


def test_the_changelogs_latest_release_is_this_version_under_unreleased() -> None:
    """What changed since the release collects under "Unreleased", the one section above the latest release."""
    changelog = (PROJECT_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    latest = RELEASE_HEADING.search(changelog)
    assert latest is not None and latest["version"] == VERSION
    assert re.findall(r"^## .*$", changelog[: latest.start()], re.MULTILINE) == ["## [Unreleased]"]


def test_the_changelogs_links_lead_to_files_of_the_project() -> None:
    changelog = (PROJECT_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    targets = {target.split("#")[0] for target in re.findall(r"\]\(([^)]+)\)", changelog)}
    local = sorted(target for target in targets if "://" not in target)
    assert "docs/oai-pmh.md" in local
    assert [target for target in local if not (PROJECT_ROOT / target).is_file()] == []


def test_the_image_is_labelled_with_it_by_scripts_build_image() -> None:
    dockerfile = (PROJECT_ROOT / "Dockerfile").read_text(encoding="utf-8")
    for key, argument in (("version", "VERSION"), ("revision", "REVISION"), ("source", "SOURCE")):
        assert f'org.opencontainers.image.{key}="${{{argument}}}"' in dockerfile
    script = (PROJECT_ROOT / "scripts" / "build-image").read_text(encoding="utf-8")
    reading = re.search(r"^version=\$\(.*\)$", script, re.MULTILINE)
    assert reading is not None and "VERSION=${version" in script and "REVISION=$revision" in script
    read = subprocess.run(
        ["bash", "-c", f'{reading[0]}; echo "$version"'], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    assert read.stdout == f"{VERSION}\n"


def test_no_file_of_svc_spells_the_version_out() -> None:
    files = [path for package in SERVICE_PACKAGES for path in (PROJECT_ROOT / package).rglob("*.py")]
    files += [PROJECT_ROOT / "Dockerfile", *sorted((PROJECT_ROOT / "scripts").iterdir())]
    spelled = [str(path.relative_to(PROJECT_ROOT)) for path in files if VERSION in path.read_text(encoding="utf-8")]
    assert spelled == []
