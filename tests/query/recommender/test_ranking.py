"""Per-reader ranking on real paper vectors: the committed corpus sample embedded by the local model, ranked for a
reader who saved some of its papers and dismissed others."""

import asyncio
import json
from functools import cache

import numpy as np
import pytest

from papertrail.embedding.backends import open_embedder
from papertrail.embedding.embedder import EmbeddingSettings, embedding_text, l2_normalised
from services.query.recommender import ranking
from services.query.recommender.ranking import ReaderModel, ranked, scores, scores_of_readers, train
from tests.support.corpus import sample_papers

SETTINGS = EmbeddingSettings()
MODEL_KEY = SETTINGS.model_key


@cache
def sample() -> tuple[list[str], list[str], np.ndarray]:
    """The committed corpus sample (15 real papers): ids, titles and vectors from the local model."""
    papers = list(sample_papers().values())

    async def embed() -> np.ndarray:
        embedder = open_embedder(SETTINGS)
        outcomes = await embedder.embed([embedding_text(p.title, p.abstract) for p in papers])
        await embedder.close()
        return np.vstack([o.vector for o in outcomes if o.vector is not None])

    return [p.id for p in papers], [p.title for p in papers], asyncio.run(embed())


def test_a_reader_who_saved_nothing_gets_no_model() -> None:
    _, _, vectors = sample()
    assert train(vectors[:0], vectors[:3], vectors[3:], model_key=MODEL_KEY) is None
    assert train(vectors[:2], vectors[:0], vectors[:0], model_key=MODEL_KEY) is None  # nothing to tell them from


def test_the_papers_most_like_the_saved_ones_rank_first_each_with_its_closest_saved_paper() -> None:
    ids, titles, vectors = sample()
    anchor = 0
    nearest = np.argsort(-(vectors @ vectors[anchor]))  # the anchor, then the papers most like it
    saved, held_out, dismissed = nearest[:3], nearest[3], nearest[-3:]
    background = np.setdiff1d(np.arange(len(ids)), [*saved, held_out, *dismissed])
    model = train(vectors[saved], vectors[dismissed], vectors[background], model_key=MODEL_KEY)
    assert model is not None
    candidates = np.array([held_out, *dismissed])
    feed = ranked(model, [ids[i] for i in candidates], vectors[candidates], [(titles[i], vectors[i]) for i in saved], 4)
    assert feed[0].paper_id == ids[held_out]
    assert [f.score for f in feed] == sorted((f.score for f in feed), reverse=True)
    closest = saved[int(np.argmax(vectors[saved] @ vectors[held_out]))]
    assert feed[0].closest_saved == titles[closest]
    assert feed[0].reason == f"close to your saved '{titles[closest]}'"
    assert feed[0].closeness == pytest.approx(float(vectors[closest] @ vectors[held_out]), abs=1e-5)


def test_a_stored_model_is_plain_numbers_and_scores_as_before() -> None:
    _, _, vectors = sample()
    model = train(vectors[:4], vectors[4:8], vectors[8:], model_key=MODEL_KEY)
    assert model is not None
    document = json.loads(json.dumps(model.to_document()))  # nothing but JSON types: MongoDB keeps it as it is
    again = ReaderModel.from_document(document, dimensions=SETTINGS.embedding_dimensions)
    assert again.model_key == MODEL_KEY and (again.positives, again.negatives, again.background) == (4, 4, 7)
    np.testing.assert_allclose(scores(again, vectors), scores(model, vectors), rtol=1e-6)
    with pytest.raises(ValueError, match="does not fit"):
        ReaderModel.from_document(document, dimensions=768)
    with pytest.raises(ValueError, match="does not fit"):
        ReaderModel.from_document(document | {"weights": [float("nan")] * 384}, dimensions=384)


def test_many_readers_are_scored_in_one_product_as_each_alone() -> None:
    _, _, vectors = sample()
    models = [
        m
        for i in range(5)
        if (m := train(vectors[[i, i + 5]], vectors[[i + 10]], vectors[11:], model_key=MODEL_KEY)) is not None
    ]
    together = scores_of_readers(models, vectors)
    assert together.shape == (5, len(vectors))
    for row, model in zip(together, models, strict=True):
        np.testing.assert_allclose(row, scores(model, vectors), rtol=1e-5)
    assert scores_of_readers([], vectors).shape == (0, len(vectors))


def test_training_is_bounded_by_the_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, vectors = sample()
    many = l2_normalised(np.tile(vectors, (200, 1)) + np.float32(1e-3))  # 3,000 rows of real vectors
    monkeypatch.setattr(ranking, "MAX_POSITIVES", 50)
    monkeypatch.setattr(ranking, "MAX_BACKGROUND", 70)
    model = train(many, many[:10], many, model_key=MODEL_KEY)
    assert model is not None
    assert (model.positives, model.negatives, model.background) == (50, 10, 70)
