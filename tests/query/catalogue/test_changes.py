"""What a new version changed: version records' `before` values against the paper as it reads now, the title and
abstract word by word; and the paper page showing it."""

from datetime import UTC, datetime
from typing import Any

import pytest

from services.query.catalogue.changes import version_changes, word_diff
from tests.support.fake_openai import corpus_lines
from tests.support.rendering import paper_page

GAME_THEORY = corpus_lines()[0]  # 2605.00921, a real abstract
V1, V2, V3 = (datetime(2026, 5, d, 17, tzinfo=UTC) for d in (4, 20, 28))


def record(seq: int, label: str | None, observed: datetime, **before: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"seq": seq, "source": "arxiv", "source_version": label, "observed_at": observed}
    return found | ({"before": before} if before else {})


def paper(**fields: Any) -> dict[str, Any]:
    values = {
        "title": GAME_THEORY["title"],
        "abstract": GAME_THEORY["summary"],
        "authors": [{"name": n} for n in GAME_THEORY["authors"]],
        "comments": "Accepted at ICML 2026",
        "categories": ["cs.GT", "cs.MA"],
        "versions": [
            {"source": "arxiv", "label": "v1", "date": "2026-05-04T17:00:00Z"},
            {"source": "arxiv", "label": "v2", "date": "2026-05-19T09:00:00Z"},
        ],
    }
    return values | fields


def test_word_diff_keeps_the_text_and_marks_words() -> None:
    before, after = "up to 32,768 leaves on three datasets", "up to 65,536 leaves on four natural datasets"
    runs = word_diff(before, after)
    assert "".join(r["text"] for r in runs if r["op"] != "insert") == before
    assert "".join(r["text"] for r in runs if r["op"] != "delete") == after
    assert [r["text"] for r in runs if r["op"] == "delete"] == ["32,768", "three"]
    assert [r["text"] for r in runs if r["op"] == "insert"] == ["65,536", "four natural"]


def test_each_version_lists_what_it_changed_before_and_after() -> None:
    abstract_v1 = GAME_THEORY["summary"].replace("32,768", "4,096")
    history = [
        record(1, "v1", V1),
        record(2, "v2", V2, abstract=abstract_v1, comments="Under review", categories=["cs.GT"]),
        record(3, "v3", V3, title="Implicit Evaluation", authors=["Joss Armstrong", "A. Student"]),
    ]
    v3, v2 = version_changes(paper(), history)
    assert (v3["version"], v3["previous_version"], v3["date"]) == ("v3", "v2", V3)  # no source date: observed
    title, authors = v3["fields"]
    assert (title["field"], title["before"], title["after"]) == ("title", "Implicit Evaluation", GAME_THEORY["title"])
    assert authors["removed"] == ["A. Student"] and authors["added"] == []
    assert (v2["version"], v2["previous_version"], v2["date"]) == ("v2", "v1", "2026-05-19T09:00:00Z")
    abstract, comments, categories = v2["fields"]
    assert [r["text"] for r in abstract["diff"] if r["op"] != "equal"] == ["4,096", "32,768"]
    assert (comments["before"], comments["after"]) == ("Under review", "Accepted at ICML 2026")
    assert categories["added"] == ["cs.MA"] and categories["removed"] == []


@pytest.mark.parametrize(
    "history",
    [
        [record(1, "v1", V1)],  # one version
        [record(1, "v1", V1), record(2, "v2", V2)],  # recorded before `before` was kept
        [record(1, "v1", V1), record(2, "v2", V2, authors=[GAME_THEORY["authors"][0]])],  # affiliations only
    ],
)
def test_nothing_to_show_without_a_changed_compared_field(history: list[dict[str, Any]]) -> None:
    assert version_changes(paper(), history) == []


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_paper_page_shows_what_v2_changed(lang: str) -> None:
    history = [record(1, "v1", V1), record(2, "v2", V2, abstract="We study selection.", comments="")]
    detail = {"paper": paper(), "history": history, "summary": None, "changes": version_changes(paper(), history)}
    section = paper_page(lang, detail).get_element_by_id("changes")
    heading = section.xpath(".//h3")[0].text_content()
    assert heading == ("v2(2026-05-19)相对 v1" if lang == "zh" else "v2 (2026-05-19) against v1")
    abstract = section.xpath('.//dd[contains(@class, "diff")]')[0]
    assert abstract.text_content().startswith("We study ")  # the words both versions share, unmarked
    assert [d.text_content() for d in abstract.xpath(".//del")] == ["selection."]
    assert "hierarchical component selection" in " ".join(i.text_content() for i in section.xpath(".//ins"))
    comment = section.xpath('.//dd[@class="value-change"]')[0].text_content()
    assert comment == ("(无) → Accepted at ICML 2026" if lang == "zh" else "(none) → Accepted at ICML 2026")
