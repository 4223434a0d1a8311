"""One digest of a paper's text for its summary and its vector: the same as the three copies it replaced wrote, so
the digests in `summaries` and `paper_vectors` stay valid after an upgrade (nothing is summarized or embedded again)."""

import pytest

from papertrail.domain.text import paper_digest
from tests.support.fake_openai import corpus_event, corpus_lines

PAPER = corpus_event(corpus_lines()[0]).paper


# Digests as services/summarizer/policy.py, papertrail/embedding/embedder.py and services/summarizer/vector_policy.py
# each computed them before they became one function: sha256 of title, a blank line, abstract, nothing stripped.
@pytest.mark.parametrize(
    ("title", "abstract", "digest"),
    [
        (
            "Attention Is All You Need",
            "We propose the Transformer.",
            "049fb7ac53afd446669a83c88919c134c86dbd9714ba76118247904eae1882d8",
        ),
        ("A title alone", "", "7207031ca8414b5db0dc5d19df4134e09457352d5dc91ccc64ef832443c6d982"),
        (
            "深度学习模型的推理能力",
            "我们提出……\n\n第二段",
            "f5be87b09bd849e468dc7ba7c674e56db484a8230bc53c1303afb89aa48ba176",
        ),
        ("  Spaces kept  ", " trailing \n", "c8d976826963aa2c644e6cf0a7cd5882fd9e152be7275b271c6f354005c1cb1c"),
    ],
)
def test_a_papers_digest_is_the_one_stored_before(title: str, abstract: str, digest: str) -> None:
    assert paper_digest(PAPER.model_copy(update={"title": title, "abstract": abstract})) == digest


def test_the_digest_is_of_the_text_alone() -> None:
    other_paper_same_text = PAPER.model_copy(update={"id": "acl:2026.x-1", "venue": "X", "year": 1999})
    assert paper_digest(other_paper_same_text) == paper_digest(PAPER)
    assert paper_digest(PAPER.model_copy(update={"abstract": PAPER.abstract + " "})) != paper_digest(PAPER)
