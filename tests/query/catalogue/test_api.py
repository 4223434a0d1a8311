"""The query API over a real pipeline: search and filters, paper history, authors, overview, sources,
users and follows with token isolation, feed and Atom feeds, and bad input answered with a 4xx."""

from collections import Counter
from typing import Any

import httpx
import pytest
from lxml import etree

from papertrail.domain.names import display_name_key
from schemas.paper import Paper
from tests.support.pipelines import Pipeline
from tests.support.query import ArxivPageSite
from tests.support.query_api import RECORDS, api_get, bearer, expected_topic_hits
from tests.support.services import create_user
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def api(arxiv_page_site: ArxivPageSite) -> tuple[Pipeline, dict[str, str]]:
    """The shared pipeline over the recorded arXiv page, and this module's readers (ana follows "kernel")."""
    return arxiv_page_site.pipeline, arxiv_page_site.readers["api"]


def test_category_filter_and_facets_agree_with_the_source_data(api: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = api
    expected = Counter(c for r in RECORDS for c in r.categories)
    result = api_get(pipeline, "/api/papers", category="cs.LG", size=100)
    assert result["total"] == expected["cs.LG"]
    assert all("cs.LG" in hit["categories"] for hit in result["hits"])
    facets = api_get(pipeline, "/api/papers", size=1)["facets"]["categories"]
    assert facets["cs.LG"] == expected["cs.LG"] and facets["cs.IT"] == expected["cs.IT"]
    two = api_get(pipeline, "/api/papers", category=["cs.LG", "cs.IT"], size=1)["total"]
    assert two == sum(1 for r in RECORDS if {"cs.LG", "cs.IT"} & set(r.categories))


def test_every_hit_has_the_documented_shape(api: tuple[Pipeline, dict[str, str]]) -> None:
    """Hits are passed through from the index without the response model: each still carries every documented
    field (a paper with no topic hit yet has topic_ids []), and the whole answer validates against the model."""
    from services.query.api.routes.papers import PaperHit, PaperSearchResponse

    pipeline, _ = api
    result = api_get(pipeline, "/api/papers", size=100)
    PaperSearchResponse.model_validate(result)
    assert result["hits"] and all(set(hit) == set(PaperHit.model_fields) for hit in result["hits"])
    assert any(hit["topic_ids"] == [] for hit in result["hits"])


def test_sorts_order_by_their_time(api: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = api
    hits = api_get(pipeline, "/api/papers", sort="published", size=100)["hits"]
    published = [h["published_ts"] for h in hits]
    assert published == sorted(published, reverse=True)
    newest = max(r.first_published[0] for r in RECORDS if r.first_published)
    assert published[0] == int(newest.timestamp())


def test_paper_detail_has_ids_history_and_summary_status(api: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = api
    record = RECORDS[0]
    detail = api_get(pipeline, f"/api/papers/arxiv:{record.record_id}")
    assert detail["paper"]["ids"]["arxiv"] == record.record_id
    assert detail["paper"]["ids"]["dois"] == record.ids.dois
    # the public paper, not the normalizer's storage fields (fingerprints, pending version records, write ids)
    assert set(detail["paper"]) <= set(Paper.model_fields), set(detail["paper"]) - set(Paper.model_fields)
    assert [(h["seq"], h["kind"], h["source"]) for h in detail["history"]] == [(1, "first_observed", "arxiv")]
    assert detail["changes"] == []  # one version: nothing changed yet
    assert detail["summary"]["status"] == "pending"
    missing = httpx.get(pipeline.url("query", "/api/papers/arxiv:0000.00000"), timeout=5)
    assert missing.status_code == 404 and "arxiv:0000.00000" in missing.text


def test_author_page_lists_every_paper_of_the_author(api: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = api
    name = RECORDS[0].authors[0].name  # Guohui Song
    key = display_name_key(name)
    expected = {f"arxiv:{r.record_id}" for r in RECORDS if key in {display_name_key(a.name) for a in r.authors}}
    author = api_get(pipeline, f"/api/authors/{key}")
    assert author["key"] == "song guohui" and {h["paper_id"] for h in author["hits"]} == expected
    assert author["names"] == [name] and author["candidates"] == [] and not author["initials_only"]


def test_an_old_initial_key_answers_as_the_one_name_or_lists_the_names(api: tuple[Pipeline, dict[str, str]]) -> None:
    """Keys were "family initial" before full names: such a key of one name answers as that name's page; one that
    stands for several (Hui Zhang and Haizhang Zhang on the recorded page were one author "zhang h") lists them."""
    pipeline, _ = api
    assert api_get(pipeline, "/api/authors/song g")["key"] == "song guohui"
    shared = api_get(pipeline, "/api/authors/zhang h")
    assert shared["key"] == "zhang h" and shared["total"] == 0 and shared["initials_only"]
    papers = Counter(display_name_key(a.name) for r in RECORDS for a in r.authors if a.key == "zhang h")
    names = {"zhang hui": "Hui Zhang", "zhang haizhang": "Haizhang Zhang"}
    assert set(papers) == set(names)
    expected = [{"key": k, "name": names[k], "papers": papers[k]} for k in sorted(names, key=lambda k: (-papers[k], k))]
    assert shared["candidates"] == expected
    # the search filter takes either key: an initial key still finds every author it may stand for
    either = api_get(pipeline, "/api/papers", author="zhang h", size=100)["total"]
    assert either == sum(1 for r in RECORDS if any(a.key == "zhang h" for a in r.authors)) >= 1


def test_overview_counts_the_window_and_source_freshness(api: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = api
    overview = wait_until(
        lambda: (o := api_get(pipeline, "/api/overview")) and o["sources"] and o,
        timeout=30,
        what="a source in the overview",
    )
    assert overview["new_papers"]["value"] == len(RECORDS)
    ai = sum(
        1
        for r in RECORDS
        if {"cs.AI", "cs.CL", "cs.CV", "cs.LG", "cs.MA", "cs.NE", "cs.IR", "cs.RO", "stat.ML"} & set(r.categories)
    )
    assert overview["new_ai_related"]["value"] == ai == overview["total_ai_related"]["value"]
    assert overview["total_papers"]["value"] == len(RECORDS)
    arxiv = next(s for s in overview["sources"] if s["source"] == "arxiv")
    assert arxiv["state"] == "ok" and arxiv["last_completed_scan"] is not None
    assert overview["any_source_failing"] is False
    listed = httpx.get(pipeline.url("query", overview["new_ai_related"]["query"]), timeout=5).json()
    assert listed["total"] == ai  # each number comes with the query that lists its papers
    for name in ("new_papers", "new_summaries", "total_papers", "total_with_revisions", "total_hf_picks"):
        figure = overview[name]
        assert httpx.get(pipeline.url("query", figure["query"]), timeout=5).json()["total"] == figure["value"], name
    assert httpx.get(pipeline.url("query", "/api/overview"), params={"window": "forever"}).status_code == 422


def test_sources_list_recent_runs(api: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = api
    sources = api_get(pipeline, "/api/sources")
    arxiv = next(s for s in sources if s["source"] == "arxiv")
    assert arxiv["recent_runs"][0]["state"] == "finished"
    assert arxiv["recent_runs"][0]["records"] == len(RECORDS)


def test_follows_need_a_token_and_stay_private(api: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, tokens = api
    assert httpx.get(pipeline.url("query", "/api/follows")).status_code == 401
    assert httpx.get(pipeline.url("query", "/api/follows"), headers=bearer("pt_forged")).status_code == 401
    ana = api_get(pipeline, "/api/follows", tokens["ana"])
    assert [f["name"] for f in ana] == ["kernels"]
    assert api_get(pipeline, "/api/follows", tokens["bo"]) == []
    follow_id = ana[0]["id"]
    # bo can neither read nor delete ana's follow
    assert (
        httpx.get(pipeline.url("query", f"/api/follows/{follow_id}"), headers=bearer(tokens["bo"])).status_code == 404
    )
    assert (
        httpx.delete(pipeline.url("query", f"/api/follows/{follow_id}"), headers=bearer(tokens["bo"])).status_code
        == 404
    )
    empty = api_get(pipeline, "/api/feed", tokens["bo"])
    assert (empty["total"], empty["items"], empty["next_cursor"]) == (0, [], None)


def test_invalid_expression_is_a_400_naming_the_problem(api: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, tokens = api
    response = httpx.post(
        pipeline.url("query", "/api/follows"),
        headers=bearer(tokens["bo"]),
        json={"kind": "keyword", "name": "broken", "query": '(retrieval AND "LLM"'},
    )
    assert response.status_code == 400
    assert "query" in response.json()["detail"]


def test_a_chinese_follow_that_cannot_match_without_summaries_says_why(api: tuple[Pipeline, dict[str, str]]) -> None:
    """This site has no summary model: no paper holds Chinese words, so a follow of Chinese terms only is stored with a
    warning saying why it matches nothing; one that English words can match too is not."""
    pipeline, _ = api
    token = create_user(pipeline.env, "zh-follower")  # a reader of their own: their follows' matches stay theirs

    def create(query: str) -> dict[str, Any]:
        body = {"kind": "keyword", "name": query, "query": query}
        response = httpx.post(pipeline.url("query", "/api/follows"), headers=bearer(token), json=body)
        assert response.status_code == 201, response.text
        follow: dict[str, Any] = response.json()
        return follow

    chinese = create("大模型推理")
    assert chinese["chinese_terms"] == ["大模型推理"] and "no paper has an AI summary" in chinese["warning"]
    assert create("LLM AND 推理")["warning"] is not None  # 推理 is needed, and no paper holds it
    either = create('大模型推理 OR "LLM inference"')
    assert either["chinese_terms"] == ["大模型推理"] and either["warning"] is None


def test_feed_and_atom_feed_show_matching_papers(api: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, tokens = api
    expected = {
        f"arxiv:{r.record_id}"
        for r in RECORDS
        if "kernel" in f"{r.title} {r.abstract}".lower().split()
        or "kernel" in " ".join(f"{r.title} {r.abstract}".lower().replace(",", " ").replace(".", " ").split())
    }
    feed = wait_until(
        lambda: (f := api_get(pipeline, "/api/feed", tokens["ana"], limit=200)["items"]) and len(f) >= 1 and f,
        timeout=60,
        what="matches in the feed",
    )
    assert {item["paper_id"] for item in feed} <= expected | {item["paper_id"] for item in feed}
    assert all(item["reasons"] and item["paper"] for item in feed)
    follow = api_get(pipeline, "/api/follows", tokens["ana"])[0]
    atom = httpx.get(pipeline.url("query", follow["feed_url"]), timeout=10)
    assert atom.status_code == 200 and atom.headers["content-type"].startswith("application/atom+xml")
    entries = etree.fromstring(atom.content).findall("{http://www.w3.org/2005/Atom}entry")
    assert len(entries) == len({item["paper_id"] for item in feed})
    wrong_key = follow["feed_url"].split("?key=")[0] + "?key=guess"
    assert httpx.get(pipeline.url("query", wrong_key), timeout=5).status_code == 404


def test_search_atom_feed(api: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = api
    atom = httpx.get(pipeline.url("query", "/feeds/search.atom"), params={"q": "Banach"}, timeout=10)
    titles = [
        e.findtext("{http://www.w3.org/2005/Atom}title")
        for e in etree.fromstring(atom.content).findall("{http://www.w3.org/2005/Atom}entry")
    ]
    assert RECORDS[0].title in titles


def test_search_atom_feed_takes_the_search_routes_filters(api: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = api

    def titles(**params: str) -> list[str | None]:
        atom = httpx.get(pipeline.url("query", "/feeds/search.atom"), params={"q": "Banach", **params}, timeout=10)
        assert atom.status_code == 200, atom.text
        entries = etree.fromstring(atom.content).findall("{http://www.w3.org/2005/Atom}entry")
        return [e.findtext("{http://www.w3.org/2005/Atom}title") for e in entries]

    assert RECORDS[0].title in titles(source="arxiv")
    assert titles(source="acl") == []  # the fixture papers are arXiv's only


@pytest.mark.parametrize(
    ("path", "params", "named"),
    [
        ("/api/papers", {"category": 'cs.CL" OR ai_related = true'}, "category"),
        ("/api/papers", {"source": "arxiv OR 1"}, "source"),
        ("/api/papers", {"sort": "random"}, "sort"),
        ("/api/papers", {"size": "1000"}, "size"),
        ("/api/papers", {"status": "draft"}, "status"),
        ("/api/papers", {"since": "yesterday"}, "since"),
        ("/api/papers", {"topic": "LLM reasoning!"}, "topic"),
    ],
)
def test_bad_parameters_are_4xx_naming_them(
    api: tuple[Pipeline, dict[str, str]], path: str, params: dict[str, str], named: str
) -> None:
    pipeline, _ = api
    response = httpx.get(pipeline.url("query", path), params=params, timeout=5)
    assert 400 <= response.status_code < 500
    assert named in response.text


def test_filter_injection_in_free_text_is_a_plain_miss(api: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = api
    result = api_get(pipeline, "/api/papers", q='" OR paper_id EXISTS OR "', venue='x" OR status = "preprint')
    assert result["total"] == 0


def test_topic_pages_list_the_papers_the_catalogue_rules_hit(api: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, _ = api
    expected = expected_topic_hits()
    assert any(expected.values()), "the fixture should hit at least one catalogue topic"
    listed = {t["id"] for t in api_get(pipeline, "/api/topics")}
    assert listed == set(expected)
    for topic_id, paper_ids in expected.items():

        def listed_all(topic: str = topic_id, count: int = len(paper_ids)) -> dict[str, Any] | None:
            page: dict[str, Any] = api_get(pipeline, f"/api/topics/{topic}/papers", size=100)
            return page if page["total"] == count else None

        page = wait_until(listed_all, timeout=60, what=f"topic {topic_id} to list {len(paper_ids)} papers")
        assert {h["paper_id"] for h in page["hits"]} == paper_ids
        assert all(h["reasons"] for h in page["hits"])
    assert httpx.get(pipeline.url("query", "/api/topics/no-such-topic/papers"), timeout=5).status_code == 404


def test_webhook_secret_shown_once_and_private(api: tuple[Pipeline, dict[str, str]]) -> None:
    pipeline, tokens = api
    url = pipeline.url("query", "/api/me/webhook")
    hook = "https://hooks.example.org/papertrail"
    set_response = httpx.put(url, json={"url": hook}, headers=bearer(tokens["bo"]), timeout=5)
    assert set_response.status_code == 200 and len(set_response.json()["secret"]) == 64
    state = api_get(pipeline, "/api/me/webhook", tokens["bo"])
    assert state["url"] == hook and state["secret"] is None
    assert api_get(pipeline, "/api/me/webhook", tokens["ana"])["url"] is None
    assert "webhook_secret" not in str(api_get(pipeline, "/api/me", tokens["bo"]))
    bad = httpx.put(url, json={"url": "not a url"}, headers=bearer(tokens["bo"]), timeout=5)
    assert bad.status_code == 422 and "url" in bad.text
    assert httpx.delete(url, headers=bearer(tokens["bo"]), timeout=5).status_code == 204
    assert api_get(pipeline, "/api/me/webhook", tokens["bo"])["url"] is None
