"""Every paper's vector (and its search vector, when SEARCH_EMBEDDING_MODEL makes them), never holding a paper up: the
state an event carries (from the cache when the text was embedded before), and the background sweep that embeds
waiting papers and emits each again."""

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from prometheus_client import Counter

from papertrail.domain.text import paper_digest
from papertrail.embedding.embedder import Embedder, embedding_text
from schemas.events import PaperEmbedding, PaperEnriched
from schemas.paper import Paper
from schemas.summary import Summary
from services.summarizer.metrics import EMBEDDING_PENDING, PAPER_VECTORS, SEARCH_VECTORS
from services.summarizer.store import StoredVectors, VectorStore
from services.summarizer.vector_policy import copied, embedding_status, settled_state, vector_document

log = logging.getLogger("papertrail.summarizer")

Emit = Callable[[PaperEnriched], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class SearchVectors:
    """Each paper's second vector, made for search by a multilingual model (SEARCH_EMBEDDING_MODEL): where they are
    stored (`search_vectors`) and the model that makes them."""

    store: StoredVectors
    embedder: Embedder


@dataclass(frozen=True, slots=True)
class _Kind:
    """One of a paper's vectors: its collection, its model, and the counter of its outcomes."""

    store: StoredVectors
    embedder: Embedder
    counted: Counter

    @property
    def model(self) -> str:
        return self.embedder.model_key


class PaperVectors:
    """The summarizer's vectors: `states` for the events it emits now, `sweep` for the papers that wait. With search
    vectors, a paper waits until it has both, made in the same sweep, and is emitted again once."""

    def __init__(self, store: VectorStore, embedder: Embedder, search: SearchVectors | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.model = embedder.model_key
        self.search = _Kind(search.store, search.embedder, SEARCH_VECTORS) if search else None
        self.wake = asyncio.Event()  # set when papers start waiting: the sweep runs now, not at its next interval
        # per kind, until no stored paper lacks a vector of its model (older papers, a new model)
        self._backfilling = [True] * (2 if search else 1)

    @property
    def kinds(self) -> list[_Kind]:
        """The vectors a paper gets: its own (`paper_vectors`), then its search vector when there are any."""
        return [_Kind(self.store, self.embedder, PAPER_VECTORS), *([self.search] if self.search else [])]

    @property
    def backfilling(self) -> bool:
        """Whether stored papers may still lack a vector (or search vector) of the model."""
        return any(self._backfilling)

    async def states(self, papers: list[Paper]) -> list[PaperEmbedding]:
        """Each paper's vector state: settled for its text and model, copied from another paper with the same text,
        or pending (its search vector, when there are any, is copied alike). A model run never happens here."""
        if not papers:
            return []
        digests = [paper_digest(p) for p in papers]
        states = await self._settled(self.kinds[0], papers, digests)
        if self.search is not None:
            await self._settled(self.search, papers, digests)
        return [embedding_status(self.model, state) for state in states]

    async def _settled(self, kind: _Kind, papers: list[Paper], digests: list[str]) -> list[str | None]:
        """Each paper's state of this kind: its own for its text, else a copy of another paper's with the same text
        (stored now), else None. Two reads for the whole batch."""
        own = await kind.store.of_papers(list({p.id for p in papers}))
        states = [settled_state(own.get(p.id), d, kind.model) for p, d in zip(papers, digests, strict=True)]
        unknown = {d for d, state in zip(digests, states, strict=True) if state is None}
        known = await kind.store.of_contents(sorted(unknown), kind.model) if unknown else {}
        now = datetime.now(UTC)
        copies = {}
        for i, (paper, digest) in enumerate(zip(papers, digests, strict=True)):
            if states[i] is None and digest in known:
                copies[paper.id] = copied(known[digest], paper.id, now)
                states[i] = known[digest].state
        await kind.store.save(list(copies.values()))
        kind.counted.labels("cached").inc(sum(state is not None for state in states))
        kind.counted.labels("pending").inc(sum(state is None for state in states))
        return states

    async def hold_pending(self, events: list[PaperEnriched]) -> None:
        """Before the events are emitted: papers whose vector (or search vector) is pending wait for the sweep, with
        their event."""
        latest = {e.paper.id: (e, paper_digest(e.paper)) for e in events if e.embedding is not None}
        pending = {paper_id for paper_id, (e, _) in latest.items() if e.embedding and e.embedding.state == "pending"}
        if self.search is not None and (rest := [p for p in latest if p not in pending]):
            own = await self.search.store.of_papers(rest)
            model = self.search.model
            pending |= {p for p in rest if settled_state(own.get(p), latest[p][1], model) is None}
        held = [latest[paper_id] for paper_id in latest if paper_id in pending]
        await self.store.hold_many(held)
        if held:
            self.wake.set()

    async def forget(self, paper_id: str) -> None:
        """A withdrawn paper stops waiting, and its vectors go."""
        await self.store.release_papers([paper_id])
        if self.search is not None:
            await self.search.store.delete([paper_id])

    async def sweep(self, emit: Emit, batch: int) -> int:
        """Embed up to `batch` waiting papers, one model call per kind of vector they lack, store each vector (or
        failure), emit each paper again (`emit` brings its summary up to date), and only then stop it waiting;
        returns how many settled. With nobody waiting, queue stored papers without a vector of a model instead."""
        waiting = await self.store.waiting(batch)
        if not waiting:
            await self._queue_unembedded(batch)
            return 0
        texts = [embedding_text(e.paper.title, e.paper.abstract or "") for e, _ in waiting]
        unavailable: dict[str, str] = {}
        states = [await self._embed(kind, waiting, texts, unavailable) for kind in self.kinds]
        settled = [(event, digest) for event, digest in waiting if event.paper.id not in unavailable]
        # a paper withdrawn while it was embedded is not emitted again: the matcher would match it anew
        waiting_still = await self.store.still_waiting([event.paper.id for event, _ in settled])
        for event, _ in settled:
            if event.paper.id in waiting_still:
                embedding = embedding_status(self.model, states[0][event.paper.id])
                await emit(event.model_copy(update={"embedding": embedding}))
        await self.store.release([(event.paper.id, digest) for event, digest in settled])
        if unavailable:
            await self.store.note_attempt(list(unavailable), next(iter(unavailable.values())))
        return len(settled)

    async def _embed(
        self, kind: _Kind, waiting: list[tuple[PaperEnriched, str]], texts: list[str], unavailable: dict[str, str]
    ) -> dict[str, str | None]:
        """The waiting papers' states of this kind, after one model call for those without one for their text (their
        vectors or failures stored); papers the model could not take now are added to `unavailable`."""
        ids = [event.paper.id for event, _ in waiting]
        own = await kind.store.of_papers(ids)
        states = {p: settled_state(own.get(p), digest, kind.model) for p, (_, digest) in zip(ids, waiting, strict=True)}
        todo = [i for i, paper_id in enumerate(ids) if states[paper_id] is None]
        outcomes = await kind.embedder.embed([texts[i] for i in todo]) if todo else []
        now = datetime.now(UTC)
        documents = []
        for i, outcome in zip(todo, outcomes, strict=True):
            if outcome.unavailable:
                unavailable[ids[i]] = outcome.unavailable
                continue
            document = vector_document(ids[i], waiting[i][1], kind.model, outcome, now)
            if outcome.failure:
                log.warning("paper not embedded", extra={"paper_id": ids[i], "model": kind.model,
                                                         "error": outcome.failure})  # fmt: skip
            documents.append(document)
            states[ids[i]] = document.state
            kind.counted.labels(document.state).inc()
        await kind.store.save(documents)
        return states

    async def _queue_unembedded(self, batch: int) -> None:
        for k, kind in enumerate(self.kinds):
            if not self._backfilling[k]:
                continue
            found = await kind.store.papers_without_vectors(kind.model, batch, self.store.pending)
            if not found:
                self._backfilling[k] = False
                continue
            pending = embedding_status(self.model, None)  # the sweep emits each with its vector's state
            # a metadata update as far as consumers are concerned; its summary is looked up when it is emitted
            summary = Summary(status="pending")
            events = [
                PaperEnriched(kind="updated", paper=p, version=v, summary=summary, embedding=pending) for p, v in found
            ]
            await self.store.hold_many([(event, paper_digest(event.paper)) for event in events])
            self.wake.set()
            log.info("papers queued for embedding", extra={"count": len(events), "model": kind.model})
            return

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
