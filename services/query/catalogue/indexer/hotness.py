"""Citations per month kept current: a document's rate (sort `hot`) is written with its fields, and the passing of
time alone writes nothing there, so a paper whose count stays falls behind younger ones only when this job rewrites
the rates of every counted paper, on a timer."""

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import datetime

from papertrail.domain.search_document import COUNTED, HOTNESS_FIELDS, hotness_update
from papertrail.runtime.claims import utc_now
from services.query.catalogue.index import PaperIndex

log = logging.getLogger("papertrail.query")


async def refresh_hotness(index: PaperIndex, now: datetime, page_size: int = 1000) -> int:
    """Rewrite the citations per month of every counted paper whose rate as of `now` differs from the one held (only
    that field); how many changed. A count that arrives between a page's read and its write is written with its own
    rate by the indexer and may be overwritten here by the old count's: the next refresh corrects it."""
    changed = 0
    async for page in index.pages(HOTNESS_FIELDS, page_size, where=COUNTED):
        updates = [update for held in page if (update := hotness_update(held, now)) is not None]
        if updates:
            await index.upsert(updates)
            changed += len(updates)
    return changed


async def keep_hotness_current(index: PaperIndex, every_s: float, clock: Callable[[], datetime] = utc_now) -> None:
    """The background job: refresh the rates at start and then every `every_s` seconds until the service stops; a
    failed refresh is logged and tried again at the next turn."""
    while True:
        started = time.perf_counter()
        try:
            changed = await refresh_hotness(index, clock())
            seconds = round(time.perf_counter() - started, 1)
            log.info("citations per month brought up to date", extra={"changed": changed, "seconds": seconds})
        except Exception:
            log.exception("refreshing citations per month failed")
        await asyncio.sleep(every_s)
