"""A paper an earlier release stored with a source's `javascript:` link (before the normalizer kept only http(s)
links): the paper page, rendered by the pages' own templates, makes no link of it and keeps the paper's other
links; nor do its card's links."""

from typing import Any

from schemas.paper import Paper
from services.query.web import format as fmt
from tests.support.page_details import detail, hf_paper, paper_page

HOSTILE = {
    "code": "javascript:alert(document.cookie)",
    "pdf": " JavaScript:alert(1)",
    "project": "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "hf": "https://huggingface.co/papers/2405.18407",
}


def stored_with_hostile_links() -> Paper:
    return hf_paper().model_copy(update={"links": HOSTILE})


def hrefs(tree: Any) -> list[str]:
    return [str(href) for href in tree.xpath("//a/@href")]


def test_the_paper_page_links_only_http_urls_of_a_stored_paper() -> None:
    tree = paper_page(detail(stored_with_hostile_links()))
    links = hrefs(tree)
    assert not [h for h in links if not h.startswith(("/", "#", "?", "https://", "http://"))], links
    assert "https://huggingface.co/papers/2405.18407" in links
    # the arXiv links the page makes from the id stand in for the dropped PDF link
    assert "https://arxiv.org/pdf/2405.18407" in links and "https://arxiv.org/abs/2405.18407" in links


def test_the_page_and_the_card_keep_only_web_links() -> None:
    paper = {"links": HOSTILE, "ids": {"arxiv": "2405.18407"}}
    assert dict(fmt.paper_links(paper)) == {
        "hf": "https://huggingface.co/papers/2405.18407",
        "abs": "https://arxiv.org/abs/2405.18407",
        "pdf": "https://arxiv.org/pdf/2405.18407",
    }
    assert fmt.resource_links(paper) == []  # the cards' code and project links: checked already
