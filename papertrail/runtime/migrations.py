"""Numbered migrations: the one-off changes of stored data a release brings (papers fingerprinted under a new
scheme, what an older release left behind), each run once per database and recorded in its `migrations`
collection: by `papertrail migrate`, or by the service that owns the data at start while it is still pending.

A migration is idempotent: one stopped halfway is not recorded, so it runs again from the start, and an operator
may run an applied one again by hand (`papertrail migrate --again N`). Replicas starting together run each one
once: the first to insert its record (the number is the record's _id) holds it under a lease, renewed while it
runs, and the others wait until it is applied; a holder that died lets the lease run out and the next takes over.

The registry (`Migrations`) is plain data; the record (`MigrationRecord`) is the MongoDB side.
"""

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel
from pymongo.asynchronous.database import AsyncDatabase
from pymongo.errors import DuplicateKeyError

from papertrail.runtime.kafka import kafka_name
from papertrail.runtime.settings import InfraSettings

COLLECTION = "migrations"  # one record per applied (or running) migration: _id the number, name, service, applied_at
log = logging.getLogger("papertrail.migrations")

# Publish events on a topic (its documented name) as (event, key) pairs, confirmed by the broker before it returns.
Publish = Callable[[str, Sequence[tuple[BaseModel, str]]], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class MigrationContext:
    """What a migration works with: the database, and the broker to announce what it changed."""

    db: AsyncDatabase
    publish: Publish


@dataclass(frozen=True, slots=True)
class Migration:
    number: int  # unique across every service: the order they run in
    name: str
    service: str  # the service that owns the data it changes (and runs it at start)
    apply: Callable[[MigrationContext], Awaitable[str]]  # idempotent; returns what it did, for the log


class Migrations:
    """The registered migrations, in the order of their numbers."""

    def __init__(self, migrations: Iterable[Migration]) -> None:
        self._ordered = sorted(migrations, key=lambda m: m.number)
        numbers = [m.number for m in self._ordered]
        if len(numbers) != len(set(numbers)):
            raise ValueError(f"migration numbers used twice: {sorted({n for n in numbers if numbers.count(n) > 1})}")

    def __iter__(self) -> Iterator[Migration]:
        return iter(self._ordered)

    def of(self, service: str) -> "Migrations":
        return Migrations(m for m in self._ordered if m.service == service)

    def numbered(self, number: int) -> Migration | None:
        return next((m for m in self._ordered if m.number == number), None)

    def pending(self, applied: Collection[int]) -> list[Migration]:
        return [m for m in self._ordered if m.number not in applied]


def holder_name() -> str:
    """Who runs a migration, as its record shows while it runs: the host (the pod) and the process."""
    return f"{socket.gethostname()}:{os.getpid()}"


class MigrationRecord:
    """The database's record of its migrations, and running one under it."""

    def __init__(
        self,
        db: AsyncDatabase,
        holder: str | None = None,
        *,
        lease_s: float = 60,
        poll_s: float = 1,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.records = db[COLLECTION]
        self.holder = holder or holder_name()
        self.lease_s, self.poll_s, self.clock = lease_s, poll_s, clock

    async def applied(self) -> dict[int, datetime]:
        """The numbers of the applied migrations, with when."""
        return {d["_id"]: d["applied_at"] async for d in self.records.find({"state": "applied"}, {"applied_at": 1})}

    async def run(self, migration: Migration, context: MigrationContext, *, again: bool = False) -> str | None:
        """Run the migration unless it is applied (`again`: run it even so); what it did, or None when another
        had applied it. Waits while another holder runs it."""
        if not await self._claim(migration, again):
            return None
        renewal = asyncio.create_task(self._renew(migration.number), name=f"migration {migration.number} lease")
        started = time.monotonic()
        try:
            outcome = await migration.apply(context)
        except BaseException:
            await self.records.delete_one({"_id": migration.number, "holder": self.holder})  # pending again
            raise
        finally:
            renewal.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewal
        await self.records.update_one(
            {"_id": migration.number, "holder": self.holder},
            {"$set": {"state": "applied", "applied_at": self.clock()}, "$unset": {"lease_until": ""}},
        )
        log.info(
            "migration applied",
            extra={
                "migration": migration.number,
                "migration_name": migration.name,
                "outcome": outcome,
                "seconds": round(time.monotonic() - started, 1),
            },
        )
        return outcome

    async def run_pending(self, migrations: Migrations, context: MigrationContext) -> list[tuple[Migration, str]]:
        """Run those not applied yet, in order; the ones this call ran, with what each did."""
        ran = []
        for migration in migrations.pending(await self.applied()):
            outcome = await self.run(migration, context)
            if outcome is not None:
                ran.append((migration, outcome))
        return ran

    async def _claim(self, migration: Migration, again: bool) -> bool:
        """Hold the migration's record to run it: False when it turned out applied (and not `again`)."""
        number = migration.number
        while True:
            now = self.clock()
            running = {"state": "running", "holder": self.holder, "lease_until": now + timedelta(seconds=self.lease_s)}
            try:
                await self.records.insert_one(
                    {"_id": number, "name": migration.name, "service": migration.service, **running}
                )
                return True
            except DuplicateKeyError:
                pass
            taken_over: dict[str, Any] = {"_id": number, "state": "running", "lease_until": {"$lt": now}}
            if again:  # an applied one, by hand
                taken_over = {"_id": number, "$or": [{"state": "applied"}, taken_over]}
            elif await self.records.count_documents({"_id": number, "state": "applied"}):
                return False
            if await self.records.find_one_and_update(taken_over, {"$set": running}) is not None:
                return True
            await asyncio.sleep(self.poll_s)  # another holder runs it: wait for its record to say applied

    async def _renew(self, number: int) -> None:
        while True:
            await asyncio.sleep(self.lease_s / 3)
            until = self.clock() + timedelta(seconds=self.lease_s)
            await self.records.update_one({"_id": number, "holder": self.holder}, {"$set": {"lease_until": until}})


def publishing_on(broker: Any, settings: InfraSettings) -> Publish:
    """A migration's `publish` on a service's (or the command's) broker, connected when first used."""

    async def publish(topic: str, events: Sequence[tuple[BaseModel, str]]) -> None:
        await broker.connect()
        name = kafka_name(settings, topic)
        sent = [await broker.publish(e, topic=name, key=key.encode(), no_confirm=True) for e, key in events]
        await asyncio.gather(*sent)

    return publish
