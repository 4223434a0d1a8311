"""Schemathesis against the query service's own OpenAPI: generated requests never get a 5xx."""

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from tests.conftest import Servers
from tests.integration.services import create_user, running_service

pytestmark = pytest.mark.integration
TOKEN: dict[str, str] = {}


@pytest.fixture(scope="module")
def query_api(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    run = uuid.uuid4().hex[:8]
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_fuzz_{run}",
        "INDEX_NAME": f"papers_fuzz_{run}",
        "TOPIC_PARTITIONS": "3",
    }
    with running_service("query", env, tmp_path_factory.mktemp("fuzz")) as port:
        TOKEN["value"] = create_user(env, f"fuzz-{run}")
        yield f"http://127.0.0.1:{port}"


def test_no_server_errors(query_api: str) -> None:
    """Every operation, with generated parameters and bodies (authenticated as a real user), answers below 500."""
    from hypothesis import given

    schema = schemathesis.openapi.from_url(f"{query_api}/openapi.json")
    headers = {"Authorization": f"Bearer {TOKEN['value']}"}
    operations = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
    assert len(operations) >= 15  # the API is all there

    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def fuzz(case: Any) -> None:
            case.call_and_validate(headers=headers, checks=[not_a_server_error], timeout=30)

        fuzz()
