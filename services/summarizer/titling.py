"""The title sweep: with no summary endpoint, papers waiting for a summary get a Chinese title from a local model
(TITLES_BASE_URL) and are emitted again with it; they keep waiting for a summary. It never holds a paper up: papers
are emitted first, titled later, in the summary sweep's order (readers' asks, community picks, newest)."""

import asyncio
import logging
from datetime import timedelta

from papertrail.runtime.leases import new_holder
from schemas.events import PaperNormalized
from services.summarizer.store import SummaryStore
from services.summarizer.summarizing import Emit, Summarizer
from services.summarizer.title_model import Titles, TitlesUnavailable
from services.summarizer.titles import gets_a_title, with_title

log = logging.getLogger("papertrail.summarizer.titles")


class TitleSweep:
    def __init__(
        self, store: SummaryStore, titles: Titles, *, parallel: int, claim: timedelta = timedelta(minutes=10)
    ) -> None:
        self.store = store
        self.titles = titles
        self.parallel = parallel
        self.owner, self.claim = new_holder(), claim  # the batch's claim: the replicas' title sweeps take others

    async def sweep(self, emit: Emit, batch: int) -> tuple[int, bool]:
        """Title up to `batch` waiting papers, `parallel` at a time; (papers emitted with a title, whether the
        sweep should go on at once: it found work and the endpoint answered)."""
        waiting = await self.store.claim_untitled(self.owner, batch, self.claim)
        claimed = [event.paper.id for event, _, _ in waiting]
        titled = 0
        try:
            for start in range(0, len(waiting), self.parallel):
                outcomes = await asyncio.gather(
                    *(self._title(emit, *item) for item in waiting[start : start + self.parallel])
                )
                titled += outcomes.count("titled")
                if "unavailable" in outcomes:
                    return titled, False  # the rest would wait the same way
                await self.store.untitled.renew(self.owner, claimed[start + self.parallel :], self.claim)
        finally:
            await self.store.untitled.release(self.owner, claimed)
        return titled, bool(waiting)

    async def _title(self, emit: Emit, event: PaperNormalized, digest: str, reason: str) -> str:
        paper = event.paper
        try:
            known = await self.titles.known(paper.title)
        except TitlesUnavailable as down:
            log.info("title endpoint unavailable", extra={"error": str(down)})
            return "unavailable"
        summary = Summarizer.meanwhile(paper, reason)
        outcome = "untitled"
        if known.title_zh and gets_a_title(summary):
            if not await self.store.still_waiting(paper.id, digest):
                return "stale"  # a newer event of the paper came through meanwhile; it is titled in its turn
            await emit(event, with_title(summary, known.title_zh, known.model))
            outcome = "titled"
        await self.store.mark_titled(paper.id, digest)
        return outcome

    async def run(self, emit: Emit, *, interval_s: float, batch: int) -> None:
        """The background loop: sweep while there is work and the endpoint answers, else wait `interval_s`."""
        while True:
            go_on = False
            try:
                titled, go_on = await self.sweep(emit, batch)
                if titled:
                    log.info("waiting papers titled", extra={"count": titled})
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("title sweep failed; retrying at the next interval")
            await asyncio.sleep(0 if go_on else interval_s)
