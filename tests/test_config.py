"""Configuration: one module reads the environment strictly, and docs/configuration.md documents it.

The bad values below are derived from the table's *Allowed* column, so a new
variable is walked as soon as it is documented, and a variable whose kind has
no generic bad values fails until it gets its own.
"""

import logging
import re
from pathlib import Path

import pytest

from svc_site.config import PROJECT_ROOT, ConfigError, load_config, parse_log_filter, variable_defaults
from tests.conftest import run_svc

SAMPLE_DATA = PROJECT_ROOT / "modules/svc/server/data"
# Values that are no number at all: django-environ's float cast once read `abc1` as 1 and `10/min` as 10.
NOT_NUMBERS = ["10/min", "1e400", "1e2", "abc1", "nan", "inf", "-inf", "0x10", "1,5", "½"]
URL_MISTAKES = [
    "not a url",
    "h.example/x",
    "ftp://h.example/x",
    "https:///x",
    "https://h.example/x?x=1",
    "https://h.example/x?",
    "https://h.example/x#part",
    "https://user:secret@h.example/x",
    "https://h.example:99999/x",
    "https://h.example:port/x",
]
# Variables whose kind the generic rules below do not cover: their own bad values.
OWN_BAD_VALUES: dict[str, list[str]] = {
    "RUST_LOG": ["catalog=loud", "info,,catalog=debug", ",", "cat alog=debug", "verbose"],
    "SVC_ANALYTICS_SITE_ID": ["<script>", "a b", "id;x"],
    "SVC_OAI_BASE_URL": ["https://h.example", "https://h.example/"],
    "SVC_OAI_ADMIN_EMAIL": ["info", "info@localhost", "a b@c.d", "a@@b.c"],
    "SVC_OAI_REPOSITORY_IDENTIFIER": ["dasch", "dasch swiss.ch", "1dasch.swiss"],
    "SVC_CACHE_URL": ["memcached://x", "redis://", "redis://h:notaport/0", "unix://", "h:6379"],
    "SVC_ALLOWED_HOSTS": [",", "a.example,", "a.example,,b.example", "a b", "h.example/path", "https://h.example"],
    "OTEL_RESOURCE_ATTRIBUTES": ["novalue", "=x", "a=1,,b=2", ","],
    "FRAMEWORK_SITE_ADDR": ["8080", ":8080", "h:0", "h:65536", "h:80x", "h:-1", "h:"],
    "FRAMEWORK_SITE_ROOT": ["/nonexistent/svc-site-root", "no-such-dir-in-the-project"],
    "FRAMEWORK_SITE_PKG_DIR": ["../up", "a/../b", "a b", "a\\b"],
    "FRAMEWORK_OUTPUT_NAME": ["a/b", "..", ".", "a b"],
    "FRAMEWORK_ENV": ["STAGING", "production"],
    "SVC_REGISTRY_LINKS": [
        "re3data",
        "=https://h.example/",
        "re3data=ftp://h.example/",
        "a=https://h.example/,,b=https://h.example/",
        ",",
    ],
}


def configuration_table() -> dict[str, tuple[str, str]]:
    """Variable -> (documented default, documented allowed values), backticks removed."""
    table = (PROJECT_ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([A-Z_]+)` \| ([^|]+) \| ([^|]+) \|", table, flags=re.MULTILINE)
    return {name: (default.strip(), allowed.strip().replace("`", "")) for name, default, allowed in rows}


def _bounds(allowed: str) -> tuple[str, float, float] | None:
    match = re.fullmatch(r"a (whole|decimal) number from ([\d.]+) to ([\d.]+)", allowed)
    return (match[1], float(match[2]), float(match[3])) if match else None


def _plain(number: float) -> str:
    """A number in plain decimals, as the table writes it (no exponent)."""
    return format(number, "f").rstrip("0").rstrip(".")


def bad_values(name: str, allowed: str) -> list[str]:
    values = list(OWN_BAD_VALUES.get(name, []))
    if bounds := _bounds(allowed):
        kind, minimum, maximum = bounds
        step = 1 if kind == "whole" else minimum or 1
        values += [*NOT_NUMBERS, _plain(maximum + step), _plain(maximum * 10), "-1"]
        values += [_plain(minimum - step)] if minimum > 0 else []
        values += ["1.5", "2.0"] if kind == "whole" else ["0.5.1", "1."]
    elif allowed == "true, false, 1 or 0":
        values += ["yes", "no", "on", "2", "maybe", "truee"]
    elif allowed == "text without control characters":
        values += ["line\nforged ERROR line", "\x1b[31mred", "nul\x01"]
    elif allowed.startswith("an http(s) URL"):
        values += URL_MISTAKES
    return values


BAD = [(name, value) for name, (_, allowed) in configuration_table().items() for value in bad_values(name, allowed)]


def test_the_configuration_table_documents_exactly_the_variables_read():
    _, names = load_config({})
    assert sorted(set(names)) == sorted(configuration_table())


def test_every_documented_variable_has_bad_values_to_walk():
    assert sorted(name for name, (_, allowed) in configuration_table().items() if not bad_values(name, allowed)) == []


@pytest.mark.parametrize(("name", "value"), BAD)
def test_a_bad_value_is_refused_naming_variable_value_and_what_is_allowed(name: str, value: str):
    allowed = configuration_table()[name][1]
    with pytest.raises(ConfigError) as refused:
        load_config({name: value})
    assert str(refused.value) == f"{name}: {value!r} is not allowed; expected {allowed}"


@pytest.mark.parametrize(
    ("name", "bounds"),
    [(name, bounds) for name, (_, allowed) in configuration_table().items() if (bounds := _bounds(allowed))],
)
def test_documented_bounds_are_accepted(name: str, bounds: tuple[str, float, float]):
    _, minimum, maximum = bounds
    # Just outside them is among the bad values above; the bounds themselves are read as given.
    assert load_config({name: _plain(minimum)})[0] != load_config({name: _plain(maximum)})[0]


def test_documented_defaults_are_the_codes(monkeypatch: pytest.MonkeyPatch):
    """A documented literal set explicitly changes nothing; `unset` is a default of None."""
    monkeypatch.chdir(PROJECT_ROOT)  # a relative SVC_DATA_DIR is taken from the current directory
    defaults = variable_defaults()
    unchanged, _ = load_config({})
    for name, (default, _) in configuration_table().items():
        if default == "unset":
            assert defaults[name] is None, name
        else:
            literal = re.fullmatch(r"`([^`]+)`", default)
            assert literal, f"{name}: default {default!r} is neither `a literal` nor unset"
            assert load_config({name: literal[1]})[0] == unchanged, name


def test_an_empty_value_counts_as_unset():
    assert load_config({"SVC_OAI_PAGE_SIZE": "", "SVC_ALLOWED_HOSTS": " "})[0] == load_config({})[0]


def test_strict_values_that_are_allowed(tmp_path: Path):
    config, _ = load_config(
        {
            "SVC_OAI_RATE_LIMIT_PER_SECOND": "0.5",
            "SVC_SHOW_PLACEHOLDER_VALUES": "TRUE",
            "SVC_ALLOWED_HOSTS": " a.example , .b.example,[::1]",
            "SVC_RELOAD_MAX_SHRINK": "0",
            "FRAMEWORK_SITE_ROOT": str(tmp_path),
            "FRAMEWORK_SITE_ADDR": "[::1]:8081",
            "SVC_CACHE_URL": "redis://cache:6379/0?socket_timeout=1",
        }
    )
    assert config.oai_rate_limit_per_second == 0.5 and config.show_placeholder_values is True
    assert config.allowed_hosts == ("a.example", ".b.example", "[::1]")
    assert config.reload_max_shrink == 0 and config.site_root == tmp_path
    assert (config.site_host, config.site_port) == ("::1", 8081)


def test_a_missing_site_root_is_refused_not_created(tmp_path: Path):
    missing = tmp_path / "site"
    with pytest.raises(ConfigError, match=r"^FRAMEWORK_SITE_ROOT: "):
        load_config({"FRAMEWORK_SITE_ROOT": str(missing)})
    assert not missing.exists()


def test_legacy_data_dir_only_when_new_name_unset(tmp_path: Path):
    legacy, current = tmp_path / "legacy", tmp_path / "current"
    assert load_config({"DATA_DIR": str(legacy)})[0].data_dir == legacy
    assert load_config({"DATA_DIR": str(legacy), "SVC_DATA_DIR": str(current)})[0].data_dir == current


def test_rust_log_directives():
    log_filter = parse_log_filter("catalog=debug,django.request=warning")
    assert log_filter.default_level == logging.INFO
    assert log_filter.logger_levels == (("catalog", logging.DEBUG), ("django.request", logging.WARNING))
    assert parse_log_filter("warn").default_level == logging.WARNING
    assert parse_log_filter("error,catalog=trace").logger_levels == (("catalog", logging.DEBUG),)


# Each documented variable's first bad value, through the command that meets it, as an operator would.
COMMANDS = [("serve",), ("validate", str(SAMPLE_DATA)), ("stamp", str(SAMPLE_DATA), "--dry-run")]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "value", "command"),
    [
        (name, bad_values(name, allowed)[0], COMMANDS[index % len(COMMANDS)])
        for index, (name, (_, allowed)) in enumerate(sorted(configuration_table().items()))
    ],
)
def test_a_bad_value_stops_the_cli_with_exit_2_and_one_line(name: str, value: str, command: tuple[str, ...]):
    result = run_svc(*command, env={name: value})
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"svc: configuration error: {name}: {value!r} is not allowed; expected " + configuration_table()[name][1]
    ]


@pytest.mark.parametrize("command", COMMANDS)
def test_number_garbage_stops_every_command(command: tuple[str, ...]):
    result = run_svc(*command, env={"SVC_OAI_RATE_LIMIT_PER_SECOND": "10/min"})
    assert (result.returncode, len(result.stderr.splitlines())) == (2, 1)
    assert "SVC_OAI_RATE_LIMIT_PER_SECOND: '10/min' is not allowed" in result.stderr


def test_rust_log_applies_to_python_loggers():
    code = (
        "import django, logging; django.setup(); print(logging.getLogger('catalog').level, logging.getLogger().level)"
    )
    import os
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "svc_site.settings", "RUST_LOG": "warn,catalog=debug"},
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
    )
    assert result.stdout.split() == [str(logging.DEBUG), str(logging.WARNING)]
