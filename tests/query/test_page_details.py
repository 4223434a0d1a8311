"""What a first-time reader met on the pages (issue 27, items 11-14), rendered by the pages' own templates from
papers built by the real document function: the paper page's categories, folded authors, version labels and Hugging
Face upvotes; the import's counts while it runs and 为你推荐's window; titles and abstracts marked by the language
they are written in, headings in order; the sources page's runs saying which records they asked for and when."""

from datetime import UTC, datetime
from itertools import pairwise
from typing import Any
from urllib.parse import quote

import pytest
from lxml import html

from papertrail.runtime.wording import Translator
from schemas.paper import Paper, PaperVersion
from schemas.summary import Summary
from services.query.catalogue.reads.overview import SourceDetail
from services.query.web import format as fmt
from services.query.web.render import gettext_functions, templates
from tests.support.page_details import (
    HF_AUTHORS,
    NOW,
    acl_paper,
    detail,
    hf_paper,
    paper_page,
    render,
    text,
)


def headings(tree: Any) -> list[int]:
    return [int(h.tag[1]) for h in tree.iter("h1", "h2", "h3", "h4", "h5", "h6")]


def assert_in_order(tree: Any) -> None:
    """No heading skips a level under the one before it (h1 → h3)."""
    levels = headings(tree)
    assert levels[0] == 1 and all(b <= a + 1 for a, b in pairwise(levels)), levels


# item 11: the paper page ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("paper", [hf_paper(), acl_paper()], ids=["hf", "acl"])
def test_a_paper_without_categories_shows_no_empty_category_label(paper: Paper) -> None:
    tree = paper_page(detail(paper))
    assert not tree.find_class("cats") and "分类" not in text(tree.find_class("paper")[0])
    arxiv = detail(paper.model_copy(update={"categories": ["cs.CV"]}))
    [cats] = paper_page(arxiv).find_class("cats")
    assert text(cats) == "分类 cs.CV"


@pytest.mark.parametrize(("lang", "summary"), [("zh", "显示其余 4 位作者"), ("en", "Show the other 4 authors")])
def test_the_folded_author_list_holds_the_authors_after_the_first_eight_only(lang: str, summary: str) -> None:
    tree = paper_page(detail(hf_paper()), lang)
    first = [a.text_content() for a in tree.find_class("authors")[0].find_class("author")]
    [folded] = tree.find_class("all-authors")
    rest = [a.text_content() for a in folded.find_class("author")]
    assert first == HF_AUTHORS[:8] and rest == HF_AUTHORS[8:]
    assert text(folded.find("summary")) == summary
    assert folded.find(".//a").get("href") == f"/authors/{quote(fmt.author_page_key(HF_AUTHORS[8]))}"
    two = paper_page(detail(acl_paper()), lang)
    assert not two.find_class("all-authors")  # nothing folded away: nothing to unfold


def test_a_later_version_the_source_gave_no_number_is_said_so_and_a_numbered_one_as_numbered() -> None:
    paper = hf_paper().model_copy(update={"sources": ["arxiv"]})
    versions = [
        PaperVersion(
            paper_id=paper.id, seq=seq, kind=kind, source="arxiv", source_record_id="2405.18407", source_version=label,
            observed_at=NOW, content_hash=str(seq),
        )
        for seq, kind, label in [(1, "first_observed", "v1"), (2, "new_version", "updated")]
    ]  # fmt: skip
    cells = {lang: [text(row[3]) for row in paper_page(detail(paper, versions), lang).xpath(
        '//section[@id="history"]//tbody/tr')] for lang in ("zh", "en")}  # fmt: skip
    assert cells["zh"] == ["v1", "更新版(信源未给版本号)"]
    assert cells["en"] == ["v1", "a later version (the source gives no number)"]


@pytest.mark.parametrize(("lang", "shown"), [("zh", "HF 社区发现 · 18 赞"), ("en", "HF community pick · 18 upvotes")])
def test_the_paper_page_shows_the_hugging_face_upvotes_its_card_shows(lang: str, shown: str) -> None:
    paper = detail(hf_paper())
    card = html.fromstring(
        templates.env.from_string('{% import "_macros.html" as m with context %}{{ m.card(paper) }}').render(
            **gettext_functions(Translator(lang)), lang=lang, paper=paper
        )
    )
    assert text(card.find_class("badge-hf")[0]) == shown
    assert text(paper_page(paper, lang).get_element_by_id("community")) == shown
    assert not paper_page(detail(acl_paper()), lang).find_class("badge-hf")


# item 12: the library's import and 为你推荐 ----------------------------------------------------------------------
def import_job(state: str, resolved: int, added: int) -> dict[str, Any]:
    counts = {"resolved": resolved, "ambiguous": 0, "unresolved": 8, "added": added}
    return {"_id": "a" * 32, "filename": "mera.bib", "state": state, "total": 9, "cursor": 9, "counts": counts}


def test_an_import_under_way_says_what_it_matched_so_far_and_what_it_saved_once_done() -> None:
    # a chunk's papers are saved a moment before its verdicts are counted: "匹配 0 条(新收藏 1 篇)" was seen
    running = text(render("import.html", job=import_job("running", 0, 1)).find_class("counts")[0])
    assert running == "目前:匹配到论文 0 条,有歧义 0 条,未找到 8 条" and "收藏" not in running
    done = text(render("import.html", job=import_job("done", 1, 1)).find_class("counts")[0])
    assert done == "匹配到论文 1 条(其中 1 篇新加入收藏),有歧义 0 条,未找到 8 条"


def feed(sort: str, total: int) -> Any:
    page = {"sort": sort, "total": total, "items": [], "next_cursor": None}
    return render("feed.html", path="/me/feed", user={"name": "ana"}, feed=[], page=page, chosen=sort, more=None,
                  marks={}, window_days=14)  # fmt: skip


def test_for_you_says_which_papers_it_ranked_not_a_count_of_recommendations() -> None:
    ranked = feed("relevance", 2000)  # recommend.MAX_CANDIDATES: the window of recent papers ranked, capped
    assert "2000" not in text(ranked.find("body//h1")) and not ranked.find_class("count")
    assert text(ranked.find_class("ranked-from")[0]) == "从近 14 天最新的 2,000 篇论文中按你的收藏排序"
    newest = feed("newest", 37)  # the follows' matches: a count of what is listed
    assert text(newest.find_class("count")[0]) == "共 37 篇" and not newest.find_class("ranked-from")


# item 13: language marks and heading order ----------------------------------------------------------------------
def test_titles_and_abstracts_are_marked_by_the_language_they_are_written_in() -> None:
    english = detail(acl_paper(), summary=Summary(status="ok", title_zh="基于引用增强的大模型对话生成"))
    zh_page = paper_page(english, "zh")
    assert zh_page.find_class("paper-title")[0].get("lang") == "en"
    assert zh_page.find_class("abstract-full")[0].find("p").get("lang") == "en"
    assert zh_page.find_class("title-zh")[0].get("lang") is None  # Chinese on a Chinese page
    en_page = paper_page(english, "en")
    assert en_page.find_class("paper-title")[0].get("lang") is None
    assert en_page.find_class("title-zh")[0].get("lang") == "zh-CN"  # the Chinese title on an English page
    # a title written in Chinese is not marked English on a Chinese page
    chinese = detail(acl_paper().model_copy(update={"title": "面向中文的大模型推理评测"}))
    assert paper_page(chinese, "zh").find_class("paper-title")[0].get("lang") is None
    assert paper_page(chinese, "en").find_class("paper-title")[0].get("lang") == "zh-CN"


def topic_page(lang: str = "zh") -> Any:
    hit = {**detail(acl_paper()), "reasons": [{"subtopic": "LLM", "term": "large language model", "field": "abstract"}]}
    listing = {"topic": {"id": "llm", "name": "Large language models", "name_zh": "大语言模型"}, "total": 1,
               "page": 1, "size": 20, "hits": [hit]}  # fmt: skip
    return render("topic.html", lang, "/topics/llm", listing=listing, page=1, pages=[1], marks={})


def test_a_topic_page_goes_from_its_name_to_its_papers_without_skipping_a_heading_and_marks_english() -> None:
    tree = topic_page()
    assert headings(tree) == [1, 2]
    assert_in_order(tree)
    [title] = tree.find_class("title")
    assert title.get("lang") == "en"
    hits = text(tree.find_class("hits")[0])
    assert "分类" not in hits  # the Anthology gives no categories: no empty label either


def test_the_library_and_the_feed_pages_keep_their_headings_in_order() -> None:
    entry = {"paper_id": "acl:2024.acl-long.10", "paper": {"title": acl_paper().title, "authors": ["Weitao Li"]},
             "tags": [], "note": "", "saved_at": NOW}  # fmt: skip
    library = render("library.html", path="/me/library", user={"name": "ana"}, entries=[entry], total=1, tags=[],
                     filters={}, next_url=None, problem=None, marks={}, formats=["bibtex"])  # fmt: skip
    assert_in_order(library)
    assert library.find_class("title")[0].get("lang") == "en"
    # a newer version that arXiv's `arXiv` format names only "updated": not "已更新到 updated"
    newer = entry | {"updated_to": "updated"}
    later = render("library.html", path="/me/library", user={"name": "ana"}, entries=[newer], total=1, tags=[],
                   filters={}, next_url=None, problem=None, marks={}, formats=["bibtex"])  # fmt: skip
    assert text(later.find_class("updated-to")[0]) == "有新版本"
    # the entry's AI 导读 from its search document, as a card shows it
    indexed = {entry["paper_id"]: {"tldr_zh": "提出引用增强生成。", "tldr_en": "Citation-enhanced generation."}}
    summarized = render("library.html", path="/me/library", user={"name": "ana"}, entries=[entry], total=1,
                        tags=[], filters={}, next_url=None, problem=None, marks={}, formats=["bibtex"],
                        indexed=indexed)  # fmt: skip
    assert [text(p) for p in summarized.find_class("tldr")] == ["AI 导读 提出引用增强生成。"]
    assert not library.find_class("tldr")  # none without one
    item = {"paper_id": "acl:2024.acl-long.10", "follow_name": "LLM", "matched_at": NOW, "reasons": [],
            "paper": {"title": acl_paper().title, "authors": ["Weitao Li"]}}  # fmt: skip
    page = {"sort": "newest", "total": 1, "items": [item], "next_cursor": None}
    following = render("feed.html", path="/me/feed", user={"name": "ana"}, feed=[item], page=page, chosen="newest",
                       more=None, marks={}, window_days=14)  # fmt: skip
    assert_in_order(following)


# item 14: the sources page --------------------------------------------------------------------------------------
def test_the_sources_page_says_which_records_a_run_asked_for_beside_when_it_ran() -> None:
    # the demo's recorded arXiv windows beside a scan that finished today
    runs = [
        {"state": "finished", "started_at": datetime(2026, 12, 1, 21, 45, tzinfo=UTC),
         "finished_at": datetime(2026, 12, 1, 21, 46, tzinfo=UTC), "window_from": "2016-01-17",
         "window_until": "2016-01-17", "pages": 1, "records": 12},
        {"state": "finished", "started_at": datetime(2026, 12, 1, 21, 40, tzinfo=UTC),
         "finished_at": datetime(2026, 12, 1, 21, 41, tzinfo=UTC), "window_from": "2015-01-16",
         "window_until": "2016-01-17", "pages": 3, "records": 300},
    ]  # fmt: skip
    source = SourceDetail(source="arxiv", state="ok", last_completed_scan=runs[0]["finished_at"], recent_runs=runs)
    for lang, scan, header, note in [
        ("zh", "2026-12-02 05:46 · 覆盖 2016-01-17 的记录", "覆盖的记录日期", "不是它运行的时间"),
        ("en", "2026-12-02 05:46 · records dated 2016-01-17", "Records dated", "not when it ran"),
    ]:
        tree = render("sources.html", lang, "/sources", sources=[source])
        assert text(tree.find_class("last-scan")[0]) == scan
        section = tree.get_element_by_id("source-arxiv")
        assert [text(th) for th in section.iter("th")][:4] == (
            ["运行开始", "运行结束", "状态", header]
            if lang == "zh"
            else ["Run started", "Run finished", "State", header]
        )
        assert [text(td) for td in section.find_class("run-window")] == ["2016-01-17", "2015-01-16 → 2016-01-17"]
        assert note in text(section)


def test_a_run_names_each_file_it_skipped() -> None:
    skipped = "conference/AI/nips.yml: not readable YAML: found unexpected end of stream"
    run = {"state": "finished", "started_at": NOW, "finished_at": NOW, "pages": 1, "records": 0, "skipped": [skipped]}
    source = SourceDetail(source="ccf_deadlines", state="ok", last_completed_scan=NOW, recent_runs=[run])
    for lang, said in [("zh", f"已跳过 {skipped}"), ("en", f"Skipped {skipped}")]:
        section = render("sources.html", lang, "/sources", sources=[source]).get_element_by_id("source-ccf_deadlines")
        assert [text(div) for div in section.find_class("run-skipped")] == [said]


# issue 38: a Chinese title from the local title model while the paper waits for its 导读 ---------------------------
def test_a_waiting_paper_shows_the_title_models_chinese_title_with_its_provenance() -> None:
    waiting = Summary(
        status="pending", error="no model configured", title_zh="基于引用增强的大模型对话生成", title_model="qwen-local"
    )
    paper = detail(acl_paper(), summary=waiting)
    assert paper["title_zh"] == "基于引用增强的大模型对话生成"  # the search document's: what the cards show
    zh_page = paper_page(paper, "zh")
    assert text(zh_page.find_class("title-zh")[0]) == "基于引用增强的大模型对话生成"
    assert text(zh_page.find_class("title-provenance")[0]) == "中文标题由本地模型 qwen-local 机器翻译"
    assert zh_page.find_class("summary-none") and not zh_page.find_class("summary-fields")  # still no 导读
    en_page = paper_page(paper, "en")
    assert "machine-translated by the local model qwen-local" in text(en_page.find_class("title-provenance")[0])
    # a title the summary's own model wrote names no other model
    ours = paper_page(detail(acl_paper(), summary=Summary(status="ok", title_zh="标题", tldr_zh="导读")), "zh")
    assert not ours.find_class("title-provenance")
