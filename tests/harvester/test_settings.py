"""Harvester settings: the new sources are known, bad values are refused naming the variable."""

import pytest
from pydantic import ValidationError

from papertrail.runtime.service import settings_error_message
from services.harvester.settings import HarvesterSettings


def test_every_source_module_is_a_known_source(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCES", '["arxiv", "arxiv_feed", "acl", "hf"]')
    monkeypatch.setenv("ARXIV_FEED_CATEGORIES", '["cs.AI", "hep-ph", "q-bio.NC", "astro-ph.GA", "cs"]')
    monkeypatch.setenv("ACL_VOLUMES", '["2024.acl", "2024.findings"]')
    monkeypatch.setenv("HF_DAYS", "3")
    settings = HarvesterSettings()
    assert settings.sources == ["arxiv", "arxiv_feed", "acl", "hf"] and settings.hf_days == 3
    assert settings.arxiv_feed_categories == ["cs.AI", "hep-ph", "q-bio.NC", "astro-ph.GA", "cs"]
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
        ("ARXIV_FEED_CATEGORIES", '["cs.AI", "cs AI"]', "ARXIV_FEED_CATEGORIES"),
        ("ARXIV_FEED_CATEGORIES", "[]", "ARXIV_FEED_CATEGORIES"),
        ("ARXIV_FEED_URL", "rss.arxiv.org/atom", "ARXIV_FEED_URL"),
        ("ARXIV_FEED_WATCH_S", "86400", "ARXIV_FEED_WATCH_S"),
        ("ARXIV_FEED_LEAD_S", "-5", "ARXIV_FEED_LEAD_S"),
    ],
)
def test_a_bad_setting_is_refused_naming_its_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, named: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError) as error:
        HarvesterSettings()
    assert f"  {named}:" in settings_error_message("harvester", error.value)
