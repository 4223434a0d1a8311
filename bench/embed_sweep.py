"""Benchmark: the summarizer's embedding sweep making both vectors of genuine corpus papers (MiniLM's paper vectors and
multilingual-e5's search vectors), the code of a former commit against this tree's, interleaved in one run.

    uv run python bench/embed_sweep.py [--papers 64] [--threads 1,2] [--before HEAD] [--rounds 1]
    uv run python bench/embed_sweep.py --profile [--papers 24]

--profile: where a paper's time goes in each model, in this process (no database): the text's preparation (MiniLM's
tokenizer; e5's cut to its tokens, which counts them with the engine's own tokenizer) and a model run at one thread
and at two of the model's own (onnxruntime's, OpenMP's), batches of 2 sorted by length, CPU-ms a paper.

Each variant runs in a process of its own over the MongoDB of one local stack (started here, stopped at the end):
the papers are stated and held as the summarizer's handler does, then swept in batches of 32 (EMBEDDING_SWEEP_BATCH)
until none wait. Timed is the sweep alone: wall, and the CPU of the summarizer's process (all its threads; the
MongoDB server's own CPU is not counted). `--before`'s code is `git archive`d into a temporary folder and run from
there with this tree's virtual environment. The vectors of both runs are compared paper by paper at the end.
"""

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sized
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SWEEP_BATCH = 32


def corpus_sample(count: int) -> list[dict]:
    """`count` distinct papers spread evenly over the May 2026 corpus (its first listing of each)."""
    from tests.support.corpus import SHARED_CORPUS, read_lines

    lines = {line["id"]: line for line in read_lines(sorted(SHARED_CORPUS.glob("*.jsonl.gz")))}
    every = list(lines.values())
    return every[:: max(1, len(every) // count)][:count]


async def sweep_both(mongodb_url: str, database: str, count: int, threads: int, save: Path) -> dict:
    """In the code of the tree this process imports from: both vectors of `count` papers made by the sweep."""
    from pymongo import AsyncMongoClient

    from papertrail.embedding.backends import open_embedder
    from papertrail.embedding.embedder import SearchEmbeddingSettings
    from schemas.summary import Summary
    from services.summarizer.policy import enriched_event
    from services.summarizer.store import VectorStore, search_vectors
    from services.summarizer.vectors import PaperVectors, SearchVectors
    from tests.support.fake_openai import corpus_event

    settings = SearchEmbeddingSettings(
        embedding_backend="local",
        embedding_model="all-MiniLM-L6-v2-int8",
        embedding_threads=threads,
        search_embedding_model="multilingual-e5-small-q4",
    )
    search_settings = settings.search_embedding
    assert search_settings is not None
    embedder, search = open_embedder(settings), open_embedder(search_settings)
    client: AsyncMongoClient = AsyncMongoClient(mongodb_url, tz_aware=True)
    try:
        db = client[database]
        store, search_store = VectorStore(db), search_vectors(db)
        await store.ensure_indexes()
        await search_store.ensure_indexes()
        vectors = PaperVectors(store, embedder, SearchVectors(search_store, search))
        normalized = [corpus_event(line) for line in corpus_sample(count)]
        states = await vectors.states([e.paper for e in normalized])
        pending = Summary(status="pending", error="no model configured")
        await vectors.hold_pending([enriched_event(e, pending, s) for e, s in zip(normalized, states, strict=True)])
        await vectors.sweep(_drop, 2)  # warm up: first runs allocate
        emitted = 2

        async def count_emitted(events: Sized) -> None:
            nonlocal emitted
            emitted += len(events)

        wall, cpu = time.perf_counter(), time.process_time()
        while await vectors.sweep(count_emitted, SWEEP_BATCH):
            pass
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        ids = [e.paper.id for e in normalized]
        own, searched = await store.of_papers(ids), await search_store.of_papers(ids)
        np.savez(
            save,
            ids=np.array(ids),
            vectors=np.vstack([_made(own[i].vector) for i in ids]),
            search_vectors=np.vstack([_made(searched[i].vector) for i in ids]),
        )
        await client.drop_database(database)
    finally:
        await client.close()
        await embedder.close()
        await search.close()
    timed = count - 2
    return {"papers": timed, "emitted": emitted, "wall": wall, "cpu": cpu}


def _made(vector: np.ndarray | None) -> np.ndarray:
    if vector is None:
        raise SystemExit("a corpus paper got no vector")
    return vector


async def _drop(_: object) -> None:
    return None


def profile(count: int) -> None:
    from papertrail.embedding.embedder import E5_SMALL_Q4, MINILM_INT8, bounded_text, embedding_text
    from papertrail.embedding.local_model import E5Model, LocalModel, packaged_file

    lines = corpus_sample(count)
    texts = sorted((bounded_text(embedding_text(x["title"], x["summary"]), 256 * 20) for x in lines), key=len)

    def cpu_ms(label: str, work: Callable[[], object]) -> None:
        started = time.process_time()
        work()
        print(f"{label:<52} {(time.process_time() - started) / len(texts) * 1000:>15.1f}")

    def in_batches(model: LocalModel | E5Model) -> Callable[[], object]:
        return lambda: [model.vectors(texts[start : start + 2]) for start in range(0, len(texts), 2)]

    def cut(model: E5Model) -> Callable[[], object]:
        return lambda: [model.truncated(text, "passage") for text in texts]

    print(f"{'step':<52} {'CPU-ms a paper':>15}")
    for threads in (1, 2):
        onnx, tokenizer = packaged_file(MINILM_INT8.onnx), packaged_file(MINILM_INT8.tokenizer)
        minilm = LocalModel(onnx, tokenizer, dimensions=384, max_tokens=256, threads=threads)
        e5 = E5Model(packaged_file(E5_SMALL_Q4.weights), dimensions=384, max_tokens=256, threads=threads)
        minilm.vectors(texts[:2]), e5.vectors(texts[:2])  # warm up: first runs allocate
        if threads == 1:
            cpu_ms("MiniLM tokenizer (cut at 256, padded)", partial(minilm.tokenizer.encode_batch_fast, texts))
            cpu_ms("e5 cut to 256 tokens (counted by its tokenizer)", cut(e5))
        cpu_ms(f"MiniLM run, {threads} thread(s) of its own", in_batches(minilm))
        cpu_ms(f"e5 run (cut included), {threads} thread(s) of its own", in_batches(e5))


def run_variant(tree: Path, url: str, count: int, threads: int, save: Path) -> dict:
    """One variant in a process of its own, importing the code of `tree`."""
    database = f"bench_embed_sweep_{save.stem}"
    command = [sys.executable, str(ROOT / "bench" / "embed_sweep.py"), "--child", url, database, str(count)]
    command += [str(threads), str(save)]
    environment = os.environ | {"PYTHONPATH": str(tree)}
    done = subprocess.run(command, cwd=tree, env=environment, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{tree}'s variant failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def before_tree(revision: str, folder: Path) -> str:
    """`revision`'s code unpacked into `folder`; its commit id."""
    commit = subprocess.run(["git", "rev-parse", "--short", revision], cwd=ROOT, check=True, capture_output=True)
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return commit.stdout.decode().strip()


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=64, help="papers a variant embeds (2 first, untimed)")
    parser.add_argument("--threads", default="1,2", help="EMBEDDING_THREADS of the variants, comma-separated")
    parser.add_argument(
        "--before", default="HEAD", help="the commit whose code is the baseline (HEAD: against a change not committed)"
    )
    parser.add_argument("--rounds", type=int, default=1, help="times each variant runs, interleaved")
    parser.add_argument("--profile", action="store_true", help="where a paper's time goes, model by model")
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)  # url, database, papers, threads, save
    args = parser.parse_args()
    if args.child:
        url, database, count, threads, save = args.child
        print(json.dumps(asyncio.run(sweep_both(url, database, int(count), int(threads), Path(save)))))
        return

    sys.path.insert(0, str(ROOT))  # here, not in a variant's process: that one imports its own tree's code
    if args.profile:
        print(f"load average (1, 5, 15 min) at start: {load()}; {args.papers} corpus papers")
        profile(args.papers)
        print(f"load average (1, 5, 15 min) at end: {load()}")
        return
    from papertrail_tools import stack
    from tests.support.servers import stack_on_free_ports

    machine = platform.processor() or platform.machine()
    print(f"machine: {machine}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"load average (1, 5, 15 min) at start: {load()}")
    threads = [int(t) for t in args.threads.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        before = Path(folder) / "before"
        before.mkdir()
        commit = before_tree(args.before, before)
        print(f"before: {args.before} ({commit}); after: this tree; {args.papers} corpus papers a run, sweeps of 32")
        servers = stack_on_free_ports(
            Path(folder) / "stack", install_dir=ROOT / ".stack" / "npm", start_timeout_s=300, kafka_broker="tansu"
        )
        stack.up(servers, log=lambda _: None)
        try:
            url = servers.environment()["MONGODB_URL"]
            totals: dict[tuple[str, int], list[float]] = {}
            saved: dict[tuple[str, int], Path] = {}
            for round_ in range(args.rounds):  # interleaved: a busy minute on the shared machine hits both alike
                for t in threads:
                    for name, tree in (("before", before), ("after", ROOT)):
                        save = Path(folder) / f"{name}{t}r{round_}.npz"
                        got = run_variant(tree, url, args.papers, t, save)
                        assert got["emitted"] == args.papers, got
                        total = totals.setdefault((name, t), [0.0, 0.0, 0.0])
                        total[0] += got["papers"]
                        total[1] += got["wall"]
                        total[2] += got["cpu"]
                        saved[(name, t)] = save
                        rate = f"{got['papers'] / got['wall'] * 60:.0f} papers a minute"
                        print(f"  {name} threads={t}: {rate}, {got['papers'] / got['cpu']:.2f} per CPU-second "
                              f"(load {load()})", flush=True)  # fmt: skip
        finally:
            stack.down(servers, log=lambda _: None)
        print("\n| code | EMBEDDING_THREADS | papers a minute | papers per CPU-second | CPU-s a paper |")
        print("|---|---:|---:|---:|---:|")
        for (name, t), (papers, wall, cpu) in totals.items():
            print(f"| {name} | {t} | {papers / wall * 60:.0f} | {papers / cpu:.2f} | {cpu / papers:.3f} |")
        for t in threads:
            (_, bw, bc), (_, aw, ac) = totals[("before", t)], totals[("after", t)]
            print(f"threads={t}: papers per CPU-second ×{bc / ac:.2f}, papers a minute ×{bw / aw:.2f}")
        for t in threads:
            b, a = np.load(saved[("before", t)]), np.load(saved[("after", t)])
            assert list(b["ids"]) == list(a["ids"])
            for kind in ("vectors", "search_vectors"):
                cosine = (
                    (b[kind] * a[kind]).sum(axis=1) / np.linalg.norm(b[kind], axis=1) / np.linalg.norm(a[kind], axis=1)
                )
                print(f"threads={t} {kind}: before vs after cosine min {cosine.min():.7f} ({len(cosine)} papers)")
        print(f"load average (1, 5, 15 min) at end: {load()}")


if __name__ == "__main__":
    main()
