"""Each reader's own ranking of new papers, learnt from what they saved and dismissed. Pure (numpy, scikit-learn).

As arxiv-sanity does per tag on tf-idf, a linear classifier per reader on the paper vectors
(papertrail/embedding/embedder.py,
float32, length 1): the reader's saved papers against their dismissed ones and a sample of other papers (the
background: what a reader did not save is mostly what they never looked at, so it weighs less than a dismissal). A
reader who saved nothing gets no model; the caller serves the follows-based feed. Training is bounded by capping the
examples (docs/benchmarks.md has the times), and a model is stored as numbers, never as a pickle: its weights and
intercept as floats, which MongoDB keeps as they are.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# Examples a model is trained on at most: the newest saves and dismissals (the caller passes them newest first) and a
# background sample: ~0.2 s of one core for a reader with 1,000 saved papers (docs/benchmarks.md).
MAX_POSITIVES = 1000
MAX_NEGATIVES = 1000
MAX_BACKGROUND = 2000
# A dismissal says "not this" on purpose; a background paper only "not looked at". bench/rank_quality.py: weights
# from 0.1 to 1 rank alike (precision@20 within 0.001), so the reasoning decides.
BACKGROUND_WEIGHT = 0.25
# Inverse regularisation strength of the logistic regression: bench/rank_quality.py, 1 ranks best of 0.1, 1 and 10.
C = 1.0


@dataclass(frozen=True, slots=True)
class ReaderModel:
    """A reader's model: score = sigmoid(weights · vector + intercept), for vectors of `model_key`'s embedder."""

    model_key: str
    weights: np.ndarray  # (dimensions,) float32
    intercept: float
    positives: int
    negatives: int
    background: int

    def to_document(self) -> dict[str, Any]:
        """The model as MongoDB stores it: plain numbers (no pickle, nothing executable)."""
        return {
            "model_key": self.model_key,
            "weights": [float(w) for w in self.weights],
            "intercept": float(self.intercept),
            "examples": {"positives": self.positives, "negatives": self.negatives, "background": self.background},
        }

    @classmethod
    def from_document(cls, document: dict[str, Any], dimensions: int) -> "ReaderModel":
        """A stored model back; ValueError when it does not fit vectors of `dimensions` or holds no number."""
        weights = np.asarray(document["weights"], dtype=np.float32)
        intercept = float(document["intercept"])
        if weights.shape != (dimensions,) or not np.isfinite(weights).all() or not np.isfinite(intercept):
            raise ValueError(f"a stored reader model of {weights.shape} weights does not fit vectors of {dimensions}")
        examples = document.get("examples") or {}
        return cls(
            model_key=str(document["model_key"]),
            weights=weights,
            intercept=intercept,
            positives=int(examples.get("positives", 0)),
            negatives=int(examples.get("negatives", 0)),
            background=int(examples.get("background", 0)),
        )


@dataclass(frozen=True, slots=True)
class RankedPaper:
    """One paper of a reader's ranked feed, and why: the saved paper it is closest to."""

    paper_id: str
    score: float  # 0..1
    closest_saved: str  # the label of that saved paper (its title, as the caller labels them)
    closeness: float  # cosine of the two papers' vectors

    @property
    def reason(self) -> str:
        return f"close to your saved '{self.closest_saved}'"


def train(
    positives: np.ndarray,
    negatives: np.ndarray,
    background: np.ndarray,
    *,
    model_key: str,
) -> ReaderModel | None:
    """A reader's model from the vectors of their saved papers (newest first), dismissed papers (newest first) and
    a background sample of other papers; None when they saved nothing (nothing to learn what they want from)."""
    positives, negatives, background = (
        np.asarray(v, dtype=np.float32)[:cap]
        for v, cap in ((positives, MAX_POSITIVES), (negatives, MAX_NEGATIVES), (background, MAX_BACKGROUND))
    )
    if not len(positives) or not len(negatives) + len(background):
        return None
    examples = np.vstack([m for m in (positives, negatives, background) if len(m)])
    labels = np.concatenate([np.ones(len(positives)), np.zeros(len(negatives) + len(background))])
    # Each side weighs the same in all (arxiv-sanity's class_weight="balanced"), dismissals more than background.
    negative_weights = np.concatenate([np.ones(len(negatives)), np.full(len(background), BACKGROUND_WEIGHT)])
    weights = np.concatenate(
        [np.full(len(positives), 1 / len(positives)), negative_weights / negative_weights.sum()]
    ) * len(labels)
    # Imported here, not at the top: scikit-learn takes seconds to import, and every start of the query service
    # (its API replicas, each test's service) would pay them for a model only the training job fits.
    from sklearn.linear_model import LogisticRegression

    classifier = LogisticRegression(C=C, max_iter=1000)
    classifier.fit(examples, labels, sample_weight=weights)
    return ReaderModel(
        model_key=model_key,
        weights=classifier.coef_[0].astype(np.float32),
        intercept=float(classifier.intercept_[0]),
        positives=len(positives),
        negatives=len(negatives),
        background=len(background),
    )


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(x, -30, 30)))


def scores(model: ReaderModel, vectors: np.ndarray) -> np.ndarray:
    """Each paper's score for the reader, 0..1."""
    return _sigmoid(np.asarray(vectors, dtype=np.float32) @ model.weights + model.intercept)


def scores_of_readers(models: Sequence[ReaderModel], vectors: np.ndarray) -> np.ndarray:
    """(readers, papers) scores in one matrix product: a day's papers against every reader's model."""
    if not models:
        return np.zeros((0, len(vectors)), dtype=np.float32)
    weights = np.vstack([m.weights for m in models])
    intercepts = np.array([m.intercept for m in models], dtype=np.float32)[:, None]
    return _sigmoid(weights @ np.asarray(vectors, dtype=np.float32).T + intercepts)


def ranked(
    model: ReaderModel,
    paper_ids: Sequence[str],
    vectors: np.ndarray,
    saved: Sequence[tuple[str, np.ndarray]],
    size: int,
) -> list[RankedPaper]:
    """The reader's `size` best papers, best first, each with the saved paper (label, vector) it is closest to."""
    if not len(paper_ids) or not saved or size <= 0:
        return []
    paper_scores = scores(model, vectors)
    top = np.argsort(-paper_scores, kind="stable")[:size]
    saved_vectors = np.vstack([np.asarray(v, dtype=np.float32) for _, v in saved])
    closeness = saved_vectors @ np.asarray(vectors, dtype=np.float32)[top].T  # (saved, top)
    closest = closeness.argmax(axis=0)
    return [
        RankedPaper(paper_ids[i], float(paper_scores[i]), saved[s][0], float(closeness[s, n]))
        for n, (i, s) in enumerate(zip(top, closest, strict=True))
    ]
