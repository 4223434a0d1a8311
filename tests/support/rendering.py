"""The query service's pages rendered from their templates without a server, for tests of what a page shows."""

from datetime import UTC, datetime
from typing import Any

from lxml import html
from starlette.requests import Request

from papertrail.domain.search_document import paper_document
from papertrail.runtime.wording import Translator
from schemas.events import PaperEnriched
from schemas.paper import Author, Paper, PaperIds, PaperVersion
from schemas.summary import Institution, Summary
from services.query.web import format as fmt
from services.query.web.render import gettext_functions, templates


def page_request(path: str = "/papers/arxiv:2611.00001") -> Request:
    """The request a page is rendered for (the menu marks the page it is on)."""
    return Request({"type": "http", "method": "GET", "path": path, "query_string": b"", "headers": []})


def summarized_paper() -> dict[str, Any]:
    now = datetime(2026, 11, 14, 8, 0, tzinfo=UTC)
    paper = Paper(
        id="arxiv:2611.00001",
        ids=PaperIds(arxiv="2611.00001"),
        title="A Local Perturbation Theory for Cross-Domain Interference",
        abstract="We study interference.",
        authors=[Author(name=f"Person {i}", key=f"person {i}", affiliations=["Tianjin University"]) for i in range(12)],
        categories=["cs.CL", "cs.LG"],
        sources=["arxiv"],
        first_seen=now,
        updated_at=now,
    )
    summary = Summary(
        status="ok",
        model="deepseek-chat",
        title_zh="跨域干扰与恢复的局部微扰理论",
        tldr_zh="提出局部微扰理论。",
        method_zh="二阶损伤项分析。",
        institutions=[Institution(name="Tianjin University", name_zh="天津大学")],
        generated_at=now,
    )
    version = PaperVersion(
        paper_id=paper.id, seq=1, kind="first_observed", source="arxiv", source_record_id="2611.00001",
        observed_at=now, content_hash="x",
    )  # fmt: skip
    document = paper_document(PaperEnriched(kind="new", paper=paper, version=version, summary=summary), {})
    canonical = {**paper.model_dump(mode="python", exclude={"authors"}), "authors": document["authors_detail"]}
    return {**document, "paper": canonical, "history": [version.model_dump()], "topic_reasons": {}}


def paper_page(lang: str, paper: dict[str, Any]) -> Any:
    """The paper page of a paper detail as the API gives it, in Beijing time."""
    t = Translator(lang)
    page = templates.get_template("paper.html").render(
        **gettext_functions(t),
        lang=lang, other_lang_url="/", zone="Asia/Shanghai", zone_label=fmt.zone_label("Asia/Shanghai", t),
        when=lambda v, p="%Y-%m-%d %H:%M": fmt.local_time(v, "Asia/Shanghai", p), user=None, request=page_request(),
        paper=paper, topic_hits=[],
    )  # fmt: skip
    return html.fromstring(page)
