"""docs/configuration.md is what the settings classes say."""

from papertrail_tools.settings_doc import DOC, markdown


def test_configuration_reference_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == markdown(), "run `papertrail settings --write`"
