"""How close a paper lies to Chinese searches in general, so a search by meaning ranks what is close to this query.

In a multilingual model's space some papers lie close to nearly every Chinese query (a benchmark of Chinese exam
questions, a paper on LLM-written social-comparison triggers): ranked by cosine alone they come back for most short
queries. Cross-domain similarity local scaling (CSLS; Conneau et al., "Word Translation Without Parallel Data",
ICLR 2018) ranks instead by the query's cosine less the paper's mean cosine to its k nearest queries of a reference
set, its hub score. The reference here is the query vectors of 400 Chinese queries as readers type them (first
clauses of TL;DRs of corpus papers the benchmarks never ask about), embedded once by the search model and shipped
beside this file per model (`<model id>.npy`, ORIGIN.md says how it was made); a model without one ranks by cosine.
"""

from functools import lru_cache
from pathlib import Path

import numpy as np

REFERENCE_DIR = Path(__file__).parent
NEAREST_QUERIES = 50  # k of CSLS: a paper's hub score is its mean cosine to this many nearest reference queries
# How much of the hub score is taken off a paper's cosine: CSLS's 2·cos − r_paper (− r_query, the same for every
# paper of one query) ranks as cos − r_paper / 2
HUB_WEIGHT = 0.5


@lru_cache(maxsize=4)
def reference_queries(model_id: str) -> np.ndarray | None:
    """The reference queries' unit vectors by this model (float32, queries × dimensions), or None without a file."""
    path = REFERENCE_DIR / f"{model_id}.npy"
    if not path.exists():
        return None
    vectors = np.load(path).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def hub_scores(papers: np.ndarray, reference: np.ndarray, nearest: int = NEAREST_QUERIES) -> np.ndarray:
    """Each paper's mean cosine to its `nearest` closest reference queries (papers: rows of vectors)."""
    units = papers / np.maximum(np.linalg.norm(papers, axis=1, keepdims=True), 1e-12)
    cosines = units @ reference.T
    k = min(nearest, reference.shape[0])
    return np.partition(cosines, -k, axis=1)[:, -k:].mean(axis=1)


def hub_corrected(cosines: np.ndarray, hubs: np.ndarray, weight: float = HUB_WEIGHT) -> np.ndarray:
    """The ranking of papers for one query: the query's cosine to each less the weighted hub score of each."""
    return cosines - weight * hubs
