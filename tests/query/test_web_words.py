"""The pages' words without servers (issue 27 items 7, 8 and 10): refusals in the reader's language, topic follows
named after their topic, no English left on Chinese pages and one name for the AI summary. (The same over a running
site: tests/query/catalogue/test_pages.py; the correction form past its write limit: readers/test_write_limits.py.)"""

import re
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest
from lxml import html

from papertrail.domain.follows.catalogue import load_catalogue, topic_title
from papertrail.domain.follows.checks import FollowRuleError
from papertrail.domain.follows.kinds import FOLLOW_KINDS, check_follow
from papertrail.runtime.wording import Translator
from schemas.events import Follow
from services.query.accounts.follows import FollowOut, follow_title
from services.query.web import format as fmt
from services.query.web import labels
from services.query.web.browse import parse_browse
from services.query.web.refusals import write_limited_text
from services.query.web.render import HERE, gettext_functions, templates
from tests.support.catalogs import zh_catalog

ZH, EN = Translator("zh"), Translator("en")
NOW = datetime(2026, 5, 11, 8, 30, tzinfo=UTC)


def render(template: str, lang: str = "zh", **context: Any) -> Any:
    t = Translator(lang)
    page = templates.get_template(template).render(
        **gettext_functions(t),
        lang=lang, other_lang_url="/", zone="Asia/Shanghai", zone_label=fmt.zone_label("Asia/Shanghai", t),
        when=lambda v, p="%Y-%m-%d %H:%M": fmt.local_time(v, "Asia/Shanghai", p), csrf="c", **context,
    )  # fmt: skip
    return html.fromstring(page)


def text(node: Any) -> str:
    return " ".join(node.text_content().split())


# item 7: refusals in words, what the reader typed kept, examples that do not claim to exist


@pytest.mark.parametrize(
    ("lang", "said"),
    [("zh", "起始日期:「2026-13-45」不是有效日期(应写作 2026-05-01)"), ("en", "From date: “2026-13-45” is not a date")],
)
def test_a_bad_date_is_named_in_the_readers_language_and_the_rest_of_the_browse_is_kept(lang: str, said: str) -> None:
    browse, problem, rejected = parse_browse(
        [("q", "graph"), ("since", "2026-13-45"), ("category", "cs.LG")], Translator(lang)
    )
    assert problem and said in problem and "Value error" not in problem
    assert rejected == {"since": "2026-13-45"}  # shown again in its field, to be corrected
    assert (browse.q, browse.category, browse.since) == ("graph", ["cs.LG"], None)


def test_a_write_limit_says_what_was_refused_and_how_long_to_wait_in_words() -> None:
    assert write_limited_text("corrections", 924, ZH) == "提交纠错太频繁了,请 16 分钟后再试。"
    assert write_limited_text("corrections", 924, EN) == "Too many error reports for now: try again in 16 min."
    assert write_limited_text("follow_writes", 30, ZH) == "修改关注太频繁了,请 30 秒后再试。"
    assert write_limited_text("imports", 86_000, EN) == "Too many library imports for now: try again in 24 h."


def follows_page(lang: str, follows: list[FollowOut], **context: Any) -> Any:
    return render(
        "follows.html", lang, user={"name": "ana"}, follows=follows, topics=load_catalogue(), venue_fields={},
        venue_tracks=[], default_threshold=0.7, threshold_range=(0.5, 0.95), **({"form": {}} | context),
    )  # fmt: skip


def test_the_follows_page_offers_a_form_for_every_kind_in_the_registry_s_order() -> None:
    page = follows_page("zh", [], form={"kind": "author", "author": "Ada Lovelace"})
    forms = page.xpath('//form[@action="/me/follows"][.//input[@name="kind"]]')
    assert [f.xpath('.//input[@name="kind"]/@value')[0] for f in forms] == list(FOLLOW_KINDS)
    # a refused form comes back filled in its kind's fieldset only
    assert [f.xpath('.//input[@name="author"]/@value') for f in forms if f.xpath('.//input[@name="author"]')] == [
        ["Ada Lovelace"]
    ]
    assert page.xpath('//input[@name="query"]/@value') == [""]


def test_the_seed_form_offers_id_patterns_not_ids_the_site_may_not_hold() -> None:
    for lang in ("zh", "en"):
        seeds = follows_page(lang, []).xpath('//textarea[@name="seeds"]')[0]
        assert "YYMM.NNNNN" in seeds.get("placeholder")
        assert not re.search(r"\d{4}\.\d{4,5}|10\.\d{4,}/\w", seeds.get("placeholder"))  # no real-looking id


@pytest.mark.parametrize(
    ("kind", "given", "zh"),
    [
        ("keyword", {"query": " "}, "请填写关键词表达式"),
        ("keyword", {"query": '(retrieval AND "LLM"'}, "关键词表达式有误:"),
        ("author", {}, "请填写作者姓名"),
        ("topic", {"topic_id": "astrology"}, "没有这个专题:astrology"),
        ("similar", {"seeds": ["x"] * 21}, "种子论文 21 篇,最多 20 篇"),
        ("similar", {}, "请至少填写一篇种子论文或一段描述"),
        ("venue", {}, "请填写会议或期刊,或选择一个领域"),
        ("venue", {"venue": "No Such Venue At All"}, "会议目录里没有「No Such Venue At All」"),
    ],
)
def test_a_follows_own_rules_are_said_in_both_languages(kind: str, given: dict[str, Any], zh: str) -> None:
    with pytest.raises(FollowRuleError) as refused:
        check_follow(kind, **({"query": None, "author": None, "topic_id": None} | given))
    rule, values = refused.value.rule, refused.value.values
    assert labels.follow_rule(ZH, rule, **values).startswith(zh)
    assert labels.follow_rule(EN, rule, "", **values)


# item 8: topic follows named by the topic, in the reader's language; a follow button on a topic's page


def topic_follow(name: str = "llm-reasoning") -> FollowOut:
    return FollowOut(
        id="f" * 32, user_id="u", kind="topic", name=name, topic_id="llm-reasoning", created_at=NOW,
        feed_url="/feeds/follows/ff.atom?key=k",
    )  # fmt: skip


@pytest.mark.parametrize(("lang", "name"), [("zh", "大模型推理"), ("en", "LLM reasoning")])
def test_a_topic_follow_shows_its_topics_name_once_not_its_id(lang: str, name: str) -> None:
    tree = follows_page(lang, [topic_follow()], created="llm-reasoning")
    row = tree.find_class("follow")[0]
    assert name in text(row) and "llm-reasoning" not in text(row)
    assert text(row).count(name) == 1  # not "llm-reasoning llm-reasoning"
    assert row.xpath('.//a[@href="/topics/llm-reasoning"]')
    assert name in text(tree.find_class("banner-ok")[0]) and "llm-reasoning" not in text(
        tree.find_class("banner-ok")[0]
    )
    named = text(follows_page(lang, [topic_follow("my reasoning papers")]).find_class("follow")[0])
    assert "my reasoning papers" in named and name in named  # a reader's own name kept, the topic beside it


def test_a_feed_item_and_an_atom_feed_name_the_topic_not_its_id() -> None:
    assert fmt.follow_name_label("llm-reasoning", "zh") == "大模型推理"
    assert fmt.follow_name_label("llm-reasoning", "en") == "LLM reasoning"
    assert fmt.follow_name_label("spectral graphs", "zh") == "spectral graphs"
    follow = Follow(
        id="f" * 32, user_id="u", kind="topic", name="llm-reasoning", topic_id="llm-reasoning", created_at=NOW
    )
    assert follow_title(follow) == topic_title("llm-reasoning") == "大模型推理 · LLM reasoning"
    assert follow_title(follow.model_copy(update={"name": "mine"})) == "mine"


def topic_page(lang: str = "zh", **context: Any) -> Any:
    topic = {"id": "llm-reasoning", "name": "LLM reasoning", "name_zh": "大模型推理"}
    listing = {"topic": topic, "total": 0, "hits": []}
    return render("topic.html", lang, listing=listing, page=1, pages=[1], **context)


def test_a_topics_page_has_a_follow_button_or_the_way_to_sign_in_for_one() -> None:
    signed_out = topic_page(user=None).get_element_by_id("topic-follow")
    assert signed_out.xpath(".//a/@href") == ["/login?next=/topics/llm-reasoning"]
    assert "登录后关注" in text(signed_out)
    signed_in = topic_page(user={"name": "ana"}, following=False).get_element_by_id("topic-follow")
    form = signed_in.xpath(".//form")[0]
    assert form.get("action") == "/me/follows" and form.get("method") == "post"
    fields = {i.get("name"): i.get("value") for i in form.xpath(".//input")}
    assert fields == {"csrf": "c", "kind": "topic", "topic_id": "llm-reasoning"}
    assert text(form) == "关注这个专题"
    following = topic_page("en", user={"name": "ana"}, following=True).get_element_by_id("topic-follow")
    assert "Following" in text(following) and not following.xpath(".//form")


# item 10: no English on Chinese pages, and one name for the AI summary


def test_chinese_pages_hold_no_english_labels() -> None:
    home = (HERE / "templates" / "home.html").read_text()
    assert (
        "YOUR RESEARCH" not in home
        and ZH.gettext("Your research, in sight")
        and EN.gettext("Your research, in sight") == "Your research, in sight"
    )
    paper = {
        "paper_id": "arxiv:2611.00001",
        "title": "T",
        "comments": "9 pages",
        "journal_ref": "JMLR 1",
        "reasons": [],
    }
    listing = {"topic": {"id": "x", "name": "X", "name_zh": "叉"}, "total": 1, "hits": [paper]}
    entry = text(render("topic.html", listing=listing, page=1, pages=[1], user=None).find_class("entry")[0])
    assert "备注 9 pages" in entry and "期刊引用 JMLR 1" in entry and "Comments" not in entry
    macros = templates.env.get_template("_macros.html").make_module({**gettext_functions(ZH), "lang": "zh", "fmt": fmt})
    pager = html.fromstring(str(macros.pager([1, 2], 1, "/")))  # type: ignore[attr-defined]
    assert pager.get("aria-label") == "分页"
    assert fmt.source_name("corpus", ZH) == "arXiv 列表语料(批量导入)" and fmt.source_name("arxiv", ZH) == "arXiv"
    assert fmt.source_name("papertrail", ZH) == "研踪(数据迁移)"  # migration 6's version records


def test_every_source_the_harvester_knows_has_a_name_for_readers() -> None:
    from services.harvester.settings import KNOWN_SOURCES

    # the home page's freshness line named the first pages' source by its code, arxiv_html
    for lang in (ZH, EN):
        unnamed = [s for s in KNOWN_SOURCES if fmt.source_name(s, lang) == s]
        assert not unnamed, unnamed
    assert fmt.source_name("arxiv_html", ZH) == "arXiv 首页(作者机构)"
    assert fmt.reason_text({"term": "diffusion", "field": "abstract"}, "zh") == "diffusion(摘要)"
    assert fmt.reason_text({"term": "diffusion", "field": "abstract"}, "en") == "diffusion (in the abstract)"


def test_an_imports_matches_say_how_they_were_matched_in_words() -> None:
    counts = {"resolved": 1, "added": 1, "ambiguous": 0, "unresolved": 0}
    job = {"state": "done", "filename": "my.bib", "cursor": 1, "total": 1, "counts": counts, "ambiguous": []}
    job |= {
        "unresolved": [],
        "resolved": [{"line": 3, "paper_id": "arxiv:2611.00001", "title": "T", "by": "title+author"}],
    }
    tree = render("import.html", user={"name": "ana"}, job=job)
    assert "按标题与第一作者" in text(tree) and "title+author" not in text(tree)


def test_the_token_hint_shows_its_command_as_code_not_backticks() -> None:
    for lang in ("zh", "en"):
        hint = render(
            "login.html",
            lang,
            user=None,
            next="/me/feed",
            request=SimpleNamespace(query_params={}, url=SimpleNamespace(path="/login")),
        ).find_class("token-login")[0]
        assert "`" not in text(hint) and hint.xpath(".//code")[0].text.startswith("papertrail users create ")
    assert not [m.id for m in zh_catalog() if "`" in str(m.id) + str(m.string)]


def test_the_ai_summary_has_one_chinese_name() -> None:
    assert not [m.id for m in zh_catalog() if "AI 总结" in str(m.string)]
    assert (
        ZH.gettext("AI summary") == "AI 导读"
        and "AI 导读" in ZH.gettext("New AI summaries")
        and "AI 导读" in ZH.gettext("No AI summary yet")
    )
    assert "AI 导读" in ZH.gettext(
        "AI summary being written · number %(place)s in the queue", place=3
    ) and "AI 导读" in ZH.gettext("No AI summary (it could not be written)")
