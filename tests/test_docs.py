"""The documentation agrees with the tree: code map, links, paths, variables, `svc` examples, the README's length."""

from __future__ import annotations

import glob
import re
import shlex
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core.management.base import CommandError

from svc_site.cli import HELP_FLAGS, SUBCOMMANDS, VERSION_FLAGS
from svc_site.config import load_config
from tests.conftest import PROJECT_ROOT

DOCS = PROJECT_ROOT / "docs"
# The service's packages: every module in them has a line in the code map.
MAPPED_PACKAGES = ("svc_site", "catalog", "oaipmh", "healthz", "validation", "apiusage")


def code_map() -> list[str]:
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    return re.findall(r"^- `([\w./]+)` — \S", text, flags=re.MULTILINE)


def service_modules() -> set[str]:
    return {
        path.relative_to(PROJECT_ROOT).as_posix()
        for package in MAPPED_PACKAGES
        for path in (PROJECT_ROOT / package).rglob("*.py")
        if path.name != "__init__.py"
    } | {"manage.py"}


def test_every_path_in_the_code_map_exists():
    listed = code_map()
    assert len(listed) == len(set(listed)), "a path is listed twice"
    missing = [path for path in listed if not (PROJECT_ROOT / path).exists()]
    assert missing == []


def test_every_module_is_in_the_code_map():
    assert sorted(service_modules() - set(code_map())) == []


def test_every_package_with_modules_is_in_the_code_map():
    packages = {module.rpartition("/")[0] + "/" for module in service_modules() if "/" in module}
    assert sorted(packages - set(code_map())) == []


def test_relative_links_in_the_docs_point_at_files():
    broken = []
    for document in [PROJECT_ROOT / "README.md", PROJECT_ROOT / "CONTRIBUTING.md", *DOCS.glob("*.md")]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", document.read_text(encoding="utf-8")):
            if not (document.parent / target).exists():
                broken.append(f"{document.name}: {target}")
    assert broken == []


def test_the_readme_stays_short():
    assert len((PROJECT_ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 150


# The documents an operator reads; CHANGELOG.md records history and may name what is gone.
OPERATOR_DOCUMENTS = [PROJECT_ROOT / "README.md", PROJECT_ROOT / "CONTRIBUTING.md", *sorted(DOCS.glob("*.md"))]
OPERATOR_DOCUMENTS.append(PROJECT_ROOT / "bench" / "README.md")
_SVC_COMMAND = re.compile(r"(?:[A-Z_]+=\S*\s+)*(?:\S*/)?svc(?:\s+(.*))?")


def code_texts(document: Path) -> list[str]:
    """Inline code spans and the lines of code blocks (a console's `$ ` prompt removed)."""
    text = document.read_text(encoding="utf-8")
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    lines = [line.strip().removeprefix("$ ") for block in blocks for line in block.splitlines()]
    spans = re.findall(r"(?<!`)`([^`\n]+)`(?!`)", re.sub(r"^```.*?^```", "", text, flags=re.DOTALL | re.MULTILINE))
    return [*lines, *(span.strip() for span in spans)]


def svc_examples() -> list[tuple[str, str]]:
    """(document, the arguments after `svc`) for each `svc …` example with arguments."""
    examples = []
    for document in OPERATOR_DOCUMENTS:
        for code in code_texts(document):
            match = _SVC_COMMAND.fullmatch(code.split("  #")[0].split(" # ")[0].strip())
            if match and match[1] and not match[1].split()[0].endswith(":"):  # not an error line (`svc serve: …`)
                examples.append((document.name, match[1]))
    return examples


def example_arguments(synopsis: str) -> list[str]:
    """A synopsis as arguments: optional groups taken, placeholders and metavariables given sample values."""
    arguments = []
    for token in shlex.split(synopsis.replace("[", " ").replace("]", " ")):
        if re.fullmatch(r"<[^>]+>…?", token):
            arguments.append("placeholder")
        elif token == "URL" and arguments and arguments[-1].startswith("--"):
            arguments.append("http://localhost:8080/healthz")  # an option that takes only http(s) URLs
        elif re.fullmatch(r"[A-Z]+", token) and arguments and arguments[-1].startswith("--"):
            arguments.append("1")  # N, S, DIR: a value every other option type reads
        else:
            arguments.append(token)
    return arguments


def test_the_svc_examples_are_found():
    found = {arguments.split()[0] for _, arguments in svc_examples()}
    assert {"serve", "validate", "stamp", "healthcheck", "check-api-usage", "--help"} <= found


@pytest.mark.parametrize(("document", "synopsis"), svc_examples())
def test_every_svc_example_parses_with_the_real_command_line(document: str, synopsis: str):
    from django.core.management import load_command_class

    first, *rest = example_arguments(synopsis)
    if first in HELP_FLAGS | VERSION_FLAGS or synopsis.startswith("<command>"):  # `svc <command> --help`
        assert set(rest) <= HELP_FLAGS, f"{document}: svc {synopsis}"
        return
    assert first in SUBCOMMANDS, f"{document}: svc {synopsis}"
    if not rest:  # the command named in prose, not an example to run
        return
    command_name = SUBCOMMANDS[first][0]
    app = {"serve": "svc_site", "validate": "validation", "stamp": "catalog", "healthcheck": "healthz"}.get(
        command_name, "apiusage"
    )
    parser = load_command_class(app, command_name).create_parser("svc", first)
    try:
        parser.parse_args([argument for argument in rest if argument not in {"--help", "-h"}])
    except CommandError as error:
        pytest.fail(f"{document}: svc {synopsis}: {error}")


def test_every_variable_named_in_the_docs_is_read_by_svc():
    """…or by one of the shipped scripts (scripts/build-image reads its own, such as SVC_IMAGE_CACHE)."""
    _, read = load_config({})
    scripts = "".join(path.read_text(encoding="utf-8") for path in (PROJECT_ROOT / "scripts").iterdir())
    read = [*read, *re.findall(r"\$\{?((?:SVC|FRAMEWORK)_[A-Z_]*[A-Z])\b", scripts)]
    named = {
        (document.name, name)
        for document in OPERATOR_DOCUMENTS
        for name in re.findall(
            r"\b(?:SVC|FRAMEWORK|OTEL|PROFILER)_[A-Z_]*[A-Z]\b", document.read_text(encoding="utf-8")
        )
    }
    assert sorted((document, name) for document, name in named if name not in read) == []


def test_every_project_path_in_the_docs_exists():
    """A span such as `svc_site/config.py` or `deploy/` names a file or directory of this repository."""
    top_level = {path.name for path in PROJECT_ROOT.iterdir() if not path.name.startswith(".")}
    missing = []
    for document in OPERATOR_DOCUMENTS:
        for code in code_texts(document):
            is_path = re.fullmatch(r"[\w.-]+(/[\w.*-]+)*/?", code) and "/" in code
            if is_path and code.split("/")[0] in top_level and not glob.glob(str(PROJECT_ROOT / code)):
                missing.append(f"{document.name}: {code}")
    assert missing == []


def test_defaults_named_in_the_docs_are_the_configuration_tables():
    """`SVC_X` … (default V) anywhere in the docs says what the table (kept equal to the code) says."""
    table = (DOCS / "configuration.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([A-Z_]+)` \| (.+) \|$", table, flags=re.MULTILINE))
    mentions = []
    for document in OPERATOR_DOCUMENTS:
        text = " ".join(document.read_text(encoding="utf-8").split())
        pattern = r"`((?:SVC|FRAMEWORK|OTEL|RUST|PROFILER)_[A-Z_]+)`[^.(`]{0,60}\(default `?([^`,;)]+)`?"
        mentions += [(document.name, name, value) for name, value in re.findall(pattern, text)]
    assert len(mentions) >= 5
    wrong = []
    for document, name, value in mentions:
        default, _, rest = rows[name].partition(" | ")
        # The default itself, its path (the OAI endpoint's), or the value the meaning gives an unset variable.
        allowed = {default.strip("`"), urlsplit(default.strip("`")).path, *re.findall(r"`([^`]+)`", rest)}
        if value.strip() not in allowed:
            wrong.append(f"{document}: {name} (default {value}) but the table says {default}")
    assert wrong == []
