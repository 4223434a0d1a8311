"""The normalizer's load, plan, save and settle over a real store, as its handler runs them, for tests."""

from schemas.events import PaperNormalized, RawRecord
from services.normalizer.normalize import Applied, apply_batch, settle
from services.normalizer.parsers.registry import parse_raw
from services.normalizer.records import Incoming
from services.normalizer.store import PaperStore


async def apply(store: PaperStore, *raws: RawRecord) -> Applied:
    items = [Incoming(raw, parse_raw(raw)) for raw in raws]
    applied = await apply_batch(items, store, ai_categories=AI, attempts=4)
    await settle(applied, store, _no_emit)
    return applied


AI = frozenset({"cs.CL", "cs.LG", "cs.CV", "cs.AI"})


async def _no_emit(events: list[PaperNormalized]) -> None:
    pass
