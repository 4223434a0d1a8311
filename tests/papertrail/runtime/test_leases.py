"""Leases on a real MongoDB-protocol server: a job under a lease runs in one process at a time, the next holder runs
it when the first is done, a holder that stopped renewing (a crashed process) loses it when it expires, and a holder
whose lease was taken stops its job until it holds the lease again."""

import asyncio
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.runtime.leases import LeaseHeld, Leases, held_lease, run_under_lease
from tests.support.waiting import wait_until_async

pytestmark = pytest.mark.integration
TTL_S = 0.6  # short, so a waiting holder tries again every 0.2 s


class CountedLeases(Leases):
    """Leases that count each holder's refused attempts, so a test knows a waiting holder has really tried."""

    def __init__(self, db: AsyncDatabase) -> None:
        super().__init__(db["job_leases"])
        self.refused: Counter[str] = Counter()

    async def acquire(self, name: str, holder: str, ttl_s: float) -> bool:
        taken = await super().acquire(name, holder, ttl_s)
        if not taken:
            self.refused[holder] += 1
        return taken


class Job:
    """A job that runs until the test lets it finish, noting who ran it and how many ran at once."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.running = 0
        self.most_at_once = 0
        self.finish = {"a": asyncio.Event(), "b": asyncio.Event()}

    def of(self, runner: str):  # type: ignore[no-untyped-def]
        async def run() -> None:
            self.started.append(runner)
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
            try:
                await self.finish[runner].wait()
            finally:
                self.running -= 1

        return run


async def test_only_one_holder_runs_the_job_at_a_time_and_the_next_runs_it_after(scratch_db: AsyncDatabase) -> None:
    leases, job = CountedLeases(scratch_db), Job()
    first = asyncio.create_task(run_under_lease(leases, "training", job.of("a"), TTL_S, holder="a"))
    await wait_until_async(lambda: asyncio.sleep(0, job.started == ["a"]), 10, "the first holder's job to start")
    second = asyncio.create_task(run_under_lease(leases, "training", job.of("b"), TTL_S, holder="b"))
    # the second holder keeps asking, past several renewals of the first's lease, and is refused each time
    await wait_until_async(lambda: asyncio.sleep(0, leases.refused["b"] >= 4), 20, "the second holder to be refused")
    assert job.started == ["a"]
    assert await leases.holder("training") == "a"
    job.finish["a"].set()
    await first  # done: the lease is released
    await wait_until_async(lambda: asyncio.sleep(0, job.started == ["a", "b"]), 10, "the second holder's job")
    assert await leases.holder("training") == "b"
    job.finish["b"].set()
    await second
    assert job.most_at_once == 1
    assert await leases.holder("training") is None


async def test_a_lease_its_holder_stopped_renewing_is_taken_when_it_expires(scratch_db: AsyncDatabase) -> None:
    leases, job = CountedLeases(scratch_db), Job()
    assert await leases.acquire("retag", "crashed-process", TTL_S)  # taken, and never renewed again
    waiting = asyncio.create_task(run_under_lease(leases, "retag", job.of("b"), TTL_S, holder="b"))
    await wait_until_async(lambda: asyncio.sleep(0, job.started == ["b"]), 20, "the job to start after the expiry")
    assert leases.refused["b"] >= 1  # it waited for the crashed holder's lease
    job.finish["b"].set()
    await waiting


async def test_cancelling_a_holder_stops_its_job_and_frees_the_lease(scratch_db: AsyncDatabase) -> None:
    leases, job = CountedLeases(scratch_db), Job()
    holder = asyncio.create_task(run_under_lease(leases, "imports", job.of("a"), 30, holder="a"))
    await wait_until_async(lambda: asyncio.sleep(0, job.started == ["a"]), 10, "the job to start")
    holder.cancel()
    with pytest.raises(asyncio.CancelledError):
        await holder
    assert job.running == 0
    assert await leases.holder("imports") is None  # free at once, not after its 30 s
    async with held_lease(leases, "imports", 30) as taken:  # another process takes it
        with pytest.raises(LeaseHeld, match="'imports' is held by"):
            async with held_lease(leases, "imports", 30):
                pass
        assert await leases.holder("imports") == taken


async def test_a_holder_that_loses_its_lease_stops_its_job_and_runs_it_again_once_it_holds_it(
    scratch_db: AsyncDatabase,
) -> None:
    leases, job = CountedLeases(scratch_db), Job()
    holder = asyncio.create_task(run_under_lease(leases, "vectors", job.of("a"), TTL_S, holder="a"))
    await wait_until_async(lambda: asyncio.sleep(0, job.started == ["a"]), 10, "the job to start")
    # another process took the lease (this one could not renew it in time): the next renewal finds it lost
    taken_until = datetime.now(UTC) + timedelta(minutes=5)
    await leases.collection.update_one({"_id": "vectors"}, {"$set": {"holder": "other", "expires_at": taken_until}})
    await wait_until_async(lambda: asyncio.sleep(0, job.running == 0), 10, "the job to stop")
    assert not holder.done() and job.started == ["a"]  # it waits for the lease again
    await leases.release("vectors", "other")
    await wait_until_async(lambda: asyncio.sleep(0, job.started == ["a", "a"]), 10, "the job to run again")
    job.finish["a"].set()
    await holder
    assert job.most_at_once == 1
