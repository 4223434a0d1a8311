"""The ranked feed (为你推荐) at scale: retraining a reader with 1,000 saved papers end to end (their feedback and
vectors read from MongoDB, the model trained and stored, as the query service's background loop does it), and the
ranked feed's latency through the API with 1,000 readers' models stored.

The corpus papers (May 2026 arXiv listings) with their real vectors (bench/embed_throughput.py --corpus) go into a
fresh database as the normalizer and the summarizer store them, the last `--window` papers changed within the feed's
window; each of `--readers` readers saves 10 papers of one primary category and dismisses 10 of another, and their
models are trained by the service's own code. Starts its own local stack and query service; stops both at the end.
    uv run python bench/ranked_feed.py [--readers 1000] [--window 1000] [--requests 400]
"""

import argparse
import asyncio
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from pymongo import AsyncMongoClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.embed_throughput import DEFAULT_SAVE  # noqa: E402
from bench.search_latency import percentile, start_query_service  # noqa: E402
from papertrail.embedding.embedder import EmbeddingSettings  # noqa: E402
from papertrail.runtime.collections import FEEDBACK, PAPER_VECTORS, PAPERS, USERS  # noqa: E402
from papertrail_tools import stack  # noqa: E402
from schemas.paper_vector import PaperVector  # noqa: E402
from services.query.accounts.repositories import TOKEN_PREFIX, token_hash  # noqa: E402
from services.query.library.shelf import entry_id  # noqa: E402
from services.query.recommender import ranking  # noqa: E402
from services.query.recommender.recommend import ReaderModels  # noqa: E402
from tests.support.corpus import corpus_papers  # noqa: E402
from tests.support.servers import stack_on_free_ports  # noqa: E402

SAVES, DISMISSALS = 10, 10
BENCH_BACKGROUND = 300


def corpus_vectors(papers: list[Any], path: Path, model_key: str) -> np.ndarray:
    """The corpus's vectors as bench/embed_throughput.py --corpus saved them."""
    if not path.exists():
        raise SystemExit(f"no {path}: run `uv run python bench/embed_throughput.py --corpus` first")
    saved = np.load(path)
    if list(saved["ids"]) != [p.id for p in papers] or str(saved["model_key"]) != model_key:
        raise SystemExit(f"{path} holds other papers or another model's vectors: run embed_throughput.py --corpus")
    vectors: np.ndarray = saved["vectors"]
    return vectors


async def fill(db: Any, papers: list[Any], vectors: np.ndarray, window: int, now: datetime, model_key: str) -> None:
    """Papers as the normalizer stores them (the fields the feed reads), vectors as the summarizer does; the last
    `window` papers changed an hour ago, the others a month ago."""
    docs = []
    for n, paper in enumerate(papers):
        changed = now - (timedelta(hours=1) if n >= len(papers) - window else timedelta(days=30))
        docs.append(
            {
                "_id": paper.id,
                "title": paper.title,
                "authors": [{"name": a.name, "key": a.key} for a in paper.authors],
                "ids": paper.ids.model_dump(exclude_none=True),
                "year": paper.year,
                "status": paper.status,
                "first_seen": changed,
                "updated_at": changed,
            }
        )
    await db[PAPERS.name].insert_many(docs)
    await db[PAPERS.name].create_index("updated_at")
    await db[PAPER_VECTORS.name].insert_many(
        [
            PaperVector(
                paper_id=p.id, model=model_key, content_hash="0" * 64, state="embedded", vector=v, updated_at=now
            ).document()
            for p, v in zip(papers, vectors, strict=True)
        ]
    )


async def readers(db: Any, papers: list[Any], count: int, now: datetime) -> list[tuple[str, str]]:
    """`count` readers, each saving 10 papers of one primary category and dismissing 10 of another; (id, token)."""
    by_category: dict[str, list[str]] = defaultdict(list)
    for paper in papers:
        if paper.categories:
            by_category[paper.categories[0]].append(paper.id)
    big = [c for c, ids in by_category.items() if len(ids) >= 40]
    rng = random.Random(7)
    made, users, feedback = [], [], []
    for n in range(count):
        user_id, token = f"{n:032x}", f"{TOKEN_PREFIX}bench{n}"
        users.append({"_id": user_id, "name": f"reader{n}", "token_hash": token_hash(token), "created_at": now})
        liked, disliked = rng.sample(big, 2)
        for label, category, size in (("positive", liked, SAVES), ("negative", disliked, DISMISSALS)):
            for paper_id in rng.sample(by_category[category], size):
                feedback.append(
                    {
                        "_id": entry_id(user_id, paper_id),
                        "user_id": user_id,
                        "paper_id": paper_id,
                        "label": label,
                        "labelled_at": now,
                        "updated_at": now,
                    }
                )
        made.append((user_id, token))
    await db[USERS.name].insert_many(users)
    await db[FEEDBACK.name].insert_many(feedback)
    return made


async def prepare(env: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    settings = EmbeddingSettings()
    papers = corpus_papers()
    vectors = corpus_vectors(papers, args.vectors, settings.model_key)
    now = datetime.now(UTC)
    client: AsyncMongoClient = AsyncMongoClient(env["MONGODB_URL"], tz_aware=True)
    db = client[env["MONGODB_DATABASE"]]
    await fill(db, papers, vectors, args.window, now, settings.model_key)
    made = await readers(db, papers, args.readers, now)
    models = ReaderModels(db, settings.model_key, settings.embedding_dimensions, 0, 60)
    await models.ensure_indexes()
    # Every reader's model trained by ranking.train on their own saves and dismissals, against a background of
    # BENCH_BACKGROUND papers (the service samples 2,000: the feed's latency does not depend on it, the bench's
    # setup time does); the heavy reader below is trained by the service's own code, end to end.
    row_of = {p.id: n for n, p in enumerate(papers)}
    picker = np.random.default_rng(5)
    started = time.perf_counter()
    stored = []
    for user_id, _ in made:
        labels: dict[str, list[int]] = {"positive": [], "negative": []}
        async for doc in db[FEEDBACK.name].find({"user_id": user_id}):
            labels[doc["label"]].append(row_of[doc["paper_id"]])
        background = vectors[picker.choice(len(papers), BENCH_BACKGROUND, replace=False)]
        model = ranking.train(
            vectors[labels["positive"]], vectors[labels["negative"]], background, model_key=settings.model_key
        )
        assert model is not None
        stored.append({"_id": user_id, "user_id": user_id, **model.to_document(), "trained_at": now, "pending": False})
    await db["reader_models"].insert_many(stored)
    trained_s = time.perf_counter() - started
    # one reader with 1,000 saved papers (and 100 dismissed): the end-to-end retraining time
    heavy = "f" * 32
    rng = random.Random(11)
    chosen = rng.sample([p.id for p in papers], 1100)
    await db[FEEDBACK.name].insert_many(
        [
            {"_id": entry_id(heavy, p), "user_id": heavy, "paper_id": p, "label": label, "labelled_at": now}
            for p, label in zip(chosen, ["positive"] * 1000 + ["negative"] * 100, strict=True)
        ]
    )
    heavy_times = []
    for _ in range(args.heavy_runs):
        started = time.perf_counter()
        await models.train_reader(heavy)
        heavy_times.append(time.perf_counter() - started)
    await db["reader_models"].delete_one({"_id": heavy})
    await client.close()
    return {
        "papers": len(papers),
        "readers": len(made),
        "tokens": [t for _, t in made],
        "train_all_s": trained_s,
        "heavy": heavy_times,
    }


async def measure(base: str, tokens: list[str], requests: int) -> list[float]:
    rng = random.Random(3)
    times = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as api:
        for token in tokens[:5]:  # warm up
            (
                await api.get("/api/feed", params={"sort": "relevance"}, headers={"Authorization": f"Bearer {token}"})
            ).raise_for_status()
        for _ in range(requests):
            token = rng.choice(tokens)
            started = time.perf_counter()
            answer = await api.get(
                "/api/feed", params={"sort": "relevance", "limit": 20}, headers={"Authorization": f"Bearer {token}"}
            )
            times.append((time.perf_counter() - started) * 1000)
            answer.raise_for_status()
            assert answer.json()["sort"] == "relevance", answer.text
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--readers", type=int, default=1000)
    parser.add_argument("--window", type=int, default=1000, help="papers changed within the feed's window")
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--heavy-runs", type=int, default=5)
    parser.add_argument("--vectors", type=Path, default=DEFAULT_SAVE)
    args = parser.parse_args()
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    print(f"{datetime.now(UTC):%Y-%m-%d}, {machine}")
    with tempfile.TemporaryDirectory() as folder:
        stack_settings = stack_on_free_ports(Path(folder), install_dir=ROOT / ".stack" / "npm", start_timeout_s=180)
        stack.up(stack_settings, log=lambda _: None)
        env = stack_settings.environment() | {"INDEX_NAME": "papers_bench", "MONGODB_DATABASE": "papertrail_bench"}
        try:
            prepared = asyncio.run(prepare(env, args))
            service, port = start_query_service(env | {"FEED_RETRAIN_POLL_S": "600", "FEED_PICKS_EVERY_S": "86400"})
            try:
                times = asyncio.run(measure(f"http://127.0.0.1:{port}", prepared["tokens"], args.requests))
            finally:
                service.terminate()
                service.wait(timeout=30)
        finally:
            stack.down(stack_settings, log=lambda _: None)
    heavy = prepared["heavy"]
    print(
        f"{prepared['papers']} papers ({args.window} in the window), {prepared['readers']} readers' models "
        f"(ranking.train, {BENCH_BACKGROUND} background papers) trained in "
        f"{prepared['train_all_s']:.1f} s ({prepared['train_all_s'] / prepared['readers'] * 1000:.0f} ms a reader)"
    )
    print(
        f"retraining a reader with 1,000 saved + 100 dismissed papers, end to end: median "
        f"{statistics.median(heavy):.3f} s, max {max(heavy):.3f} s over {len(heavy)} runs"
    )
    print(
        f"GET /api/feed?sort=relevance&limit=20, {len(times)} requests over {prepared['readers']} readers: "
        f"p50 {percentile(times, 50):.1f} ms, p99 {percentile(times, 99):.1f} ms, max {max(times):.1f} ms"
    )


if __name__ == "__main__":
    main()
