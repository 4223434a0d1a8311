"""A daily digest says which seed paper a similar follow's match is like, and how like. No I/O."""

from datetime import date

from services.matcher.delivery.digest import build_digest


def test_a_digest_says_which_seed_a_paper_is_like() -> None:
    match = {
        "follow_id": "f1",
        "follow_kind": "similar",
        "follow_name": "like SafeConv",
        "paper_id": "arxiv:2605.04321",
        "paper_title": "Robust convolutions",
        "reasons": [
            {"term": "SafeConv: safe convolutions", "field": "similar", "seed_id": "arxiv:2605.01234", "score": 0.74}
        ],
    }
    digest = build_digest("u1", date(2026, 5, 5), [match], "http://127.0.0.1:8000")
    [topic] = digest["topics"]
    assert topic["kind"] == "similar"
    assert topic["papers"][0]["reasons"] == ['similar to "SafeConv: safe convolutions" (0.74)']
