"""The "papers like these" scorer: one matrix product per batch gives what a loop over every follow and seed gives."""

import numpy as np
import pytest

from papertrail.embedding import similarity
from papertrail.embedding.embedder import l2_normalised
from papertrail.embedding.similarity import SimilarFollow, SimilarMatch, seed_matrix, similar_matches


def unit(*values: float) -> np.ndarray:
    return l2_normalised(np.array(values, dtype=np.float32))


def test_a_paper_matches_through_the_seeds_centroid_or_its_closest_seed() -> None:
    follows = [
        SimilarFollow("two-subjects", [("arxiv:a", unit(1, 0, 0)), ("arxiv:b", unit(0, 1, 0))], threshold=0.8),
        SimilarFollow("described", [("description", unit(0, 0, 1))], threshold=0.6),
        SimilarFollow("no-seeds", [], threshold=0.1),
    ]
    seeds = seed_matrix(follows, dimensions=3)
    assert seeds.follow_ids.tolist() == ["described", "two-subjects"]  # by seed count; without seeds, nothing can match
    near_b, between, diagonal, away = unit(0.1, 1, 0), unit(1, 0.9, 0.3), unit(1, 0, 1), unit(-1, -1, -1)
    found = similar_matches(
        seeds, ["near-b", "between", "diagonal", "away"], np.vstack([near_b, between, diagonal, away])
    )
    assert [(m.paper_id, m.follow_id, m.seed) for m in found] == [
        ("near-b", "two-subjects", "arxiv:b"),  # b alone reaches 0.8; the centroid of a and b (0.77) does not
        ("between", "two-subjects", "arxiv:a"),  # a (0.72) and b (0.65) do not, their centroid (0.96) does
        ("diagonal", "described", "description"),  # 0.707 with the description; with a, 0.707 < 0.8
    ]
    centroid = unit(1, 1, 0)
    assert found[0].score == pytest.approx(float(near_b @ unit(0, 1, 0)))
    assert found[1].score == pytest.approx(float(between @ centroid))
    assert found[2].score == pytest.approx(0.7071, abs=1e-4)


def test_the_threshold_counts_itself() -> None:
    seeds = seed_matrix([SimilarFollow("f", [("s", unit(0, 1, 0))], threshold=0.8)], 3)
    (match,) = similar_matches(seeds, ["p"], unit(0.6, 0.8, 0)[None, :])
    assert match.score == pytest.approx(0.8)


def test_nothing_to_score() -> None:
    assert similar_matches(seed_matrix([], 3), ["p1"], unit(1, 0, 0)[None, :]) == []
    seeds = seed_matrix([SimilarFollow("f", [("s", unit(1, 0, 0))], 0.5)], 3)
    assert similar_matches(seeds, [], np.zeros((0, 3), dtype=np.float32)) == []


def test_a_seed_of_another_length_is_refused() -> None:
    with pytest.raises(ValueError, match=r"a seed vector of shape \(4,\) among vectors of 3"):
        seed_matrix([SimilarFollow("f", [("s", unit(1, 0, 0, 0))], 0.5)], 3)


def loop_matches(follows: list[SimilarFollow], paper_ids: list[str], papers: np.ndarray) -> list[SimilarMatch]:
    """The obvious way: every paper, every follow, every seed."""
    found = []
    for paper_id, paper in zip(paper_ids, papers, strict=True):
        for follow in follows:
            if not follow.seeds:
                continue
            closest, label = max((float(paper @ vector), label) for label, vector in follow.seeds)
            centroid = np.mean([vector for _, vector in follow.seeds], axis=0)
            score = max(closest, float(paper @ centroid) / float(np.linalg.norm(centroid)))
            if score >= follow.threshold:
                found.append(SimilarMatch(paper_id, follow.follow_id, label, score))
    return found


@pytest.mark.parametrize("max_cells", [1 << 24, 1000])  # one product, or papers taken a few at a time
def test_the_matrix_product_finds_what_the_loop_finds(monkeypatch: pytest.MonkeyPatch, max_cells: int) -> None:
    monkeypatch.setattr(similarity, "MAX_CELLS", max_cells)
    rng = np.random.default_rng(16)
    dimensions = 24
    follows = [
        SimilarFollow(
            f"f{i}",
            [(f"s{i}.{j}", l2_normalised(rng.normal(size=dimensions))) for j in range(rng.integers(0, 6))],
            threshold=float(rng.uniform(0.2, 0.5)),
        )
        for i in range(300)
    ]
    papers = l2_normalised(rng.normal(size=(50, dimensions)))
    paper_ids = [f"p{i}" for i in range(50)]
    found = similar_matches(seed_matrix(follows, dimensions), paper_ids, papers)
    expected = loop_matches(follows, paper_ids, papers)
    assert len(expected) > 100  # the case is not trivial
    by_pair = {(m.paper_id, m.follow_id): m for m in expected}
    assert [m.paper_id for m in found] == sorted((m.paper_id for m in found), key=paper_ids.index)  # papers in order
    assert {(m.paper_id, m.follow_id, m.seed) for m in found} == {(m.paper_id, m.follow_id, m.seed) for m in expected}
    assert len(found) == len(expected)
    assert all(m.score == pytest.approx(by_pair[m.paper_id, m.follow_id].score, abs=1e-5) for m in found)
