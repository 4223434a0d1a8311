"""Page wording in Chinese (the default, as on the seed site) and English. No I/O."""

from typing import Any

LANGUAGES = ("zh", "en")
DEFAULT_LANGUAGE = "zh"

# key: (zh, en). Placeholders use str.format names.
STRINGS: dict[str, tuple[str, str]] = {
    "site_name": ("研踪 PaperTrail", "PaperTrail 研踪"),
    "tagline": ("让下一篇重要论文,不再错过。", "Never miss the next paper that matters."),
    "skip": ("跳到正文", "Skip to content"),
    "nav_home": ("论文库", "Papers"),
    "nav_topics": ("专题", "Topics"),
    "nav_sources": ("信源状态", "Sources"),
    "nav_follows": ("我的关注", "My follows"),
    "nav_feed": ("我的动态", "My feed"),
    "nav_login": ("登录", "Sign in"),
    "nav_logout": ("退出", "Sign out"),
    "signed_in_as": ("已登录:{name}", "Signed in as {name}"),
    "lang_switch": ("English", "中文"),
    "zone_beijing": ("北京时间", "Beijing time"),
    "times_in": ("时间均为{zone}", "Times in {zone}"),
    # home
    "overview_title": ("全站更新概况", "What's new"),
    "new_papers": ("新增论文", "New papers"),
    "new_ai_related": ("其中 AI 相关", "AI-related among them"),
    "revisions": ("已有论文修订", "Revisions of held papers"),
    "new_summaries": ("新增 AI 导读", "New AI summaries"),
    "active_filter_summarized": ("仅新增 AI 导读", "new AI summaries only"),
    "source_scan": ("{source} 最近完成扫描:{time}", "{source} last completed scan: {time}"),
    "site_last_ingest": ("全站最近入库:{time}", "Last ingest: {time}"),
    "source_progress": ("各信源进度 →", "Source status →"),
    "freshness_title": ("统计口径与数据新鲜度", "What the numbers mean and how fresh they are"),
    "window_note": (
        "统计 {start} — {end}({zone}) · 点击数字查看对应论文;AI 相关包含在新增论文内。",
        "Window {start} — {end} ({zone}) · click a number for its papers; AI-related are counted within new papers.",
    ),
    "last_check": ("最近完成检查:{time}", "Last completed check: {time}"),
    "last_new_version": ("最近发现新增版本:{time}", "Last new version found: {time}"),
    "freshness_note": (
        "空检查不代表采集异常;新收录可能包含历史论文。AI 导读按新增版本计数。",
        "An empty check is not a failure; newly ingested papers may be old ones. AI summaries count new versions.",
    ),
    "sources_failing": ("部分采集异常", "Some sources are failing"),
    "sources_failing_link": ("部分信源异常,查看状态 →", "Some sources are failing, see their status →"),
    "never": ("暂无", "never"),
    "total_papers": ("已收录论文", "Papers held"),
    "total_ai_related": ("AI 相关", "AI-related"),
    "total_with_revisions": ("有修订", "With revisions"),
    "total_hf_picks": ("HF 社区发现", "HF community picks"),
    "browse_title": ("浏览论文库", "Browse papers"),
    "browse_note": (
        "时间范围跟随排序:版本更新、本站收录或首次发表。最新收录可能包含历史论文。",
        "The date range follows the sort: version update, ingest or first publication. "
        "Newly ingested papers may be old ones.",
    ),
    "search_placeholder": ("搜索标题、摘要、作者、机构…", "Search titles, abstracts, authors, institutions…"),
    "search_button": ("搜索", "Search"),
    "search_by": ("匹配方式", "Match by"),
    "search_words": ("关键词", "Words"),
    "search_hybrid": ("关键词 + 语义", "Words + meaning"),
    "search_meaning": ("语义", "Meaning"),
    "mode_hybrid": ("关键词与语义混合排序", "ranked by words and meaning"),
    "mode_semantic": ("按语义相近排序", "ranked by meaning"),
    "filter_category": ("分类", "Category"),
    "filter_ai": ("AI 相关", "AI-related"),
    "filter_status": ("状态", "Status"),
    "filter_source": ("信源", "Source"),
    "filter_since": ("起", "From"),
    "filter_until": ("止", "Until"),
    "filter_any": ("全部", "Any"),
    "filter_code": ("代码", "Code"),
    "yes": ("是", "Yes"),
    "no": ("否", "No"),
    "sort_label": ("排序", "Sort"),
    "sort_updated": ("版本更新", "Version update"),
    "sort_ingested": ("本站收录", "Ingested"),
    "sort_published": ("首次发表", "First published"),
    "found": ("找到 {total} 篇论文 · 按{sort}时间排序", "Found {total} papers · sorted by {sort} time"),
    "found_plain": ("找到 {total} 篇论文", "Found {total} papers"),
    "active_filter_revisions": ("仅有修订", "only revised"),
    "clear_filters": ("清除筛选", "Clear filters"),
    "prev": ("上一页", "Previous"),
    "next": ("下一页", "Next"),
    "no_papers": ("没有符合条件的论文。", "No papers match."),
    "bad_request": ("请求参数有误:{detail}", "Bad request: {detail}"),
    # card / paper
    "observed_first": ("首次观测 · 记录 #{seq}", "first observed · record #{seq}"),
    "observed_updated": ("有更新 · 记录 #{seq}", "updated · record #{seq}"),
    "observed_kind": ("{kind} · 记录 #{seq}", "{kind} · record #{seq}"),
    "and_more": ("等 {total} 位作者", "and {hidden} more"),
    "show_all_authors": ("显示全部 {total} 位作者", "Show all {total} authors"),
    "abstract": ("原文摘要", "Abstract"),
    "status_published": ("正式发表", "published"),
    "status_preprint": ("预印本", "preprint"),
    "community_pick": ("HF 社区发现 · {upvotes} 赞", "HF community pick · {upvotes} upvotes"),
    "institutions": ("机构", "Institutions"),
    "topic_hits": ("专题命中", "Topic hits"),
    "categories": ("分类", "Categories"),
    "ai_summary": ("AI 总结", "AI summary"),
    "summary_tldr": ("一句话", "TL;DR"),
    "summary_motivation": ("动机", "Motivation"),
    "summary_method": ("方法", "Method"),
    "summary_result": ("结果", "Results"),
    "summary_conclusion": ("结论", "Conclusion"),
    "summary_keywords": ("关键词", "Keywords"),
    "summary_pending": ("AI 导读尚未生成(排队中)。", "The AI summary is not written yet (pending)."),
    "summary_failed": ("AI 导读生成失败:{error}", "The AI summary failed: {error}"),
    "summary_by": ("模型 {model} · {time}", "model {model} · {time}"),
    "similar_papers": ("相似论文", "Similar papers"),
    "similar_score": ("相似度(0–1)", "Similarity (0–1)"),
    "similar_note": (
        "按标题与摘要的语义相似度排序,分数越高越相近。",
        "Closest in meaning of title and abstract first; a higher score is closer.",
    ),
    "similar_none": ("暂无相似论文。", "No similar papers."),
    "similar_pending": (
        "这篇论文的语义向量尚未生成,生成后这里会列出相似论文。",
        "This paper has no vector yet; similar papers appear here once it is embedded.",
    ),
    "similar_failed": (
        "这篇论文的标题与摘要无法生成语义向量,暂无相似论文。",
        "This paper's title and abstract cannot be embedded: no similar papers.",
    ),
    "history": ("版本历史", "Version history"),
    "history_record": ("记录", "Record"),
    "history_kind": ("类型", "Kind"),
    "history_source": ("信源", "Source"),
    "history_source_version": ("信源版本", "Source version"),
    "history_time": ("观测时间", "Observed"),
    "history_changed": ("变更字段", "Changed fields"),
    "kind_first_observed": ("首次观测", "first observed"),
    "kind_new_version": ("新版本", "new version"),
    "kind_published": ("正式发表", "published"),
    "kind_metadata_correction": ("元数据更正", "metadata correction"),
    "ids_links": ("标识与链接", "Ids and links"),
    # a paper's own resources, on cards and the paper page (Paper.links kinds)
    "link_code": ("代码", "Code"),
    "link_dataset": ("数据", "Data"),
    "link_model": ("模型", "Model"),
    "link_demo": ("演示", "Demo"),
    "link_project": ("项目主页", "Project page"),
    "comments": ("备注", "Comments"),
    "journal_ref": ("期刊引用", "Journal ref"),
    "times": ("时间", "Times"),
    "first_seen": ("本站收录:{time}", "Ingested: {time}"),
    "published_at": ("首次发表:{time}", "First published: {time}"),
    "version_updated_at": ("版本更新:{time}", "Version update: {time}"),
    "paper_not_found": ("没有这篇论文:{id}", "No such paper: {id}"),
    "paper_bad_id": (
        "不是论文标识:{id}。请用 arXiv 编号(2401.12345)、DOI(10.18653/v1/2024.acl-long.1)"
        "或 ACL Anthology 编号(2024.acl-long.1)。",
        "Not a paper id: {id}. Use an arXiv id (2401.12345), a DOI (10.18653/v1/2024.acl-long.1) "
        "or an ACL Anthology id (2024.acl-long.1).",
    ),
    # topics / authors / sources
    "topics_title": ("专题目录", "Topic catalogue"),
    "topic_subtopics": ("子方向", "Subtopics"),
    "topic_feed": ("订阅 Atom", "Atom feed"),
    "topic_papers": ("{total} 篇论文命中", "{total} papers hit"),
    "topic_not_found": ("没有这个专题:{id}", "No such topic: {id}"),
    "author_title": ("作者:{name}", "Author: {name}"),
    "author_names": ("署名:{names}", "Appears as: {names}"),
    "author_papers": ("{total} 篇论文", "{total} papers"),
    "author_bad_key": ("作者标识无效:{key}", "Not an author key: {key}"),
    "sources_title": ("各信源进度", "Source status"),
    "state_ok": ("正常", "ok"),
    "state_failing": ("采集异常", "failing"),
    "state_running": ("扫描中", "running"),
    "state_unknown": ("未知", "unknown"),
    "state_started": ("进行中", "running"),
    "state_finished": ("完成", "finished"),
    "state_failed": ("失败", "failed"),
    "last_completed_scan": ("最近完成扫描", "Last completed scan"),
    "last_new_record": ("最近入库", "Last new record"),
    "next_run": ("下次扫描", "Next run"),
    "last_error": ("最近错误", "Last error"),
    "recent_runs": ("最近运行", "Recent runs"),
    "run_started": ("开始", "Started"),
    "run_finished": ("结束", "Finished"),
    "run_state": ("状态", "State"),
    "run_window": ("窗口", "Window"),
    "run_pages": ("页", "Pages"),
    "run_records": ("记录", "Records"),
    "no_sources": ("还没有信源运行记录。", "No source has run yet."),
    # sign-in and per-user pages
    "login_title": ("登录", "Sign in"),
    "login_help": (
        "粘贴 `papertrail users create 名字` 打印的 API 令牌。令牌只保存在本浏览器的 HttpOnly Cookie 中。",
        "Paste the API token `papertrail users create NAME` printed. It is kept only in an HttpOnly cookie.",
    ),
    "login_token": ("API 令牌", "API token"),
    "login_button": ("登录", "Sign in"),
    "login_bad_token": ("令牌无效或已吊销。", "Unknown or revoked token."),
    "login_required": ("请先登录。", "Please sign in first."),
    "follows_title": ("我的关注", "My follows"),
    "follows_empty": ("还没有关注。", "No follows yet."),
    "follow_add": ("添加关注", "Add a follow"),
    "follow_kind": ("类型", "Kind"),
    "follow_kind_keyword": ("关键词", "Keyword"),
    "follow_kind_author": ("作者", "Author"),
    "follow_kind_topic": ("专题", "Topic"),
    "follow_name": ("名称", "Name"),
    "follow_query": ("关键词表达式", "Keyword expression"),
    "follow_query_help": (
        '如 retrieval AND ("language model" OR LLM) NOT survey',
        'e.g. retrieval AND ("language model" OR LLM) NOT survey',
    ),
    "follow_fields": ("匹配范围", "Match in"),
    "follow_fields_both": ("标题和摘要", "Title and abstract"),
    "follow_fields_title": ("仅标题", "Title only"),
    "follow_fields_abstract": ("仅摘要", "Abstract only"),
    "follow_author": ("作者姓名", "Author name"),
    "follow_topic": ("专题", "Topic"),
    "follow_categories": ("限定分类(空格分隔,可选)", "Only these categories (space-separated, optional)"),
    "follow_submit": ("关注", "Follow"),
    "follow_delete": ("取消关注", "Unfollow"),
    "follow_created": (
        "已添加关注「{name}」,匹配的论文会出现在动态中。",
        "Following “{name}”; matches appear in your feed.",
    ),
    "follow_deleted": ("已取消关注。", "Unfollowed."),
    "follow_error": ("无法添加关注:{detail}", "Cannot add the follow: {detail}"),
    "follow_feed": ("Atom 订阅", "Atom feed"),
    "follow_created_at": ("创建于 {time}", "created {time}"),
    "feed_title": ("我的动态", "My feed"),
    "feed_empty": (
        "暂无匹配的论文。新关注会回溯已收录的论文,稍后刷新即可。",
        "No matching papers yet. A new follow is backfilled from the papers held; reload shortly.",
    ),
    "feed_matched": ("命中「{follow}」 · {time}", "Matched “{follow}” · {time}"),
    "feed_reasons": ("命中原因", "Why"),
    "error_title": ("出错了", "Something went wrong"),
    "not_found": ("页面不存在。", "Page not found."),
    # error reports ("纠错")
    "correct_link": ("纠错", "Report an error"),
    "correct_title": ("纠错:{title}", "Report an error: {title}"),
    "correct_help": (
        "机构中文名、中文标题和 AI 导读由模型生成,难免出错。请说明哪里不对、应当是什么,运营人员会核对修正。",
        "Chinese institution names, Chinese titles and AI summaries are written by a model and can be wrong. "
        "Say what is wrong and what it should be; operators check and fix it.",
    ),
    "correct_field": ("哪一项有误", "What is wrong"),
    "correct_field_institutions": ("机构", "Institutions"),
    "correct_field_title_zh": ("中文标题", "Chinese title"),
    "correct_field_summary": ("AI 导读", "AI summary"),
    "correct_field_authors": ("作者", "Authors"),
    "correct_field_other": ("其他", "Something else"),
    "correct_message": ("问题与建议(必填,最多 2000 字)", "What is wrong and what it should be (required, ≤2000)"),
    "correct_contact": ("联系方式(选填,如邮箱)", "How to reach you (optional, e.g. e-mail)"),
    "correct_contact_note": ("联系方式仅运营人员可见。", "Only operators see your contact details."),
    "correct_submit": ("提交纠错", "Send report"),
    "correct_error": ("无法提交:{detail}", "Cannot send the report: {detail}"),
    "correct_too_long": ("表单内容超过 {limit} KB,请缩短后再提交", "the form is longer than {limit} KB; shorten it"),
    "correct_thanks": (
        "感谢纠错!我们已收到您的反馈,核对后会修正。",
        "Thank you! Your report was received; operators will check it and fix the paper.",
    ),
}


class Translator:
    """Looks up a page string in one language and fills in its placeholders."""

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LANGUAGES else DEFAULT_LANGUAGE
        self._column = LANGUAGES.index(self.lang)

    def has(self, key: str) -> bool:
        return key in STRINGS

    def __call__(self, key: str, /, **values: Any) -> str:
        text = STRINGS[key][self._column] if key in STRINGS else key
        return text.format(**values) if values else text


def pick_language(query_value: str | None, cookie_value: str | None) -> str:
    """?lang= wins (and is remembered by the caller), then the cookie, then Chinese."""
    for value in (query_value, cookie_value):
        if value in LANGUAGES:
            return value
    return DEFAULT_LANGUAGE
