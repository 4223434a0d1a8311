"""Paper pages rendered from the API's detail of a paper, without a server: the papers and renderers the page
tests share."""

from datetime import UTC, datetime
from typing import Any

from lxml import html
from starlette.requests import Request

from papertrail.domain.names import make_author
from papertrail.domain.search_document import paper_document
from papertrail.runtime.wording import Translator
from schemas.events import PaperEnriched
from schemas.paper import CommunityPick, Paper, PaperIds, PaperVersion
from schemas.summary import Summary
from services.query.web import format as fmt
from services.query.web.render import gettext_functions, templates


def detail(paper: Paper, versions: list[PaperVersion] | None = None, summary: Summary | None = None) -> dict[str, Any]:
    """The paper page's paper as the API's detail gives it: its search document, canonical record and history."""
    history = versions or [
        PaperVersion(
            paper_id=paper.id, seq=1, kind="first_observed", source=paper.sources[0], source_record_id=paper.id,
            observed_at=NOW, content_hash="x",
        )
    ]  # fmt: skip
    event = PaperEnriched(kind="new", paper=paper, version=history[-1], summary=summary or Summary(status="pending"))
    document = paper_document(event, {})
    canonical = {**paper.model_dump(mode="json", exclude={"authors"}), "authors": document["authors_detail"]}
    return {**document, "paper": canonical, "history": [v.model_dump() for v in history], "topic_reasons": {}}


def hf_paper() -> Paper:
    return Paper(
        id="arxiv:2405.18407",
        ids=PaperIds(arxiv="2405.18407"),
        title="Phased Consistency Model",
        abstract="The consistency model (CM) has recently made significant progress in accelerating the generation.",
        authors=[make_author(name) for name in HF_AUTHORS],
        categories=[],  # a paper known from Hugging Face only: no arXiv categories yet
        sources=["hf"],
        community=CommunityPick(date="2024-05-29", upvotes=18),
        first_seen=NOW,
        updated_at=NOW,
    )


def acl_paper() -> Paper:
    # 2024.acl-long.10 of the ACL 2024 volume (tests/fixtures/sources/acl/2024.acl.xml): the Anthology gives no
    # categories
    return Paper(
        id="acl:2024.acl-long.10",
        ids=PaperIds(acl="2024.acl-long.10", dois=["10.18653/v1/2024.acl-long.10"]),
        title="Citation-Enhanced Generation for LLM-based Chatbots",
        abstract="Large language models (LLMs) exhibit powerful general intelligence across diverse scenarios.",
        authors=[make_author("Weitao Li"), make_author("Junkai Li")],
        categories=[],
        sources=["acl"],
        venue="ACL 2024",
        year=2024,
        first_seen=NOW,
        updated_at=NOW,
    )


def render(template: str, lang: str = "zh", path: str = "/", **context: Any) -> Any:
    t = Translator(lang)
    page = templates.get_template(template).render(
        **gettext_functions(t),
        lang=lang, other_lang_url="/", zone="Asia/Shanghai", zone_label=fmt.zone_label("Asia/Shanghai", t),
        when=lambda v, p="%Y-%m-%d %H:%M": fmt.local_time(v, "Asia/Shanghai", p), request=page_request(path),
        csrf="token", **{"user": None, **context},
    )  # fmt: skip
    return html.fromstring(page)


def paper_page(paper: dict[str, Any], lang: str = "zh") -> Any:
    return render("paper.html", lang, f"/papers/{paper['paper']['id']}", paper=paper, topic_hits=[])


def text(node: Any) -> str:
    return " ".join(node.text_content().split())


NOW = datetime(2024, 5, 29, 8, 0, tzinfo=UTC)


# tests/fixtures/sources/hf_daily_papers/daily_papers_2024-05-29.json, its first item: 2405.18407, 12 authors, 18
# upvotes on Hugging Face's daily papers of 2024-05-29
HF_AUTHORS = [
    "Fu-Yun Wang", "Zhaoyang Huang", "Alexander William Bergman", "Dazhong Shen", "Peng Gao", "Michael Lingelbach",
    "Keqiang Sun", "Weikang Bian", "Guanglu Song", "Yu Liu", "Hongsheng Li", "Xiaogang Wang",
]  # fmt: skip


def page_request(path: str) -> Request:
    return Request({"type": "http", "method": "GET", "path": path, "query_string": b"", "headers": []})
