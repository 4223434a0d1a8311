"""The query service's settings that stop it at start: in production (PAPERTRAIL_ENV=production, the image's) the
public Meilisearch key and a missing or short SITE_SECRET are refused, each naming its variable; a local run takes
neither, and a worker needs no secret."""

import pytest
from pydantic import ValidationError

from papertrail.runtime.settings import LOCAL_MEILI_KEY
from services.query.settings import QuerySettings

OWN_KEY = "an-own-meilisearch-key-of-some-length"
SECRET = "s" * 48


def refused(**settings: object) -> dict[str, str]:
    """The variables refused, each with why."""
    with pytest.raises(ValidationError) as error:
        QuerySettings(**settings)  # type: ignore[arg-type]
    return {"_".join(map(str, e["loc"])).upper(): e["msg"] for e in error.value.errors()}


def test_production_refuses_the_public_meilisearch_key_and_a_missing_site_secret() -> None:
    problems = refused(papertrail_env="production", meili_master_key=LOCAL_MEILI_KEY)
    assert set(problems) == {"MEILI_MASTER_KEY", "SITE_SECRET"}
    assert "is public" in problems["MEILI_MASTER_KEY"] and "required" in problems["SITE_SECRET"]
    assert QuerySettings(papertrail_env="production", meili_master_key=OWN_KEY, site_secret=SECRET)  # type: ignore[arg-type]
    worker = QuerySettings(papertrail_env="production", meili_master_key=OWN_KEY, query_role="worker")  # type: ignore[arg-type]
    assert worker.site_secret is None  # a worker signs nothing


def test_a_short_site_secret_is_refused_anywhere_and_a_local_run_needs_none() -> None:
    assert "at least 32" in refused(site_secret="short")["SITE_SECRET"]
    local = QuerySettings()
    assert local.papertrail_env == "local" and local.site_secret is None
