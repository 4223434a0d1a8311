"""Batches of a queue's documents claimed for a while by one worker, so that sweeps in several replicas share one
queue and never take the same document together.

A claim is two fields on each document it takes: who holds it (`<prefix>claimed_by`) and until when
(`<prefix>claimed_until`). A document whose claim is absent or ran out (its holder died or hung) is free to take.
A worker done with a document deletes it or releases the claim. Each claim is one update of the documents found
free, whose filter checks again that they are free, so of two workers that found the same documents each gets only
those its own update took.

The claim reads the queue's own index in the queue's order (`hint`) and passes over the claimed documents, which are
at most a batch per worker: a claim's fields lead no index, as the local MongoDB stand-in sorts in memory whatever a
compound index would have to give in order after an equality on them. The stand-in reads every document a find
matches before it applies the limit, so a worker that knows documents to be queued (it queued them) claims those by
`_id` first, and reads the queue's order only when they are gone. Updates by `_id` with more conditions name the
`_id` index (the stand-in plans them as a scan otherwise); reads by `_id` have no other condition, as a named index
makes the stand-in read all of it.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from pymongo.asynchronous.collection import AsyncCollection

from papertrail.runtime.mongo import BY_ID

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class ClaimedQueue:
    """One queue of a collection: its documents (`selection`) in `order`, read by the index `index` that gives it,
    claimed under the fields named by `prefix`. Several queues may share a collection under other prefixes (papers
    waiting for a summary, and for a title)."""

    collection: AsyncCollection[dict[str, Any]]
    order: Sequence[tuple[str, int]]
    index: str
    prefix: str = ""
    selection: Mapping[str, Any] = field(default_factory=dict)
    clock: Clock = utc_now

    @property
    def owner_field(self) -> str:
        return f"{self.prefix}claimed_by"

    @property
    def until_field(self) -> str:
        return f"{self.prefix}claimed_until"

    def free(self, now: datetime) -> dict[str, Any]:
        """Unclaimed, or claimed until before `now`: one condition, as the stand-in has no plan for an `$or`."""
        return {self.until_field: {"$not": {"$gte": now}}}

    async def claim(
        self, owner: str, limit: int, lease: timedelta, *, first: Sequence[Any] = ()
    ) -> list[dict[str, Any]]:
        """Up to `limit` free documents for `owner` until `lease` from now: of `first` (ids the worker knows to be
        queued, as it queued them itself: taken by `_id`, which reads no more than they), else in the queue's order."""
        now = self.clock()
        if first and (taken := await self._take(list(dict.fromkeys(first))[:limit], owner, now, lease)):
            return taken
        found = self.collection.find(
            {**self.selection, **self.free(now)}, {"_id": 1}, sort=list(self.order), limit=limit, hint=self.index
        )
        return await self._take([doc["_id"] async for doc in found], owner, now, lease)

    async def _take(self, ids: list[Any], owner: str, now: datetime, lease: timedelta) -> list[dict[str, Any]]:
        """Those of the documents still free, claimed; in the order of `ids`."""
        if not ids:
            return []
        until = now + lease
        await self.collection.update_many(
            {"_id": {"$in": ids}, **self.selection, **self.free(now)},
            {"$set": {self.owner_field: owner, self.until_field: until}},
            hint=BY_ID,
        )
        # read back by `_id` alone (fast on the stand-in, unlike `_id` with more conditions), those taken kept here
        taken = self.collection.find({"_id": {"$in": ids}})
        by_id = {doc["_id"]: doc async for doc in taken if self._held(doc, owner, until)}
        return [by_id[i] for i in ids if i in by_id]

    def _held(self, doc: dict[str, Any], owner: str, until: datetime) -> bool:
        """Whether `owner`'s claim ending at `until` holds the document (stored to the millisecond)."""
        stored = doc.get(self.until_field)
        if doc.get(self.owner_field) != owner or not isinstance(stored, datetime):
            return False
        return abs(stored.replace(tzinfo=stored.tzinfo or UTC) - until) < timedelta(milliseconds=1)

    async def renew(self, owner: str, ids: Sequence[Any], lease: timedelta) -> None:
        """The owner's claim on these documents lasts `lease` from now (a long batch keeps what it has left)."""
        if ids:
            until = self.clock() + lease
            await self.collection.update_many(
                {"_id": {"$in": list(ids)}, self.owner_field: owner}, {"$set": {self.until_field: until}}, hint=BY_ID
            )

    async def release(self, owner: str, ids: Sequence[Any]) -> None:
        """The owner is done with these documents (those still there wait again, free for any worker)."""
        if ids:
            await self.collection.update_many(
                {"_id": {"$in": list(ids)}, self.owner_field: owner},
                {"$unset": {self.owner_field: "", self.until_field: ""}},
                hint=BY_ID,
            )
