"""The harvester's app on FastStream's in-memory broker, no servers: the resources its lifespan builds
(build_resources) publish a run's status on harvest.status.v1 and raw records on harvest.raw.v1 through the
publishers create_app declared. (Harvests against real servers: test_runs.py.)"""

import uuid
from datetime import UTC, datetime
from typing import Any

from faststream.kafka import TestKafkaBroker

from papertrail.runtime.service import Clients
from schemas import topics
from schemas.events import HarvestStatus, RawRecord
from services.harvester.app import build_resources, create_app
from services.harvester.settings import HarvesterSettings
from tests.support.kafka import broker_of
from tests.support.servers import free_port
from tests.support.sources import acl_records


async def test_the_lifespans_resources_publish_statuses_and_records() -> None:
    from pymongo import AsyncMongoClient

    settings = HarvesterSettings(mongodb_url=f"mongodb://127.0.0.1:{free_port()}")
    broker = broker_of(create_app(settings))
    statuses: list[Any] = []
    records: list[Any] = []
    broker.subscriber(topics.HARVEST_STATUS)(lambda body: statuses.append(body))
    broker.subscriber(topics.HARVEST_RAW)(lambda body: records.append(body))
    mongo: AsyncMongoClient = AsyncMongoClient(settings.mongodb_url, serverSelectionTimeoutMS=300)
    resources = build_resources(settings, Clients(mongo["unused"]), broker)  # nothing listens there: no I/O here
    try:
        async with TestKafkaBroker(broker):
            status = HarvestStatus(source="acl", run_id=uuid.uuid4().hex, state="started", started_at=datetime.now(UTC))
            await resources.publishers.publish_status(status)
            raw = next(r for r in acl_records() if r.record_id == "2024.acl-long.1")  # as harvested
            await resources.publishers.raw_records.publish(raw, key=b"acl:2024.acl-long.1")  # in memory: no confirm
        assert [HarvestStatus.model_validate(s).run_id for s in statuses] == [status.run_id]
        assert [RawRecord.model_validate(r).record_id for r in records] == ["2024.acl-long.1"]
        assert resources.settings is settings and resources.schedules == []
    finally:
        await resources.http.aclose()
        await mongo.close()
