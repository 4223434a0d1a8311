"""The pages' no-I/O parts: author cut, display-zone times, labels, browse parameters, the language pick,
and the paper template rendering a summarized paper built by the real document function."""

import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from lxml import html

from papertrail.domain.search_document import paper_document
from papertrail.domain.venues.claims import claims_from_comment
from papertrail.runtime.wording import Translator, pick_language
from schemas.events import PaperEnriched
from schemas.paper import Paper, PaperVersion
from schemas.summary import Summary
from services.query.web import format as fmt
from services.query.web.browse import api_query_to_page, parse_browse
from services.query.web.labels import link_kind
from services.query.web.render import gettext_functions, templates
from tests.support.catalogs import zh_catalog
from tests.support.library_papers import stored_papers
from tests.support.paths import SOURCES
from tests.support.rendering import page_request, paper_page, summarized_paper
from tests.support.sources import acl_records, raw_record

ZH, EN = Translator("zh"), Translator("en")


def people(count: int) -> list[dict[str, Any]]:
    return [{"name": f"Author {i}", "affiliations": [f"Univ {i}"] if i % 2 else []} for i in range(count)]


def test_author_line_cuts_to_eight_and_counts_the_rest() -> None:
    line = fmt.author_line(people(14), [])
    assert len(line.shown) == 8 and line.total == 14 and line.hidden == 6
    assert line.shown[1] == ("Author 1", "Univ 1") and line.shown[0] == ("Author 0", "")
    assert ZH.gettext("and %(hidden)s more", total=line.total, hidden=line.hidden) == "等 14 位作者"
    assert EN.gettext("and %(hidden)s more", total=line.total, hidden=line.hidden) == "and 6 more"
    assert fmt.author_line(people(14), [], None).hidden == 0
    assert fmt.author_line([], ["A", "B"]).shown == [("A", ""), ("B", "")]  # bare names when no detail


def test_times_are_shown_in_the_display_zone() -> None:
    moment = datetime(2026, 11, 14, 8, 12, tzinfo=UTC)
    assert fmt.local_time(moment, "Asia/Shanghai") == "2026-11-14 16:12"
    assert fmt.local_time(moment.replace(tzinfo=None), "Asia/Shanghai") == "2026-11-14 16:12"  # MongoDB: naive UTC
    assert fmt.local_time(int(moment.timestamp()), "Asia/Shanghai") == "2026-11-14 16:12"
    assert fmt.local_time("2026-11-14T08:12:00Z", "Europe/London") == "2026-11-14 08:12"
    assert fmt.local_time(None, "Asia/Shanghai") == "" and fmt.local_time("soon", "UTC") == ""
    assert fmt.zone_label("Asia/Shanghai", ZH) == "北京时间" and fmt.zone_label("UTC", ZH) == "UTC"


def test_labels() -> None:
    assert fmt.observation(1, ZH) == "首次观测 · 记录 #1" and fmt.observation(None, EN) == "first observed · record #1"
    assert fmt.observation(3, ZH) == "有更新 · 记录 #3"  # kind unknown (indexed before kinds were)
    assert fmt.observation(2, ZH, "new_version") == "新版本 · 记录 #2"
    assert fmt.observation(3, EN, "published") == "published · record #3"
    assert fmt.observation(1, ZH, "first_observed") == "首次观测 · 记录 #1"
    assert fmt.status_label("published", ZH) == "正式发表" and fmt.status_label("preprint", ZH) == "预印本"
    assert fmt.version_kind_label("new_version", ZH) == "新版本" and fmt.version_kind_label("odd", ZH) == "odd"
    assert fmt.source_name("acl") == "ACL Anthology" and fmt.source_name("other") == "other"
    reason = {"subtopic": "math reasoning", "subtopic_zh": "数学推理", "term": "reasoning", "field": "abstract"}
    assert fmt.reason_text(reason, "zh") == "数学推理: reasoning(摘要)"
    assert fmt.reason_text(reason, "en") == "math reasoning: reasoning (in the abstract)"
    assert fmt.reason_text({"term": "banach", "field": "title"}, "zh") == "banach(标题)"


def test_a_chinese_term_says_it_was_found_in_the_chinese_fields() -> None:
    # a Chinese term can only be found in the Chinese title and the AI summary's Chinese sections, which matching
    # reads as part of the title and the abstract (papertrail/domain/follows/compiled.py): "in the abstract" misled
    in_summary = {"term": "扩散模型加速", "field": "abstract"}
    assert fmt.reason_text(in_summary, "zh") == "扩散模型加速(AI 导读)"
    assert fmt.reason_text(in_summary, "en") == "扩散模型加速 (in the AI summary)"
    assert fmt.reason_text({"term": "推理", "field": "title"}, "zh") == "推理(中文标题)"
    assert fmt.reason_text({"term": "推理", "field": "title"}, "en") == "推理 (in the Chinese title)"


def test_an_author_reason_says_when_it_rests_on_an_initial() -> None:
    full = {"term": "Yinghui Li", "field": "authors"}
    initial = full | {"name_match": "initial"}
    assert (fmt.reason_text(full, "en"), fmt.reason_text(full, "zh")) == ("author Yinghui Li", "作者 Yinghui Li")
    assert fmt.reason_text(initial, "en") == "author Yinghui Li (initial only)"
    assert fmt.reason_text(initial, "zh") == "作者 Yinghui Li(仅首字母相同)"
    assert fmt.author_page_key("Li, Yinghui") == fmt.author_page_key("Yinghui Li") == "li yinghui"


def test_every_string_has_both_languages_with_the_same_placeholders() -> None:
    for message in zh_catalog():
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        translated = message.string if isinstance(message.string, tuple) else (message.string,)
        names = [set(re.findall(r"%\((\w+)\)s", " ".join(map(str, s)))) for s in (translated, ids)]
        assert all(translated) and names[0] <= names[1] | {"total"} and names[1] <= names[0] | {"hidden"}, message.id


def test_language_pick() -> None:
    assert pick_language(None, None) == "zh"
    assert pick_language("en", None) == "en" and pick_language(None, "en") == "en"
    assert pick_language("zh", "en") == "zh" and pick_language("fr", "xx") == "zh"


def test_page_numbers_and_links() -> None:
    assert fmt.page_numbers(1, 46, 20) == [1, 2, 3]
    assert fmt.page_numbers(10, 1000, 20) == [1, None, 8, 9, 10, 11, 12, None, 50]
    assert fmt.page_numbers(1, 0, 20) == [1]
    links = dict(fmt.paper_links({"ids": {"arxiv": "1501.00001", "dois": ["10.1/x"], "acl": "2024.acl-long.1"}}))
    assert links["abs"] == "https://arxiv.org/abs/1501.00001" and links["doi:10.1/x"] == "https://doi.org/10.1/x"
    assert links["anthology"] == "https://aclanthology.org/2024.acl-long.1"


def test_browse_parameters_are_checked_and_kept_in_links() -> None:
    browse, problem, _ = parse_browse([("q", "graph"), ("category", "cs.LG"), ("category", "cs.IT"), ("status", "")])
    assert problem is None and browse.category == ["cs.LG", "cs.IT"] and browse.status is None
    assert browse.url(sort="published") == "/?q=graph&category=cs.LG&category=cs.IT&sort=published"
    assert browse.url(page=3).endswith("&page=3") and "page" not in browse.url(sort="ingested")
    _, problem, rejected = parse_browse([("sort", "random"), ("page", "0")], EN)
    assert problem and "Sort" in problem and "Page" in problem and rejected == {"sort": "random", "page": "0"}
    link = api_query_to_page("/api/papers?sort=ingested&ai_related=true")
    assert link == "/?sort=ingested&ai_related=true#papers" and api_query_to_page(None) is None


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_paper_template_shows_summary_institutions_and_cut_authors(lang: str) -> None:
    t = Translator(lang)
    page = templates.get_template("paper.html").render(
        **gettext_functions(t),
        lang=lang, other_lang_url="/", zone="Asia/Shanghai", zone_label=fmt.zone_label("Asia/Shanghai", t),
        when=lambda v, p="%Y-%m-%d %H:%M": fmt.local_time(v, "Asia/Shanghai", p), user=None, request=page_request(),
        paper=summarized_paper(), topic_hits=[],
    )  # fmt: skip
    tree = html.fromstring(page)
    text = " ".join(tree.text_content().split())
    institutions = " ".join(tree.find_class("insts")[0].text_content().split())
    # the model's names, as no author has a ROR-matched institution: the Chinese in brackets for a Chinese reader
    assert "跨域干扰与恢复的局部微扰理论" in text
    shown = "Tianjin University（天津大学）" if lang == "zh" else "Tianjin University"
    assert shown in institutions and (lang == "zh" or "天津大学" not in institutions)
    assert "提出局部微扰理论。" in text and "二阶损伤项分析。" in text
    first_line = " ".join(tree.find_class("authors")[0].text_content().split())
    assert "Person 7" in first_line and "Person 8" not in first_line
    assert ("等 12 位作者" if lang == "zh" else "and 4 more") in first_line
    assert "Person 11" in tree.find_class("all-authors")[0].text_content()  # the way to see all of them
    assert "2026-11-14 16:00" in text  # observed time in Beijing time


@pytest.mark.parametrize(
    ("lang", "written_from", "current", "expected"),
    [
        ("zh", "v2", "v2", ["由 deepseek-chat 于 2026-11-14 根据 v2 生成"]),
        ("en", "v2", "v2", ["Written by deepseek-chat on 2026-11-14 from v2"]),
        ("zh", None, "v2", ["由 deepseek-chat 于 2026-11-14 生成"]),  # written before versions were recorded
        (
            "zh",
            "v1",
            "v2",
            ["由 deepseek-chat 于 2026-11-14 根据 v1 生成", "这是 v1 的导读:论文已更新到 v2,新版本的导读尚未生成。"],
        ),
        (
            "en",
            "v1",
            "v3",
            [
                "Written by deepseek-chat on 2026-11-14 from v1",
                "This summary describes v1: the paper is now at v3, whose summary is not written yet.",
            ],
        ),
    ],
)
def test_the_paper_page_says_who_wrote_the_summary_when_and_from_which_version(
    lang: str, written_from: str | None, current: str, expected: list[str]
) -> None:
    paper = summarized_paper()
    paper["summary"]["paper_version"] = written_from
    paper["paper"]["current_version"] = current
    summary = paper_page(lang, paper).get_element_by_id("summary")
    notes = [p.text_content() for p in summary.xpath('.//p[contains(@class, "summary-")]')]
    assert notes == expected


def test_home_template_shows_the_failing_banner_and_links_each_number() -> None:
    from services.query.catalogue.reads.overview import Figure, Overview, SourceState
    from services.query.catalogue.reads.search import PaperListing

    now = datetime(2026, 11, 14, 9, 7, tzinfo=UTC)
    figure = Figure(value=1234, query="/api/papers?ai_related=true")
    overview = Overview(
        window_start=now, window_end=now, display_timezone="Asia/Shanghai", new_papers=figure,
        new_ai_related=figure, revisions=figure, new_summaries=Figure(value=100), total_papers=figure,
        total_ai_related=figure, total_with_revisions=figure, total_hf_picks=figure,
        sources=[SourceState(source="acl", state="failing", last_error="HTTP 503")], any_source_failing=True,
    )  # fmt: skip
    t = Translator("zh")
    page = templates.get_template("home.html").render(
        **gettext_functions(t),
        lang="zh", other_lang_url="/", zone_label="北京时间", user=None, request=page_request(), overview=overview,
        when=lambda v, p="%Y-%m-%d %H:%M": fmt.local_time(v, "Asia/Shanghai", p),
        links={"new_ai_related": "/?ai_related=true#papers", "total_papers": "/#papers"}, browse=PaperListing(),
        sorts=("updated", "ingested", "published"), results={"total": 0, "hits": [], "facets": {}}, problem=None,
        pages=[1],
    )  # fmt: skip
    tree = html.fromstring(page)
    assert "部分采集异常" in tree.find_class("banner-warn")[0].text_content()
    assert tree.get_element_by_id("figure-new_ai_related").find("a").get("href") == "/?ai_related=true#papers"
    assert "+1,234" in tree.get_element_by_id("figure-new_papers").text_content()
    assert "ACL Anthology 最近完成扫描:暂无" in " ".join(tree.text_content().split())
    assert "找到 0 篇论文" in tree.get_element_by_id("found").text_content()


def test_a_document_carries_the_latest_record_kind_and_when_a_usable_summary_was_written() -> None:
    document = summarized_paper()
    assert document["version_kind"] == "first_observed"
    assert document["summarized_ts"] == int(datetime(2026, 11, 14, 8, 0, tzinfo=UTC).timestamp())
    paper = Paper.model_validate({**document["paper"], "authors": []})
    version = PaperVersion(
        paper_id=paper.id, seq=2, kind="new_version", source="arxiv", source_record_id="2611.00001",
        source_version="v2", observed_at=datetime(2026, 11, 20, tzinfo=UTC), content_hash="y",
    )  # fmt: skip
    pending = Summary(status="pending", error="no model configured", generated_at=datetime(2026, 11, 20, tzinfo=UTC))
    later = paper_document(PaperEnriched(kind="revised", paper=paper, version=version, summary=pending), {})
    assert later["version_kind"] == "new_version" and later["version_seq"] == 2
    assert later["summarized_ts"] is None  # a pending summary is not a new AI summary


@pytest.mark.parametrize(
    ("first_seen", "published_on", "counted_from"),
    [
        ("2026-11-20T08:00:00+00:00", "2026-11-19", "2026-11-20T08:00:00+00:00"),  # first seen with it
        ("2026-10-01T08:00:00+00:00", "2026-11-19", "2026-11-19T00:00:00+00:00"),  # the publisher's day came later
        ("2026-11-20T08:00:00+00:00", None, "2026-11-20T08:00:00+00:00"),
    ],
)
def test_a_community_summary_counts_as_a_new_ai_summary_from_when_it_was_shown(
    first_seen: str, published_on: str | None, counted_from: str
) -> None:
    """The 导读 a card shows from another system (no time of writing) counts among the new AI summaries."""
    document = summarized_paper()
    paper = Paper.model_validate({**document["paper"], "authors": [], "first_seen": first_seen})
    version = PaperVersion(
        paper_id=paper.id, seq=1, kind="first_observed", source="arxiv", source_record_id="2611.00001",
        observed_at=paper.first_seen, content_hash="x",
    )  # fmt: skip
    shown = Summary(
        status="ok", model="deepseek-chat", publisher="daily-arXiv-ai-enhanced", published_on=published_on,
        tldr_zh="提出局部微扰理论。", error="no model configured",
    )  # fmt: skip
    held = paper_document(PaperEnriched(kind="new", paper=paper, version=version, summary=shown), {})
    assert held["summarized_ts"] == int(datetime.fromisoformat(counted_from).timestamp())


def test_resource_links_in_card_order_with_labels_in_both_languages() -> None:
    paper = {
        "links": {
            "abs": "https://arxiv.org/abs/2401.14038",
            "project": "https://aigeeksgroup.github.io/Nav-R1/",
            "code": "https://github.com/Regan-Zhang/HaDis",
            "dataset": "https://huggingface.co/datasets/yuweiyin/IntentGrasp",
            "demo": "javascript:alert(1)",  # a source field as it came: never a link
            "video": "2023.acl-long.2.mp4",
        }
    }
    assert fmt.resource_links(paper) == [
        ("code", "https://github.com/Regan-Zhang/HaDis"),
        ("dataset", "https://huggingface.co/datasets/yuweiyin/IntentGrasp"),
        ("project", "https://aigeeksgroup.github.io/Nav-R1/"),
    ]
    assert fmt.resource_links({}) == [] and fmt.resource_links({"links": None}) == []
    labels = {kind: (link_kind(ZH, kind, ""), link_kind(EN, kind, "")) for kind in fmt.RESOURCE_KINDS}
    assert labels["code"] == ("代码", "Code") and labels["dataset"] == ("数据", "Data")
    assert labels["model"] == ("模型", "Model") and labels["project"] == ("项目主页", "Project page")
    assert fmt.link_label("code", ZH) == "代码" and fmt.link_label("abs", ZH) == "arXiv abs"
    assert fmt.link_label("code") == "code"  # no translator: the key as before


@pytest.mark.parametrize(("lang", "label"), [("zh", "代码"), ("en", "Code")])
def test_card_and_paper_page_show_the_code_link(lang: str, label: str) -> None:
    document = summarized_paper()
    document["links"] = document["paper"]["links"] = {"code": "https://github.com/Regan-Zhang/HaDis"}
    t = Translator(lang)
    one_card = templates.env.from_string('{% import "_macros.html" as m with context %}{{ m.card(paper) }}')
    card = html.fromstring(one_card.render(**gettext_functions(t), lang=lang, paper=document))
    link = card.xpath('.//p[@class="res-links"]/a')[0]
    assert (link.text_content(), link.get("href")) == (label, "https://github.com/Regan-Zhang/HaDis")
    page = templates.get_template("paper.html").render(
        **gettext_functions(t),
        lang=lang, other_lang_url="/", zone="Asia/Shanghai", zone_label=fmt.zone_label("Asia/Shanghai", t),
        when=lambda v, p="%Y-%m-%d %H:%M": fmt.local_time(v, "Asia/Shanghai", p), user=None, request=page_request(),
        paper=document, topic_hits=[],
    )  # fmt: skip
    tree = html.fromstring(page)
    assert [a.text_content() for a in tree.xpath('//p[@class="res-links"]/a')] == [label]
    assert label in [a.text_content() for a in tree.xpath('//ul[@class="links"]//a')]


def test_a_similar_follows_reason_names_the_closest_seed_or_the_description() -> None:
    seed = {"term": "SafeConv: safe convolutions", "field": "similar", "seed_id": "arxiv:2605.01234", "score": 0.7412}
    assert fmt.reason_text(seed, "en") == 'similar to "SafeConv: safe convolutions" (0.74)'
    assert fmt.reason_text(seed, "zh") == "与「SafeConv: safe convolutions」相似(0.74)"
    assert fmt.reason_text({"term": "description", "field": "similar", "score": 0.705}, "en") == (
        "similar to your description (0.70)"
    )


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        # 2605.14068 of the corpus (tests/fixtures/corpus)
        (
            r"over \texttt{Qwen-3-VL-8B-Thinking} from \textbf{2.8\%} to",
            "over <code>Qwen-3-VL-8B-Thinking</code> from <b>2.8%</b> to",
        ),
        # 2605.22843: text inside a command is escaped like any other
        (r"annotated \texttt{<question, SQL>} pairs", "annotated <code>&lt;question, SQL&gt;</code> pairs"),
        # 2604.27536
        (
            r"(\textsc{Veroic}), a \textit{partially observable}",
            '(<span class="smallcaps">Veroic</span>), a <i>partially observable</i>',
        ),
        # 2605.02989, 2604.28186
        (r"of {\em Cover and Thomas's} (\emph{e.g.}, strong", "of <i>Cover and Thomas&#39;s</i> (<i>e.g.</i>, strong"),
        # 2604.27374, 2605.01120: `\$` alone in its element, so KaTeX pairs no `$` with it
        (r"Q\&A at less than \$30", 'Q&amp;A at less than <span class="tex-dollar">$</span>30'),
        # 2605.05833
        (
            r"available \href{https://github.com/AlanYu04/SemBid-KDD2026}{\textcolor{blue}{here}}.",
            'available <a href="https://github.com/AlanYu04/SemBid-KDD2026" rel="noopener nofollow">here</a>.',
        ),
        # 2605.01120: a formula as written, for KaTeX
        (r"number $\textbf{Z}(m, n, s, t)$ is", r"number $\textbf{Z}(m, n, s, t)$ is"),
        (r"a $x < y$ and \(a \& b\)", r"a $x &lt; y$ and \(a \&amp; b\)"),
    ],
)
def test_abstract_markup_is_shown_as_safe_html(source: str, shown: str) -> None:
    assert str(fmt.tex_html(source)) == shown


@pytest.mark.parametrize(
    "source",
    [
        r"\texttt{<script>alert(1)</script>} and \textbf{<img src=x onerror=alert(1)>}",
        r"\href{javascript:alert(1)}{click} \url{javascript:alert(2)}",
        r"\href{https://example.org/\" onmouseover=\"alert(1)}{x} <b>raw</b> & \emph{<i>}",
        r"{\bf <svg onload=alert(1)>} \textsc{</span><script>}",
    ],
)
def test_abstract_markup_never_lets_html_or_scripts_through(source: str) -> None:
    tree = html.fromstring(f"<div>{fmt.tex_html(source)}</div>")
    assert not tree.xpath("//script|//img|//svg|//*[@onerror or @onload or @onmouseover]")
    assert all(a.get("href", "").startswith("https://") for a in tree.iter("a"))
    assert {element.tag for element in tree.iter()} <= {"div", "b", "i", "code", "span", "a"}


def test_card_and_paper_page_show_the_abstract_as_read() -> None:
    # 2605.14068 of the corpus
    written = r"improves over \texttt{Qwen-3-VL-8B-Thinking} from \textbf{2.8\%} to \textbf{33.3\%} accuracy"
    paper = summarized_paper()
    paper["abstract"] = paper["paper"]["abstract"] = written
    t = Translator("zh")
    page = templates.get_template("paper.html").render(
        **gettext_functions(t),
        lang="zh", other_lang_url="/", zone="Asia/Shanghai", zone_label="北京时间", user=None,
        request=page_request(),
        when=lambda v, p="%Y-%m-%d %H:%M": fmt.local_time(v, "Asia/Shanghai", p), paper=paper, topic_hits=[],
    )  # fmt: skip
    abstract = html.fromstring(page).find_class("abstract-full")[0].find_class("tex")[0]
    assert (
        " ".join(abstract.text_content().split()) == "improves over Qwen-3-VL-8B-Thinking from 2.8% to 33.3% accuracy"
    )
    assert [c.text for c in abstract.iter("code")] == ["Qwen-3-VL-8B-Thinking"]
    assert [b.text for b in abstract.iter("b")] == ["2.8%", "33.3%"]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_paper_published_at_a_catalogue_venue_shows_it_with_its_rank_and_where_it_comes_from(lang: str) -> None:
    """A PMLR paper has no claim of its own: its card says where its published record puts it. A claim of its own
    for the same edition is not said twice, and says the proceedings too: the published record is the evidence."""
    t = Translator(lang)
    published = {"status": "published", "venue": "ICML 2025", "year": 2025, "venue_claims": []}
    (line,) = fmt.venue_lines(published, t)
    assert (line.text, line.source, line.accepted) == ("ICML 2025 · CCF-A", t.gettext("proceedings"), True)
    assert line.source == ("会议论文集" if lang == "zh" else "proceedings")
    (claimed,) = claims_from_comment("Accepted at ICML 2025 (Spotlight)")
    own = fmt.venue_lines(published | {"venue_claims": [claimed.model_dump(mode="json")]}, t)
    spotlight = t.gettext("Spotlight")
    assert [(x.text, x.source) for x in own] == [(f"ICML 2025 · CCF-A · {spotlight}", t.gettext("proceedings"))]
    preprint = {"status": "preprint", "venue": None, "venue_claims": [claimed.model_dump(mode="json")]}
    assert [x.source for x in fmt.venue_lines(preprint, t)] == [
        t.gettext("stated by the authors")
    ]  # the authors' word only
    assert fmt.venue_lines({"status": "preprint", "venue": None, "venue_claims": []}, t) == []


def test_a_paper_published_at_a_workshop_shows_it_by_name_without_the_hosts_rank() -> None:
    """An OpenReview workshop's accepted paper (NeurIPS.cc/2025/Workshop/RegML, a poster) is NeurIPS 2025's workshop
    track: the line names the edition, the workshop and the presentation without NeurIPS' CCF-A, as the comment's
    "Accepted to the Workshop on … at NeurIPS 2025" does, and as the ccf_rank filter, which does not find it, reads
    it. A main-track decision keeps the rank and says its presentation."""
    t = Translator("en")
    published = {"status": "published", "venue": "NeurIPS 2025 Workshop on RegML (Poster)", "year": 2025}
    (line,) = fmt.venue_lines(published | {"venue_claims": []}, t)
    assert (line.text, line.source) == ("NeurIPS 2025 · Workshop on RegML · Poster", "proceedings")
    (main,) = fmt.venue_lines({"status": "published", "venue": "ICLR 2025 (Oral)", "year": 2025, "venue_claims": []}, t)
    assert main.text == "ICLR 2025 · CCF-A · Oral"


def test_an_anthology_paper_merged_with_its_preprint_says_its_proceedings_not_its_authors() -> None:
    """The preprint's comment said "Accepted to ACL 2024"; the ACL record (2024.acl-long.10 as recorded, before the
    Anthology gave it a DOI) joined it: the venue line says 会议论文集, on the page and on the card."""
    acl = next(r for r in acl_records() if r.record_id == "2024.acl-long.10")
    title, authors = (
        "CSCD-NS: a Chinese Spelling Check Dataset for Native Speakers",
        ["Yong Hu", "Fandong Meng", "Jie Zhou"],
    )
    line = {"id": "2211.08788", "categories": ["cs.CL"], "authors": authors, "title": title, "summary": "Preprint."}
    line["comment"] = "Accepted to ACL 2024 main conference"  # the preprint written from the ACL record's title
    preprint = raw_record("corpus", "2211.08788", "corpus_json", json.dumps(line))
    [paper] = stored_papers([preprint, acl])
    assert paper.ids.acl == "2024.acl-long.10" and [c.source for c in paper.venue_claims] == ["comment"]
    t = Translator("zh")
    version = PaperVersion(
        paper_id=paper.id, seq=2, kind="published", source="acl", source_record_id="2024.acl-long.10",
        observed_at=paper.updated_at, content_hash="x",
    )  # fmt: skip
    card = paper_document(
        PaperEnriched(kind="published", paper=paper, version=version, summary=Summary(status="pending")), {}
    )
    for shown in (paper.model_dump(mode="json"), card):
        assert [(x.text, x.source) for x in fmt.venue_lines(shown, t)] == [("ACL 2024 · CCF-A", "会议论文集")]


def test_a_findings_paper_merged_with_its_preprint_says_one_line_its_proceedings() -> None:
    """2024.findings-eacl.1 (Chem-FINESE) joined by its arXiv preprint, whose authors said "Accepted by Findings of
    the Association for Computational Linguistics: EACL 2024": one line, EACL's findings, from the proceedings."""
    [acl] = acl_records(SOURCES / "acl/2024.findings-eacl-1.xml")
    held = stored_papers([acl])[0]
    line = {"id": "2401.10189", "categories": ["cs.CL"], "title": held.title, "summary": "Preprint."}
    line |= {"authors": [a.name for a in held.authors], "comment": "Accepted by Findings of the Association for "
             "Computational Linguistics: EACL 2024"}  # fmt: skip
    [paper] = stored_papers([raw_record("corpus", "2401.10189", "corpus_json", json.dumps(line)), acl])
    assert (paper.id, paper.venue) == ("arxiv:2401.10189", "Findings of EACL 2024")
    t = Translator("zh")
    findings = t.gettext("Findings")
    assert [(x.text, x.source) for x in fmt.venue_lines(paper.model_dump(mode="json"), t)] == [
        (f"EACL 2024 · {findings}", "会议论文集")
    ]
    # a comment naming the main conference is the authors' word, not the proceedings' (they print Findings)
    (main,) = claims_from_comment("Accepted to EACL 2024")
    shown = paper.model_dump(mode="json") | {"venue_claims": [main.model_dump(mode="json")]}
    assert [x.source for x in fmt.venue_lines(shown, t)] == ["会议论文集", "作者注明"]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_journal_papers_venue_line_says_the_journal_its_rank_and_journal(lang: str) -> None:
    """arXiv 2605.00474's comment (May 2026 corpus): "Accepted to IEEE Transactions on Pattern Analysis and Machine
    Intelligence (TPAMI), 2026": the CCF list's TPAMI, CCF-A, a journal; never a conference's main track."""
    from tests.support.sources import corpus_comments

    t = Translator(lang)
    claims = [c.model_dump(mode="json") for c in claims_from_comment(corpus_comments()["2605.00474"])]
    lines = fmt.venue_lines({"status": "preprint", "venue": None, "venue_claims": claims}, t)
    assert [(x.text, x.source) for x in lines] == [
        (f"TPAMI 2026 · CCF-A · {t.gettext('Journal')}", t.gettext("stated by the authors"))
    ]


@pytest.mark.parametrize(
    ("lang", "shown", "hidden"), [("zh", "提出局部微扰理论。", "A theory."), ("en", "A theory.", "提出")]
)
def test_a_feed_entry_shows_its_papers_ai_summary_in_the_readers_language(lang: str, shown: str, hidden: str) -> None:
    t = Translator(lang)
    paper = {"paper_id": "arxiv:2611.00001", "title": "A Local Perturbation Theory", "authors": ["Ana"]}
    summarized = paper | {"tldr_zh": "提出局部微扰理论。", "tldr_en": "A theory."}
    matched = {"follow_id": "f1", "follow_name": "perturbation", "matched_at": datetime(2026, 11, 14, tzinfo=UTC)}
    items = [{"paper_id": p["paper_id"], **matched, "matches": [matched], "paper": p} for p in (summarized, paper)]
    page = templates.get_template("feed.html").render(
        **gettext_functions(t),
        lang=lang, other_lang_url="/", zone_label="", user={"name": "ana"}, request=page_request("/me/feed"),
        when=lambda v, p="%Y-%m-%d %H:%M": fmt.local_time(v, "Asia/Shanghai", p), fmt=fmt, feed=items,
        page={"sort": "newest", "total": 2, "new": 0, "backfilled": 0}, chosen="newest", marks={}, more=None,
        window_days=14, following=None, continued=False,
    )  # fmt: skip
    entries = html.fromstring(page).find_class("entry")
    summaries = [[" ".join(p.text_content().split()) for p in e.find_class("tldr")] for e in entries]
    assert summaries == [[f"{t.gettext('AI summary')} {shown}"], []]
    assert hidden not in entries[0].text_content()


def test_the_paper_page_links_where_the_paper_is_read_at_its_top() -> None:
    tree = paper_page("zh", summarized_paper())
    read = tree.find_class("read-links")[0]
    assert [(a.text_content(), a.get("href")) for a in read.iter("a")] == [
        ("arXiv abs", "https://arxiv.org/abs/2611.00001"),
        ("PDF", "https://arxiv.org/pdf/2611.00001"),
    ]
    # above the AI summary, so a reader need not scroll past it to open the paper
    assert read in tree.xpath('//*[@id="summary"]/preceding::p')


@pytest.mark.parametrize(("lang", "tldr_en", "heading"), [
    ("en", None, "AI summary (in Chinese)"),  # a community summary: Chinese sections only
    ("en", "We propose a theory.", "AI summary"),
    ("zh", None, "AI 导读"),
])  # fmt: skip
def test_an_english_reader_is_told_the_summary_is_in_chinese(lang: str, tldr_en: str | None, heading: str) -> None:
    paper = summarized_paper()
    paper["summary"]["tldr_en"] = tldr_en
    summary = paper_page(lang, paper).get_element_by_id("summary")
    assert " ".join(summary.find("h2").text_content().split()) == heading
