"""Events as the services publish them, built for tests, and publishing one to a topic."""

from datetime import UTC, datetime

from aiokafka import AIOKafkaProducer
from pydantic import BaseModel

from schemas.events import PaperEnriched
from schemas.paper import Paper, PaperVersion
from schemas.summary import Summary
from tests.support.servers import Servers


def enriched(paper: Paper) -> PaperEnriched:
    now = datetime.now(UTC)
    paper = paper.model_copy(update={"first_seen": now, "updated_at": now})
    version = PaperVersion(
        paper_id=paper.id,
        seq=1,
        kind="first_observed",
        source="arxiv",
        source_record_id=paper.id[6:],
        observed_at=now,
        content_hash="0" * 64,
    )
    return PaperEnriched(kind="new", paper=paper, version=version, summary=Summary(status="pending"))


async def publish(servers: Servers, topic: str, event: BaseModel, key: str) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=servers.kafka_bootstrap_servers)
    await producer.start()
    try:
        await producer.send_and_wait(servers.topic(topic), event.model_dump_json().encode(), key=key.encode())
    finally:
        await producer.stop()
