"""Harvester settings: the new sources are known, bad values are refused naming the variable."""

import pytest
from pydantic import ValidationError

from papertrail.service import settings_error_message
from services.harvester.settings import HarvesterSettings


def test_every_source_module_is_a_known_source(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCES", '["arxiv", "acl", "hf"]')
    monkeypatch.setenv("ACL_VOLUMES", '["2024.acl", "2024.findings"]')
    monkeypatch.setenv("HF_DAYS", "3")
    settings = HarvesterSettings()
    assert settings.sources == ["arxiv", "acl", "hf"] and settings.hf_days == 3
    assert settings.hf_api_url == "https://huggingface.co"
    assert settings.acl_anthology_url == "https://raw.githubusercontent.com/acl-org/acl-anthology/master"


@pytest.mark.parametrize(
    ("variable", "value", "named"),
    [
        ("SOURCES", '["arxiv", "dblp"]', "SOURCES"),
        ("ACL_VOLUMES", '["acl-2024"]', "ACL_VOLUMES"),
        ("HF_DAYS", "-1", "HF_DAYS"),
        ("HF_API_URL", "huggingface.co", "HF_API_URL"),
        ("ACL_INTERVAL_S", "0", "ACL_INTERVAL_S"),
    ],
)
def test_a_bad_setting_is_refused_naming_its_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, named: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError) as error:
        HarvesterSettings()
    assert f"  {named}:" in settings_error_message("harvester", error.value)
