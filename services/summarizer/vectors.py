"""Every paper's vector, never holding a paper up: the state an event carries (from the cache when the text was
embedded before), and the background sweep that embeds waiting papers and emits each again."""

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from papertrail.embedding import Embedder, embedding_text
from papertrail.text import paper_digest
from schemas.events import PaperEmbedding, PaperEnriched
from schemas.paper import Paper
from schemas.summary import Summary
from services.summarizer.metrics import EMBEDDING_PENDING, PAPER_VECTORS
from services.summarizer.store import VectorStore
from services.summarizer.vector_policy import copied, embedding_status, settled_state, vector_document

log = logging.getLogger("papertrail.summarizer")

Emit = Callable[[PaperEnriched], Awaitable[None]]


class PaperVectors:
    """The summarizer's vectors: `states` for the events it emits now, `sweep` for the papers that wait."""

    def __init__(self, store: VectorStore, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        self.model = embedder.model_key
        self.wake = asyncio.Event()  # set when papers start waiting: the sweep runs now, not at its next interval
        self.backfilling = True  # until no stored paper lacks a vector of this model (older papers, a new model)

    async def states(self, papers: list[Paper]) -> list[PaperEmbedding]:
        """Each paper's vector state: settled for its text and model, copied from another paper with the same text,
        or pending. Two reads for the whole batch; a model run never happens here."""
        if not papers:
            return []
        digests = [paper_digest(p) for p in papers]
        own = await self.store.of_papers(list({p.id for p in papers}))
        states = [settled_state(own.get(p.id), d, self.model) for p, d in zip(papers, digests, strict=True)]
        unknown = {d for d, state in zip(digests, states, strict=True) if state is None}
        known = await self.store.of_contents(sorted(unknown), self.model) if unknown else {}
        now = datetime.now(UTC)
        copies = {}
        for i, (paper, digest) in enumerate(zip(papers, digests, strict=True)):
            if states[i] is None and digest in known:
                copies[paper.id] = copied(known[digest], paper.id, now)
                states[i] = known[digest].state
        await self.store.save(list(copies.values()))
        PAPER_VECTORS.labels("cached").inc(sum(state is not None for state in states))
        PAPER_VECTORS.labels("pending").inc(sum(state is None for state in states))
        return [embedding_status(self.model, state) for state in states]

    async def hold_pending(self, events: list[PaperEnriched]) -> None:
        """Before the events are emitted: papers whose vector is pending wait for the sweep, with their event."""
        latest = {e.paper.id: e for e in events}
        held = [(e, paper_digest(e.paper)) for e in latest.values() if e.embedding and e.embedding.state == "pending"]
        await self.store.hold_many(held)
        if held:
            self.wake.set()

    async def forget(self, paper_id: str) -> None:
        """A withdrawn paper stops waiting, and its vector goes."""
        await self.store.release_papers([paper_id])

    async def sweep(self, emit: Emit, batch: int) -> int:
        """Embed up to `batch` waiting papers in one model call, store each vector (or failure), emit each paper again
        (`emit` brings its summary up to date), and only then stop it waiting; returns how many settled. With nobody
        waiting, queue stored papers without a vector of this model instead."""
        waiting = await self.store.waiting(batch)
        if not waiting:
            await self._queue_unembedded(batch)
            return 0
        outcomes = await self.embedder.embed(
            [embedding_text(e.paper.title, e.paper.abstract or "") for e, _ in waiting]
        )
        now = datetime.now(UTC)
        documents, settled, unavailable = [], [], []
        for (event, digest), outcome in zip(waiting, outcomes, strict=True):
            if outcome.unavailable:
                unavailable.append(event.paper.id)
                continue
            document = vector_document(event.paper.id, digest, self.model, outcome, now)
            if outcome.failure:
                log.warning("paper not embedded", extra={"paper_id": event.paper.id, "error": outcome.failure})
            documents.append(document)
            settled.append((event, digest, document.state))
            PAPER_VECTORS.labels(document.state).inc()
        await self.store.save(documents)
        # a paper withdrawn while it was embedded is not emitted again: the matcher would match it anew
        waiting_still = await self.store.still_waiting([event.paper.id for event, _, _ in settled])
        for event, _, state in settled:
            if event.paper.id in waiting_still:
                await emit(event.model_copy(update={"embedding": embedding_status(self.model, state)}))
        await self.store.release([(event.paper.id, digest) for event, digest, _ in settled])
        if unavailable:
            await self.store.note_attempt(unavailable, next(o.unavailable for o in outcomes if o.unavailable) or "")
        return len(settled)

    async def _queue_unembedded(self, batch: int) -> None:
        if not self.backfilling:
            return
        found = await self.store.papers_without_vectors(self.model, batch)
        if not found:
            self.backfilling = False
            return
        pending = embedding_status(self.model, None)
        # a metadata update as far as consumers are concerned; its summary is looked up when it is emitted
        summary = Summary(status="pending")
        events = [
            PaperEnriched(kind="updated", paper=p, version=v, summary=summary, embedding=pending) for p, v in found
        ]
        await self.hold_pending(events)
        log.info("papers queued for embedding", extra={"count": len(events), "model": self.model})

    async def run_sweeps(self, emit: Emit, *, interval_s: float, batch: int) -> None:
        """The background loop: sweep while papers wait, else sleep until papers start waiting or the interval ends."""
        while True:
            self.wake.clear()  # papers held during the sweep set it again, and the wait below ends at once
            try:
                settled = await self.sweep(emit, batch)
                EMBEDDING_PENDING.set(await self.store.backlog())
                if settled:
                    log.info("papers embedded", extra={"count": settled})
                    continue
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("embedding sweep failed; retrying at the next interval")
            try:
                await asyncio.wait_for(self.wake.wait(), interval_s)
            except TimeoutError:
                pass
