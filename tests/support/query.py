"""The query service in tests: its settings on the servers, and the pipeline over the recorded arXiv page that
modules share."""

from dataclasses import dataclass

from services.query.settings import QueryRole, QuerySettings
from tests.support.pipelines import Pipeline
from tests.support.servers import Servers


@dataclass
class ArxivPageSite:
    pipeline: Pipeline
    readers: dict[str, dict[str, str]]  # module → reader's name → API token


def query_settings(servers: Servers, label: str, run: str, role: QueryRole) -> QuerySettings:
    """The query service's settings on the servers, with a database and an index of the run's own."""
    return QuerySettings(
        kafka_bootstrap_servers=servers.kafka_bootstrap_servers,
        mongodb_url=servers.mongodb_url,
        meili_url=servers.meili_url,
        meili_master_key=servers.meili_master_key,
        mongodb_database=f"papertrail_{label}_{run}",
        index_name=f"papers_{label}_{run}",
        query_role=role,
    )
