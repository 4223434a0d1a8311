"""The "纠错" link and notice in the templates, without servers: after the institutions on the paper page, a card
and a topic entry (field=institutions), elsewhere when a paper has none (field=other); the thank-you notice."""

from typing import Any

import pytest
from lxml import html

from papertrail.runtime.wording import Translator
from services.query.web import format as fmt
from services.query.web.render import gettext_functions, templates
from tests.support.rendering import page_request, summarized_paper


def render(template: str, lang: str = "zh", **context: Any) -> Any:
    t = Translator(lang)
    page = templates.get_template(template).render(
        **gettext_functions(t),
        lang=lang, other_lang_url="/", zone="Asia/Shanghai", zone_label=fmt.zone_label("Asia/Shanghai", t),
        when=lambda v, p="%Y-%m-%d %H:%M": fmt.local_time(v, "Asia/Shanghai", p), user=None,
        request=page_request(), **context,
    )  # fmt: skip
    return html.fromstring(page)


@pytest.mark.parametrize(("lang", "label"), [("zh", "纠错"), ("en", "Report an error")])
def test_the_paper_page_links_the_form_right_after_the_institutions(lang: str, label: str) -> None:
    tree = render("paper.html", lang, paper=summarized_paper(), topic_hits=[], reported=False)
    institutions = tree.find_class("insts")[0]
    link = institutions.find_class("correct-link")[0]
    assert link.text == label and link.get("href") == "/papers/arxiv:2611.00001/correct?field=institutions"
    assert institutions.find_class("inst")[-1].getnext() is link  # after the last institution
    assert not tree.xpath('//*[@id="reported"]')


def test_the_thank_you_notice_shows_only_after_a_report() -> None:
    tree = render("paper.html", paper=summarized_paper(), topic_hits=[], reported=True)
    assert "感谢纠错" in tree.get_element_by_id("reported").text_content()


def test_cards_and_topic_entries_link_the_form_with_or_without_institutions() -> None:
    paper = summarized_paper()
    without = {**paper, "paper_id": "arxiv:hep-th/9901001", "summary": {"status": "pending"}, "shown_institutions": []}
    macros = templates.env.get_template("_macros.html").make_module(
        {**gettext_functions(Translator("zh")), "lang": "zh", "fmt": fmt}
    )
    cards = [html.fromstring(str(macros.card(p))) for p in (paper, without)]  # type: ignore[attr-defined]
    assert [c.find_class("correct-link")[0].get("href") for c in cards] == [
        "/papers/arxiv:2611.00001/correct?field=institutions",
        "/papers/arxiv:hep-th/9901001/correct?field=other",
    ]
    assert "Tianjin University（天津大学）" in cards[0].find_class("insts")[0].text_content()
    topic = {"id": "reasoning", "name": "Reasoning", "name_zh": "推理"}
    listing = {"topic": topic, "total": 1, "hits": [{**paper, "reasons": []}]}
    entry = render("topic.html", listing=listing, page=1, pages=[1]).find_class("entry")[0]
    assert entry.find_class("insts")[0].find_class("correct-link")[0].get("href").endswith("field=institutions")
