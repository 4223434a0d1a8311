"""In-memory stand-ins where a test is about something else than the component replaced (the real component has its
own tests). The fake OpenAI-compatible server is in tests/support/fake_openai.py."""

from dataclasses import dataclass, field

from schemas.events import HarvestStatus, RawRecord


@dataclass
class Published:
    """In-memory stand-ins for the harvester's broker publishers, for tests about HTTP and checkpoints."""

    raw: list[RawRecord] = field(default_factory=list)
    statuses: list[HarvestStatus] = field(default_factory=list)

    async def publish_raw(self, records: list[tuple[RawRecord, str]]) -> None:
        self.raw.extend(record for record, _ in records)

    async def publish_status(self, status: HarvestStatus) -> None:
        self.statuses.append(status.model_copy())

    @property
    def ids(self) -> list[str]:
        return [r.record_id for r in self.raw]
