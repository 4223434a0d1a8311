"""为你推荐: each reader's ranking model, trained in the background when their feedback changes, and the feed it ranks.

A save or a dismissal marks the reader's model stale (`pending`, with when it changed). A background loop trains the
models that have been stale for `debounce_s` (so a burst of clicks trains once), each in a worker thread and within
`timeout_s`; the last model serves until the new one is stored. A model is stored as floats (ranking.ReaderModel)
in `reader_models`, one document per reader, deleted with the reader. Papers are ranked by their vectors in
`paper_vectors` (the summarizer's): the recent papers (changed since `since`, the normalizer's indexed `updated_at`),
those the reader already marked left out.
"""

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from pymongo import DESCENDING
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.embedding.paper_vectors import vector_of
from papertrail.runtime.collections import FEEDBACK, PAPER_VECTORS, PAPERS, READER_MODELS, READER_PICKS
from services.query.catalogue.interface import paper_vectors_of
from services.query.readers.library import ranking
from services.query.readers.library.ranking import ReaderModel
from services.query.readers.library.shelf import paper_card

log = logging.getLogger("papertrail.query.recommend")
MODEL_FIELDS = ("weights", "intercept", "model_key", "examples")  # ReaderModel.to_document
MAX_CANDIDATES = 2000  # recent papers ranked per request: the newest changed this many at most
CACHE_S = 60  # the window's vectors and the background sample are read again after this long
BACKGROUND_SPARE = 200  # sampled beyond the background's size, for the reader's own papers to be left out


class BadFeedCursor(ValueError):
    """Text that is no cursor of the feed (FEED_CURSOR_PATTERN, in feed.py)."""


@dataclass(frozen=True, slots=True)
class Window:
    """The recent papers a feed ranks: their ids, newest first, and their vectors (one row each)."""

    ids: list[str]
    vectors: np.ndarray


@dataclass(frozen=True, slots=True)
class RankedPage:
    items: list[dict[str, Any]]
    total: int
    next_offset: int | None


class ReaderModels:
    def __init__(self, db: AsyncDatabase, model_key: str, dimensions: int, debounce_s: float, timeout_s: float) -> None:
        self.models = db[READER_MODELS.name]
        self.feedback = db[FEEDBACK.name]
        self.vectors = db[PAPER_VECTORS.name]
        self.papers = db[PAPERS.name]
        self.picks = db[READER_PICKS.name]
        self.model_key = model_key
        self.dimensions = dimensions
        self.debounce = timedelta(seconds=debounce_s)
        self.timeout_s = timeout_s
        self._pool: tuple[float, list[tuple[str, np.ndarray]]] | None = None
        self._windows: dict[datetime, tuple[float, Window]] = {}

    async def ensure_indexes(self) -> None:
        await self.models.create_index([("pending", 1), ("changed_at", 1)])
        await self.feedback.create_index([("user_id", 1), ("label", 1), ("labelled_at", DESCENDING)])
        await self.feedback.create_index([("paper_id", 1)])  # the picks: who marked which of the day's papers

    # training ------------------------------------------------------------------------------------------------
    async def stale_readers(self, now: datetime) -> list[tuple[str, datetime]]:
        """Readers whose feedback changed and has been still for the debounce time, with when it changed."""
        due = self.models.find({"pending": True, "changed_at": {"$lte": now - self.debounce}}, {"changed_at": 1})
        return [(doc["_id"], doc["changed_at"]) async for doc in due]

    async def train_reader(self, user_id: str, changed_at: datetime | None = None) -> ReaderModel | None:
        """Train the reader's model from their feedback now and store it (or remove it: no saved paper with a
        vector, no model); the model is clean then unless the feedback changed again meanwhile."""
        positives = await self._labelled(user_id, "positive", ranking.MAX_POSITIVES)
        negatives = await self._labelled(user_id, "negative", ranking.MAX_NEGATIVES)
        background = await self._background(set(positives) | set(negatives))
        vectors = await self.vectors_of([*positives, *negatives])
        stack = [
            np.array([vectors[p] for p in ids if p in vectors], dtype=np.float32).reshape(-1, self.dimensions)
            for ids in (positives, negatives)
        ]
        model = await asyncio.wait_for(
            asyncio.to_thread(ranking.train, stack[0], stack[1], background, model_key=self.model_key),
            self.timeout_s,
        )
        now = datetime.now(UTC)
        clean = {"_id": user_id, **({"changed_at": changed_at} if changed_at else {})}
        if model is None:
            await self.models.update_one(
                {"_id": user_id},
                {"$unset": dict.fromkeys(MODEL_FIELDS, ""), "$set": {"trained_at": now}},
            )
        else:
            await self.models.update_one(
                {"_id": user_id}, {"$set": {**model.to_document(), "user_id": user_id, "trained_at": now}}, upsert=True
            )
        await self.models.update_one(clean, {"$set": {"pending": False}})
        return model

    async def _labelled(self, user_id: str, label: str, cap: int) -> list[str]:
        cursor = self.feedback.find({"user_id": user_id, "label": label}, {"paper_id": 1})
        return [doc["paper_id"] async for doc in cursor.sort("labelled_at", DESCENDING).limit(cap)]

    async def _background(self, marked: set[str]) -> np.ndarray:
        """A sample of other papers' vectors, the reader's own left out. One sample serves every reader trained
        within CACHE_S (reading thousands of vectors is most of a training's time: docs/benchmarks.md)."""
        now = time.monotonic()
        if self._pool is None or now - self._pool[0] > CACHE_S:
            sample = await self.vectors.aggregate(
                [
                    {"$match": {"model": self.model_key, "state": "embedded"}},
                    {"$sample": {"size": ranking.MAX_BACKGROUND + BACKGROUND_SPARE}},
                ]
            )
            found = [(doc["_id"], vector_of(doc, self.model_key)) async for doc in sample]
            self._pool = (now, [(p, v) for p, v in found if v is not None and v.shape == (self.dimensions,)])
        rows = [v for p, v in self._pool[1] if p not in marked][: ranking.MAX_BACKGROUND]
        return np.array(rows, dtype=np.float32).reshape(-1, self.dimensions)

    async def _window(self, since: datetime) -> "Window":
        """The recent papers (changed since `since`, newest first, at most MAX_CANDIDATES) with their vectors, read
        once a minute for every reader: the same for all of them."""
        key = since.replace(second=0, microsecond=0)
        now = time.monotonic()
        cached = self._windows.get(key)
        if cached is not None and now - cached[0] <= CACHE_S:
            return cached[1]
        recent = self.papers.find({"updated_at": {"$gte": key}}, {"_id": 1})
        recent = recent.sort("updated_at", DESCENDING).limit(MAX_CANDIDATES)
        ordered = [doc["_id"] async for doc in recent]
        vectors = await self.vectors_of(ordered)
        ids = [p for p in ordered if p in vectors]
        window = Window(ids, np.array([vectors[p] for p in ids], dtype=np.float32).reshape(-1, self.dimensions))
        if len(self._windows) >= 8:
            self._windows.clear()
        self._windows[key] = (now, window)
        return window

    async def vectors_of(self, paper_ids: Sequence[str]) -> dict[str, np.ndarray]:
        vectors = await paper_vectors_of(self.vectors, paper_ids, self.model_key)
        return {k: v for k, v in vectors.items() if v.shape == (self.dimensions,)}

    async def retrain_stale(self) -> int:
        """Train every reader due; how many."""
        due = await self.stale_readers(datetime.now(UTC))
        for user_id, changed_at in due:
            try:
                await self.train_reader(user_id, changed_at)
            except TimeoutError:
                log.warning("training the model of %s took over %.0f s; the last one serves", user_id, self.timeout_s)
            except Exception:
                log.exception("training the model of %s failed; the last one serves", user_id)
        return len(due)

    async def keep_training(self, poll_s: float, picks_every_s: float, picks_size: int) -> None:
        """The background loop: retrain the stale models every `poll_s` seconds (a reader's picks with their new
        model), and every reader's picks of the last day every `picks_every_s`."""
        last_picks: datetime | None = None
        while True:
            try:
                trained = await self.retrain_stale()
                now = datetime.now(UTC)
                if trained or last_picks is None or (now - last_picks).total_seconds() >= picks_every_s:
                    await self.store_picks(now, picks_size)
                    last_picks = now
            except Exception:
                log.exception("training reader models or their picks failed")
            await asyncio.sleep(poll_s)

    async def store_picks(self, now: datetime, size: int) -> int:
        """Every reader's `size` best papers of the last day, by their model, into `reader_picks`, which the
        matcher's daily digest reads (one matrix product for all readers); how many readers."""
        readers = [doc async for doc in self.models.find({"model_key": self.model_key})]
        models = []
        for doc in readers:
            try:
                models.append((doc["_id"], ReaderModel.from_document(doc, self.dimensions)))
            except (ValueError, KeyError):
                continue
        if not models:
            return 0
        recent = self.papers.find({"updated_at": {"$gte": now - timedelta(days=1)}}, {"_id": 1, "title": 1})
        recent = recent.sort("updated_at", DESCENDING).limit(MAX_CANDIDATES)
        titles = {doc["_id"]: doc.get("title", "") async for doc in recent}
        vectors = await self.vectors_of(list(titles))
        ids = list(vectors)
        matrix = np.array([vectors[p] for p in ids], dtype=np.float32).reshape(-1, self.dimensions)
        table = await asyncio.to_thread(ranking.scores_of_readers, [m for _, m in models], matrix)
        marked = await self.marked_among(ids)
        for (user_id, _), row in zip(models, table, strict=True):
            order = np.argsort(-row, kind="stable")
            best = [i for i in order if ids[i] not in marked.get(user_id, set())][:size]
            picks = [{"paper_id": ids[i], "title": titles[ids[i]], "score": round(float(row[i]), 4)} for i in best]
            await self.picks.replace_one(
                {"_id": user_id}, {"user_id": user_id, "computed_at": now, "picks": picks}, upsert=True
            )
        return len(models)

    async def marked_among(self, paper_ids: list[str]) -> dict[str, set[str]]:
        """Of these papers, those each reader has marked (saved, not relevant), by reader."""
        marked: dict[str, set[str]] = {}
        # the label is checked here, not in the filter: a filter of the paper ids alone is one range of their index
        async for doc in self.feedback.find(
            {"paper_id": {"$in": paper_ids}}, {"user_id": 1, "paper_id": 1, "label": 1}
        ):
            if doc.get("label") is not None:
                marked.setdefault(doc["user_id"], set()).add(doc["paper_id"])
        return marked

    # ranking -------------------------------------------------------------------------------------------------
    async def model(self, user_id: str) -> ReaderModel | None:
        doc = await self.models.find_one({"_id": user_id})
        if doc is None or doc.get("model_key") != self.model_key:
            return None
        try:
            return ReaderModel.from_document(doc, self.dimensions)
        except (ValueError, KeyError):
            return None

    async def ranked(self, user_id: str, model: ReaderModel, since: datetime, offset: int, limit: int) -> RankedPage:
        """One page of the recent papers ranked for the reader, best first, each with its score and reason."""
        window = await self._window(since)
        labelled = self.feedback.find({"user_id": user_id, "label": {"$ne": None}}, {"paper_id": 1})
        marked = {doc["paper_id"] async for doc in labelled}
        keep = [n for n, p in enumerate(window.ids) if p not in marked]
        ids = [window.ids[n] for n in keep]
        matrix = window.vectors[keep]
        saved_ids = await self._labelled(user_id, "positive", ranking.MAX_POSITIVES)
        saved_vectors = await self.vectors_of(saved_ids)
        held = self.papers.find({"_id": {"$in": list(saved_vectors)}}, {"title": 1})
        saved_titles = {doc["_id"]: doc.get("title", "") async for doc in held}
        saved = [(p, saved_vectors[p]) for p in saved_ids if p in saved_vectors]
        best = ranking.ranked(model, ids, matrix, saved, offset + limit)[offset:]
        cards = {
            doc["_id"]: paper_card(doc)
            async for doc in self.papers.find(
                {"_id": {"$in": [r.paper_id for r in best]}},
                {"title": 1, "authors.name": 1, "year": 1, "venue": 1, "status": 1, "ids": 1},
            )
        }
        items = [
            {
                "paper_id": r.paper_id,
                "score": round(r.score, 4),
                "reason": f"close to your saved '{saved_titles.get(r.closest_saved, r.closest_saved)}'",
                "closest_saved": {"paper_id": r.closest_saved, "title": saved_titles.get(r.closest_saved, "")},
                "paper": cards.get(r.paper_id),
            }
            for r in best
        ]
        more = offset + limit < len(ids)
        return RankedPage(items, len(ids), offset + limit if more else None)


async def mark_stale(models: Any, user_id: str, now: datetime) -> None:
    """The reader's feedback changed: their model is to be trained again (after the debounce)."""
    await models.update_one(
        {"_id": user_id}, {"$set": {"user_id": user_id, "pending": True, "changed_at": now}}, upsert=True
    )
