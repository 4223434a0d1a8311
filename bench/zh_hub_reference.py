"""Make the reference queries of papertrail/embedding/query_hubs for the default search model: the first clauses of
the Chinese
TL;DRs of 400 corpus papers past the first 3,000 (bench/zh_retrieval.py, bench/zh_search.py and the hand-picked
queries' labels use the first 1,500), embedded as queries, float16.

    uv run python bench/zh_hub_reference.py [--skip 3000] [--queries 400]
"""

import argparse
import asyncio
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.zh_retrieval import corpus, first_clause
from papertrail.embedding.backends import open_embedder
from papertrail.embedding.embedder import E5_SMALL_Q4, SearchEmbeddingSettings
from papertrail.embedding.query_hubs import REFERENCE_DIR


async def build(skip: int, count: int) -> Path:
    _, tldrs = corpus()
    clauses = [first_clause(t) for t in tldrs[skip:] if first_clause(t)][:count]
    if len(clauses) < count:
        raise SystemExit(f"only {len(clauses)} TL;DRs past the first {skip} papers")
    search = SearchEmbeddingSettings(search_embedding_model=E5_SMALL_Q4.id).search_embedding
    assert search is not None
    embedder = open_embedder(search)
    outcomes = [o for i in range(0, count, 32) for o in await embedder.embed(clauses[i : i + 32], "query")]
    vectors = np.vstack([o.vector for o in outcomes if o.vector is not None]).astype(np.float16)
    out = REFERENCE_DIR / f"{E5_SMALL_Q4.id}.npy"
    np.save(out, vectors)
    print(f"{vectors.shape[0]} reference queries of {E5_SMALL_Q4.id} -> {out} ({out.stat().st_size:,} bytes)")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip", type=int, default=3000, help="corpus papers never used as references")
    parser.add_argument("--queries", type=int, default=400)
    args = parser.parse_args()
    asyncio.run(build(args.skip, args.queries))


if __name__ == "__main__":
    main()
