"""Benchmark: 10,000 "papers like these" follows against the May 2026 corpus's vectors, one matrix product per batch
(papertrail/embedding/similarity.py: the higher of the centroid's and the closest seed's cosine) against the obvious
loop over follows and seeds, in one run. Target: ≥ 1,000 papers/s.

    uv run python bench/match_similar.py [--follows 10000] [--threshold 0.65] [--batch 500] [--vectors PATH] [--wired]

Each follow is on one subject: a random corpus paper and 0-19 more among its 50 nearest (5 seeds on average), and one
in three also a description (here the vector of one more neighbour).
--vectors: the corpus vectors bench/embed_throughput.py --corpus saved.
--wired: also through the matcher's own path (services/matcher/matching/similar.py), as its handler runs it on each
batch of papers.enriched.v1: the batch's vectors read from `paper_vectors` in a MongoDB of a local stack of its own
(started here, stopped at the end), scored, each match given its reason and made a follows.matched.v1 event.
"""

import argparse
import asyncio
import os
import platform
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from pymongo import AsyncMongoClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.embed_throughput import DEFAULT_SAVE
from papertrail.embedding.backends import open_embedder
from papertrail.embedding.embedder import EmbeddingSettings
from papertrail.embedding.similarity import DEFAULT_THRESHOLD, SimilarFollow, SimilarMatch, seed_matrix, similar_matches
from papertrail_tools import stack
from schemas.events import Follow, SeedPaper
from schemas.paper_vector import PaperVector
from services.matcher.matching.similar import DESCRIPTION, SimilarFollows
from services.matcher.store import MatcherRecords
from tests.support.servers import stack_on_free_ports

ROOT = Path(__file__).resolve().parents[1]


def generate_follows(n: int, ids: np.ndarray, vectors: np.ndarray, threshold: float, seed: int) -> list[SimilarFollow]:
    """Follows on one subject each, as a reader seeds them: a random paper and others among its 50 nearest."""
    rng = np.random.default_rng(seed)
    anchors = rng.choice(len(ids), n)
    follows = []
    for start in range(0, n, 1000):
        nearest = np.argsort(-(vectors[anchors[start : start + 1000]] @ vectors.T), axis=1)[:, 1:51]
        for i, (anchor, near) in enumerate(zip(anchors[start : start + 1000], nearest, strict=True), start):
            count = int(min(20, max(1, rng.geometric(1 / 5))))
            picked = [anchor, *rng.choice(near, count - 1, replace=False)]
            seeds = [(str(ids[j]), vectors[j]) for j in picked]
            if rng.random() < 1 / 3:
                seeds.append(("description", vectors[rng.choice(near)]))
            follows.append(SimilarFollow(f"f{i}", seeds, threshold))
    return follows


def loop_matches(follows: list[SimilarFollow], paper_id: str, paper: np.ndarray) -> list[SimilarMatch]:
    found = []
    for follow in follows:
        closest, label = -2.0, ""
        for seed_label, vector in follow.seeds:  # the first closest, as np.argmax picks
            if (cosine := float(paper @ vector)) > closest:
                closest, label = cosine, seed_label
        centroid = np.mean([vector for _, vector in follow.seeds], axis=0)
        score = max(closest, float(paper @ centroid) / float(np.linalg.norm(centroid)))
        if score >= follow.threshold:
            found.append(SimilarMatch(paper_id, follow.follow_id, label, score))
    return found


def as_follows(
    follows: list[SimilarFollow], threshold: float
) -> tuple[list[Follow], dict[str, tuple[str, np.ndarray]]]:
    """The generated follows as the query service stores them (seed ids with titles, a description), and the
    description vectors as the matcher would have embedded them."""
    made, descriptions = [], {}
    now = datetime.now(UTC)
    for follow in follows:
        seeds = [
            SeedPaper(paper_id=label, title=f"title of {label}") for label, _ in follow.seeds if label != DESCRIPTION
        ]
        text = next((f"description {follow.follow_id}" for label, _ in follow.seeds if label == DESCRIPTION), None)
        made.append(
            Follow(
                id=follow.follow_id,
                user_id=f"user-{follow.follow_id}",
                kind="similar",
                name=follow.follow_id,
                created_at=now,
                seeds=seeds,
                description=text,
                threshold=threshold,
            )
        )
        if text is not None:
            descriptions[follow.follow_id] = (text, next(v for label, v in follow.seeds if label == DESCRIPTION))
    return made, descriptions


async def wired_rate(
    mongodb_url: str, follows: list[SimilarFollow], ids: np.ndarray, vectors: np.ndarray, threshold: float, batch: int
) -> tuple[float, float, int]:
    """(papers/s, papers per CPU-second, matches) through the matcher's SimilarFollows over a real MongoDB, up to
    the batch's follows.matched.v1 events."""
    settings = EmbeddingSettings()
    client: AsyncMongoClient = AsyncMongoClient(mongodb_url)
    try:
        store = MatcherRecords.of(client["papertrail_bench"])
        now = datetime.now(UTC)
        documents = [
            PaperVector(
                paper_id=str(i),
                model=settings.model_key,
                content_hash="0" * 64,
                state="embedded",
                vector=v,
                updated_at=now,
            ).document()
            for i, v in zip(ids, vectors, strict=True)
        ]
        for first in range(0, len(documents), 1000):
            await store.reads.vectors.insert_many(documents[first : first + 1000])
        # the descriptions come already embedded (as_follows): the model is never opened
        similar = SimilarFollows(store, settings.model_key, vectors.shape[1], lambda: open_embedder(settings))
        made, similar.descriptions = as_follows(follows, threshold)
        for follow in made:
            similar.upsert(follow)
        paper_ids = [str(i) for i in ids]
        await similar.refresh()  # every seed's vector read once, as when the matcher starts
        similar.matrix()
        titles = {paper_id: "a title" for paper_id in paper_ids}
        matches = 0
        started, cpu = time.perf_counter(), time.process_time()
        for first in range(0, len(paper_ids), batch):
            await similar.refresh()  # as the handler does before each batch: nothing is missing here
            batch_titles = {p: titles[p] for p in paper_ids[first : first + batch]}
            matches += len(await similar.matched(batch_titles, now))
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        await client.close()
    return len(paper_ids) / wall, len(paper_ids) / cpu, matches


def wired(follows: list[SimilarFollow], ids: np.ndarray, vectors: np.ndarray, threshold: float, batch: int) -> tuple:
    """wired_rate over the MongoDB of a local stack of its own (tansu, the Kafka-protocol server that starts
    fastest, stands beside it unused)."""
    with tempfile.TemporaryDirectory() as folder:
        servers = stack_on_free_ports(
            Path(folder), install_dir=ROOT / ".stack" / "npm", start_timeout_s=300, kafka_broker="tansu"
        )
        stack.up(servers, log=lambda _: None)
        try:
            url = servers.environment()["MONGODB_URL"]
            return asyncio.run(wired_rate(url, follows, ids, vectors, threshold, batch))
        finally:
            stack.down(servers, log=lambda _: None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--follows", type=int, default=10_000)
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--batch", type=int, default=500, help="papers per matrix product (the matcher's batch)")
    parser.add_argument("--loop-papers", type=int, default=20, help="papers the slow loop runs over")
    parser.add_argument("--vectors", type=Path, default=DEFAULT_SAVE)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--wired", action="store_true", help="also through the matcher's path over MongoDB")
    args = parser.parse_args()
    if not args.vectors.exists():
        sys.exit(f"{args.vectors}: missing; run bench/embed_throughput.py --corpus first")
    saved = np.load(args.vectors)
    ids, vectors = saved["ids"], saved["vectors"].astype(np.float32)

    follows = generate_follows(args.follows, ids, vectors, args.threshold, args.seed)
    started = time.perf_counter()
    seeds = seed_matrix(follows, vectors.shape[1])
    build_s = time.perf_counter() - started

    paper_ids = [str(i) for i in ids]
    matches: list[SimilarMatch] = []
    started, cpu = time.perf_counter(), time.process_time()
    for first in range(0, len(paper_ids), args.batch):
        matches += similar_matches(seeds, paper_ids[first : first + args.batch], vectors[first : first + args.batch])
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu

    unreachable = seed_matrix(generate_follows(args.follows, ids, vectors, 1.5, args.seed), vectors.shape[1])
    started = time.perf_counter()
    for first in range(0, len(paper_ids), args.batch):
        similar_matches(unreachable, paper_ids[first : first + args.batch], vectors[first : first + args.batch])
    scoring_s = time.perf_counter() - started

    step = len(paper_ids) // args.loop_papers
    subset = list(range(0, len(paper_ids), step))[: args.loop_papers]
    started = time.perf_counter()
    looped = [m for i in subset for m in loop_matches(follows, paper_ids[i], vectors[i])]
    loop_s = time.perf_counter() - started
    in_subset = {paper_ids[i] for i in subset}
    fast = sorted((m.paper_id, m.follow_id, m.seed) for m in matches if m.paper_id in in_subset)
    agree = fast == sorted((m.paper_id, m.follow_id, m.seed) for m in looped)

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, numpy {np.__version__}")
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(
        f"follows: {len(seeds)}, seed vectors: {len(seeds.labels)} ({seeds.vectors.nbytes / 2**20:.0f} MiB), "
        f"threshold {args.threshold}; seed matrix built in {build_s:.2f} s"
    )
    rate = len(paper_ids) / wall
    print(f"matrix product, batches of {args.batch}: {len(paper_ids)} papers in {wall:.2f} s = {rate:,.0f} papers/s")
    print(f"  CPU time {cpu:.2f} s = {len(paper_ids) / cpu:,.0f} papers per CPU-second (numpy may use both cores)")
    print(f"  {len(matches)} matches, {len(matches) / len(paper_ids):.1f} per paper")
    print(
        f"  the scoring alone (same follows, threshold 1.5: no match to build): {len(paper_ids) / scoring_s:,.0f} "
        "papers/s; the rest is building the matches"
    )
    loop_rate = len(subset) / loop_s
    print(f"loop over follows and seeds: {len(subset)} papers in {loop_s:.2f} s = {loop_rate:,.1f} papers/s")
    print(f"speed-up: {rate / loop_rate:,.0f}x; same answers on the {len(subset)} papers: {agree}")
    if not agree:
        sys.exit("the matrix product and the loop disagree")
    if args.wired:
        rate, per_cpu, matched = wired(follows, ids, vectors, args.threshold, args.batch)
        print(
            f"the matcher's path (vectors read from MongoDB, reasons, follows.matched.v1 events), batches of "
            f"{args.batch}: {rate:,.0f} papers/s, {per_cpu:,.0f} papers per CPU-second, {matched} matches "
            f"({matched / len(paper_ids):.1f} per paper; seeds are never their own follow's match)"
        )


if __name__ == "__main__":
    main()
