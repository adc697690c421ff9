"""The OAI settings that end up in Identify must be valid there, or start-up stops naming them."""

import pytest

from svc_site.config import ConfigError, load_config


def test_defaults_are_valid():
    config, _ = load_config({})
    assert (config.oai_repository_identifier, config.oai_admin_email) == ("dasch.swiss", "info@dasch.swiss")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("SVC_OAI_REPOSITORY_IDENTIFIER", "dasch"),
        ("SVC_OAI_REPOSITORY_IDENTIFIER", "dasch swiss.ch"),
        ("SVC_OAI_REPOSITORY_IDENTIFIER", "1dasch.swiss"),
        ("SVC_OAI_ADMIN_EMAIL", "info"),
        ("SVC_OAI_ADMIN_EMAIL", "info@localhost"),
    ],
)
def test_invalid_values_name_the_variable(name, value):
    with pytest.raises(ConfigError, match=name):
        load_config({name: value})


def test_other_valid_values():
    config, _ = load_config({"SVC_OAI_REPOSITORY_IDENTIFIER": "repo.example-1.org", "SVC_OAI_ADMIN_EMAIL": "a@b.cd"})
    assert config.oai_repository_identifier == "repo.example-1.org"
