"""Configuration: one module reads the environment, validates it, and docs/configuration.md documents it."""

import logging
import re
from pathlib import Path

import pytest

from svc_site.config import PROJECT_ROOT, ConfigError, load_config, parse_log_filter
from tests.conftest import run_svc


def documented_variables() -> set[str]:
    table = (PROJECT_ROOT / "docs" / "configuration.md").read_text()
    return set(re.findall(r"^\| `([A-Z_]+)` \|", table, flags=re.MULTILINE))


def test_the_configuration_table_documents_exactly_the_variables_read():
    _, names = load_config({})
    assert set(names) == documented_variables()


def test_defaults():
    config, _ = load_config({})
    assert config.data_dir == PROJECT_ROOT / "modules/svc/server/data"
    assert config.oai_path == "dpe/oai"
    assert (config.site_host, config.site_port) == ("0.0.0.0", 8080)
    assert config.oai_page_size == 100 and config.oai_rate_limit_burst == 60
    assert config.show_placeholder_values is False and config.analytics_site_id is None


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


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("RUST_LOG", "catalog=loud"),
        ("SVC_OAI_PAGE_SIZE", "0"),
        ("SVC_OAI_PAGE_SIZE", "ten"),
        ("SVC_OAI_RATE_LIMIT_PER_SECOND", "-1"),
        ("SVC_SHOW_PLACEHOLDER_VALUES", "maybe"),
        ("SVC_OAI_BASE_URL", "not a url"),
        ("FRAMEWORK_SITE_ADDR", "8080"),
        ("FRAMEWORK_ENV", "STAGING"),
        ("SVC_CACHE_URL", "memcached://x"),
        ("SVC_TRUSTED_PROXY_HOPS", "-2"),
    ],
)
def test_invalid_value_names_the_variable(name: str, value: str):
    with pytest.raises(ConfigError, match=rf"^{name}: "):
        load_config({name: value})


def test_invalid_value_stops_the_cli_with_one_line():
    result = run_svc("serve", env={"SVC_OAI_PAGE_SIZE": "lots"})
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "SVC_OAI_PAGE_SIZE" in lines[0]


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
