"""Numbered migrations recorded in MongoDB (papertrail/runtime/migrations.py): each runs once per database, in number
order,
recorded with its name and time; concurrent starts run it once; one that fails stays pending; a holder that died is
taken over once its lease ran out; an operator may run an applied one again. Over a real MongoDB."""

import asyncio
import logging
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import BaseModel
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.runtime.migrations import COLLECTION, Migration, MigrationContext, MigrationRecord, Migrations

pytestmark = pytest.mark.integration


async def nothing_published(topic: str, events: Sequence[tuple[BaseModel, str]]) -> None:
    raise AssertionError("these migrations publish nothing")


def counting(ran: list[int], number: int, started: asyncio.Event | None = None, release: asyncio.Event | None = None):
    async def apply(context: MigrationContext) -> str:
        ran.append(number)
        if started is not None and release is not None:
            started.set()
            await release.wait()
        await context.db.marks.update_one({"_id": number}, {"$inc": {"runs": 1}}, upsert=True)
        return f"migration {number} ran"

    return apply


def test_numbers_are_unique_and_order_the_registry() -> None:
    async def noop(context: MigrationContext) -> str:
        return ""

    registry = Migrations([Migration(2, "b", "query", noop), Migration(1, "a", "normalizer", noop)])
    assert [m.number for m in registry] == [1, 2]
    assert [m.number for m in registry.pending({1})] == [2]
    assert [m.number for m in registry.of("query")] == [2]
    with pytest.raises(ValueError, match=r"used twice: \[1\]"):
        Migrations([Migration(1, "a", "normalizer", noop), Migration(1, "b", "query", noop)])


async def test_each_runs_once_in_order_and_is_recorded(
    scratch_db: AsyncDatabase, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="papertrail.migrations")
    ran: list[int] = []
    registry = Migrations([Migration(n, f"step {n}", "normalizer", counting(ran, n)) for n in (2, 1)])
    context = MigrationContext(scratch_db, nothing_published)
    record = MigrationRecord(scratch_db, "replica-a")

    done = await record.run_pending(registry, context)
    assert [(m.number, outcome) for m, outcome in done] == [(1, "migration 1 ran"), (2, "migration 2 ran")]
    assert await MigrationRecord(scratch_db, "replica-b").run_pending(registry, context) == []  # the next start
    assert ran == [1, 2]
    records = {d["_id"]: d async for d in scratch_db[COLLECTION].find({})}
    assert {n: (d["name"], d["service"], d["state"]) for n, d in records.items()} == {
        1: ("step 1", "normalizer", "applied"),
        2: ("step 2", "normalizer", "applied"),
    }
    assert set(await record.applied()) == {1, 2}
    assert all(isinstance(d["applied_at"], datetime) for d in records.values())
    logged = [r for r in caplog.records if r.getMessage() == "migration applied"]
    assert [(r.migration, r.outcome) for r in logged] == [(1, "migration 1 ran"), (2, "migration 2 ran")]  # type: ignore[attr-defined]


async def test_replicas_starting_together_run_it_once(scratch_db: AsyncDatabase) -> None:
    ran: list[int] = []
    started, release = asyncio.Event(), asyncio.Event()
    registry = Migrations([Migration(1, "slow", "query", counting(ran, 1, started, release))])
    context = MigrationContext(scratch_db, nothing_published)
    first = asyncio.create_task(MigrationRecord(scratch_db, "replica-a", poll_s=0.05).run_pending(registry, context))
    await asyncio.wait_for(started.wait(), 30)  # replica a holds it and runs it
    second = asyncio.create_task(MigrationRecord(scratch_db, "replica-b", poll_s=0.05).run_pending(registry, context))
    release.set()
    done_first, done_second = await asyncio.wait_for(asyncio.gather(first, second), 30)
    assert ran == [1] and len(done_first) == 1 and done_second == []  # b waited until a had applied it
    assert (await scratch_db.marks.find_one({"_id": 1}) or {})["runs"] == 1


async def test_one_that_fails_stays_pending_and_runs_at_the_next_start(scratch_db: AsyncDatabase) -> None:
    attempts: list[int] = []

    async def flaky(context: MigrationContext) -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("stopped halfway")
        return "done"

    registry = Migrations([Migration(7, "flaky", "matcher", flaky)])
    context = MigrationContext(scratch_db, nothing_published)
    with pytest.raises(RuntimeError, match="stopped halfway"):
        await MigrationRecord(scratch_db).run_pending(registry, context)
    assert await MigrationRecord(scratch_db).applied() == {}
    assert [m.number for m, _ in await MigrationRecord(scratch_db).run_pending(registry, context)] == [7]
    assert len(attempts) == 2


async def test_a_dead_holder_is_taken_over_after_its_lease(scratch_db: AsyncDatabase) -> None:
    ran: list[int] = []
    registry = Migrations([Migration(1, "step", "normalizer", counting(ran, 1))])
    now = datetime.now(UTC)
    await scratch_db[COLLECTION].insert_one(  # a replica killed while it ran migration 1
        {"_id": 1, "name": "step", "service": "normalizer", "state": "running", "holder": "dead:1",
         "lease_until": now + timedelta(seconds=60)}
    )  # fmt: skip
    later = MigrationRecord(scratch_db, "replica-b", lease_s=60, poll_s=0.05, clock=lambda: now + timedelta(seconds=61))
    done = await asyncio.wait_for(later.run_pending(registry, MigrationContext(scratch_db, nothing_published)), 30)
    assert [m.number for m, _ in done] == [1] and ran == [1]
    assert (await scratch_db[COLLECTION].find_one({"_id": 1}) or {})["state"] == "applied"


async def test_an_operator_runs_an_applied_one_again(scratch_db: AsyncDatabase) -> None:
    ran: list[int] = []
    migration = Migration(1, "step", "normalizer", counting(ran, 1))
    context = MigrationContext(scratch_db, nothing_published)
    record = MigrationRecord(scratch_db)
    assert await record.run(migration, context) == "migration 1 ran"
    assert await record.run(migration, context) is None  # applied: not run
    assert await record.run(migration, context, again=True) == "migration 1 ran"
    assert ran == [1, 1] and set(await record.applied()) == {1}
