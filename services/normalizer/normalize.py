"""Applying a batch of parsed records to the store: plan in memory, write, retry the papers that lost a race;
then settling it: version records and events, and only after both, the source records marked seen. And
withdrawing papers that are none: announce first, then remove."""

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from schemas.events import PaperNormalized, PaperWithdrawn
from schemas.paper import PaperVersion
from services.normalizer.front_matter import withdrawal
from services.normalizer.plan import plan_batch
from services.normalizer.records import Incoming
from services.normalizer.store import PaperStore


@dataclass(slots=True)
class Applied:
    events: list[PaperNormalized] = field(default_factory=list)  # to emit, after the writes
    versions: list[PaperVersion] = field(default_factory=list)  # to record in paper_versions, after the writes
    placed: list[tuple[Incoming, str]] = field(default_factory=list)  # item → the paper it went into
    unplaced: list[Incoming] = field(default_factory=list)  # the paper kept changing under every attempt


async def apply_batch(
    items: list[Incoming], papers: PaperStore, *, ai_categories: frozenset[str], attempts: int
) -> Applied:
    """Merge new items into their papers and store the changes; the same content twice changes nothing.

    Papers another instance changed meanwhile are merged again from a fresh read, up to `attempts` times.
    The papers hold their new version records (`last_versions`) until `settle` records them.
    """
    applied = Applied()
    if not items:  # a batch of front matter or bad records only: nothing to read or write
        return applied
    pending = await papers.unseen(items)
    for _ in range(attempts):
        if not pending:
            break
        stored = await papers.candidates([item.record for item in pending])
        plan = plan_batch(pending, stored, now=datetime.now(UTC), ai_categories=ai_categories)
        lost = await papers.save(plan.drafts)
        pending = []
        applied.versions.extend(plan.recovered)
        for draft in plan.drafts:
            assert draft.paper is not None
            if draft.paper.id in lost:
                pending.extend(draft.items)
                continue
            applied.versions.extend(draft.versions)
            applied.events.extend(draft.events)
            applied.placed.extend((item, draft.paper.id) for item in draft.items)
    applied.unplaced = pending
    return applied


async def settle(
    applied: Applied, papers: PaperStore, emit: Callable[[list[PaperNormalized]], Awaitable[None]]
) -> None:
    """Record the version records and emit the events (both at once), then mark the source records seen.

    Either of the first two may fail alone: the redelivered records then find their versions in the papers
    (`last_versions`) and record and emit them again, which is why marking them seen comes last.
    """
    await asyncio.gather(papers.record_versions(applied.versions), emit(applied.events))
    await papers.mark_seen(applied.placed)


async def withdraw_front_matter(
    papers: PaperStore, announce: Callable[[list[PaperWithdrawn]], Awaitable[None]]
) -> list[PaperWithdrawn]:
    """Remove the front-matter papers the store holds, each announced before it goes.

    Announced first: a stop between the two leaves the paper in the store, so the next start announces and
    removes it again (consumers handle a second announcement like the first), never removed unannounced.
    """
    now = datetime.now(UTC)
    withdrawals = [withdrawal(paper, now) for paper in await papers.front_matter_papers()]
    if withdrawals:
        await announce(withdrawals)
        await papers.remove_papers([w.paper_id for w in withdrawals])
    return withdrawals
