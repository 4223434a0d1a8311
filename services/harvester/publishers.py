"""What the harvester publishes, declared once on a broker: raw records and the state of each run. The service and
manual runs (`papertrail harvest`, `papertrail import`) publish through the same publishers."""

from dataclasses import dataclass

from faststream.kafka import KafkaBroker

from papertrail.runtime.kafka import Publisher, publish_confirmed
from schemas import topics
from schemas.events import HarvestStatus, RawRecord


@dataclass(frozen=True, slots=True)
class HarvestPublishers:
    raw_records: Publisher
    run_status: Publisher

    @classmethod
    def declare(cls, broker: KafkaBroker) -> "HarvestPublishers":
        return cls(
            broker.publisher(topics.HARVEST_RAW, schema=RawRecord, description="raw source records"),
            broker.publisher(topics.HARVEST_STATUS, schema=HarvestStatus, description="harvest runs"),
        )

    async def publish_raw(self, records: list[tuple[RawRecord, str]]) -> None:
        """Publish (record, key) pairs; returns once the broker acknowledged every one."""
        await publish_confirmed(self.raw_records, records)

    async def publish_status(self, status: HarvestStatus) -> None:
        await self.run_status.publish(status, key=status.source.encode())
