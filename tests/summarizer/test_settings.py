"""Summarizer settings: a bad value stops the service naming its variable; empty values mean unset."""

import pytest
from pydantic import ValidationError

from papertrail.runtime.service import settings_error_message
from services.summarizer.settings import SummarizerSettings


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("OPENAI_BASE_URL", "api.deepseek.com/v1"),
        ("OPENAI_OUTPUT", "xml"),
        ("SUMMARY_CONCURRENCY", "0"),
        ("DAILY_TOKEN_BUDGET", "-1"),
    ],
)
def test_a_bad_setting_is_named(monkeypatch: pytest.MonkeyPatch, variable: str, value: str) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError) as caught:
        SummarizerSettings()
    assert f"  {variable}: " in settings_error_message("summarizer", caught.value)


def test_empty_endpoint_means_no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "")
    monkeypatch.setenv("OPENAI_MODEL", "deepseek-chat")
    assert SummarizerSettings().model_configured is False
