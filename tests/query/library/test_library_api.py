"""The library and feedback over the real query service: save by any id a paper holds, idempotent writes, filters,
cursor pages with the total, marks, and one reader never seeing or changing another's."""

import base64
import json
from typing import Any

import bibtexparser
import pytest

from services.query.http.problems import PROBLEM_JSON
from services.query.library.citations import MEDIA_TYPES, ShelfMarks, export
from tests.support.library_papers import arxiv_oai, red_fm
from tests.support.reader_site import Site

pytestmark = [pytest.mark.integration, pytest.mark.reader_site(readers=("ana", "bo", "cy"))]
PAPERS = [*arxiv_oai(), red_fm()]
PUBLISHED = next(p for p in PAPERS if p.ids.arxiv and p.ids.dois)  # held under an arXiv id and a DOI


def test_a_paper_saved_under_any_of_its_ids_is_one_entry_under_its_canonical_id(site: Site) -> None:
    by_doi = site.call("PUT", f"/api/me/library/{PUBLISHED.ids.dois[0].upper()}", json={"tags": [" rl ", "rl"]})
    assert by_doi.status_code == 200, by_doi.text
    entry = by_doi.json()
    assert entry["paper_id"] == PUBLISHED.id and entry["tags"] == ["rl"] and entry["note"] == ""
    assert entry["paper"]["title"] == PUBLISHED.title
    again = site.call("PUT", f"/api/me/library/{PUBLISHED.ids.arxiv}", json={"tags": ["rl"]}).json()
    assert again == entry  # the same PUT twice: the same entry, times and all
    noted = site.call("PUT", f"/api/me/library/{PUBLISHED.id}", json={"note": "read §3"}).json()
    assert noted["tags"] == ["rl"] and noted["note"] == "read §3" and noted["saved_at"] == entry["saved_at"]
    assert site.call("GET", f"/api/me/library/{PUBLISHED.ids.arxiv}v1").json()["note"] == "read §3"
    listed = site.call("GET", "/api/me/library").json()
    assert [i["paper_id"] for i in listed["items"]].count(PUBLISHED.id) == 1
    assert site.call("DELETE", f"/api/me/library/{PUBLISHED.id}").status_code == 204
    assert site.call("DELETE", f"/api/me/library/{PUBLISHED.id}").status_code == 204  # idempotent
    assert site.call("GET", f"/api/me/library/{PUBLISHED.id}").status_code == 404


def test_the_list_filters_by_tag_time_and_text_and_pages_by_cursor(site: Site) -> None:
    papers = PAPERS[10:25]
    for n, paper in enumerate(papers):
        tags = ["odd"] if n % 2 else ["even"]
        response = site.call("PUT", f"/api/me/library/{paper.id}", reader="bo", json={"tags": tags, "note": f"n{n}"})
        assert response.status_code == 200, response.text
    seen, cursor, totals = [], None, set()
    while True:
        params = {"limit": 4, **({"cursor": cursor} if cursor else {})}
        page = site.call("GET", "/api/me/library", reader="bo", params=params).json()
        totals.add(page["total"])
        seen += [i["paper_id"] for i in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert totals == {len(papers)} and seen == [p.id for p in reversed(papers)]  # newest saved first, each once
    odd = site.call("GET", "/api/me/library", reader="bo", params={"tag": "odd"}).json()
    assert odd["total"] == len(papers) // 2 and all(i["tags"] == ["odd"] for i in odd["items"])
    word = papers[3].title.split()[0]
    by_text = site.call("GET", "/api/me/library", reader="bo", params={"q": word.upper()}).json()
    assert papers[3].id in {i["paper_id"] for i in by_text["items"]}
    assert all(word.casefold() in i["paper"]["title"].casefold() for i in by_text["items"])
    by_note = site.call("GET", "/api/me/library", reader="bo", params={"q": "N7"}).json()
    assert [i["paper_id"] for i in by_note["items"]] == [papers[7].id]
    pattern = site.call("GET", "/api/me/library", reader="bo", params={"q": ".*"}).json()
    assert pattern["total"] == 0  # the reader's text is matched literally, never as a pattern
    middle = site.call("GET", "/api/me/library", reader="bo", params={"limit": 200}).json()["items"][7]["saved_at"]
    since = site.call("GET", "/api/me/library", reader="bo", params={"since": middle}).json()
    assert since["total"] == 8
    bad = site.call("GET", "/api/me/library", reader="bo", params={"cursor": "nonsense"})
    assert bad.status_code == 422 and "cursor" in bad.text


def test_marks_save_dismiss_and_read_with_times(site: Site) -> None:
    paper = PAPERS[30]
    saved = site.call("PUT", f"/api/me/feedback/{paper.id}", json={"mark": "save"}).json()
    assert saved == {"saved": True, "label": "positive", "read": False}
    assert site.call("GET", f"/api/me/library/{paper.id}").status_code == 200
    read = site.call("PUT", f"/api/me/feedback/{paper.id}", json={"mark": "read"}).json()
    assert read == {"saved": True, "label": "positive", "read": True}
    dismissed = site.call("PUT", f"/api/me/feedback/{paper.id}", json={"mark": "not_relevant"}).json()
    assert dismissed == {"saved": False, "label": "negative", "read": True}
    assert site.call("GET", f"/api/me/library/{paper.id}").status_code == 404
    [record] = [f for f in site.call("GET", "/api/me/feedback").json() if f["paper_id"] == paper.id]
    assert record["label"] == "negative" and record["labelled_at"] and record["read_at"]
    before = record["labelled_at"]
    site.call("PUT", f"/api/me/feedback/{paper.id}", json={"mark": "not_relevant"})
    [again] = [f for f in site.call("GET", "/api/me/feedback").json() if f["paper_id"] == paper.id]
    assert again["labelled_at"] == before  # a repeated click is no change
    unknown = site.call("PUT", "/api/me/feedback/arxiv:0000.00000", json={"mark": "save"})
    assert unknown.status_code == 404
    assert site.call("PUT", f"/api/me/feedback/{paper.id}", json={"mark": "love"}).status_code == 422


def test_one_reader_never_sees_or_changes_anothers_record(site: Site) -> None:
    paper = PAPERS[40]
    site.call("PUT", f"/api/me/library/{paper.id}", reader="ana", json={"tags": ["mine"], "note": "secret"})
    site.call("PUT", f"/api/me/feedback/{paper.id}", reader="ana", json={"mark": "read"})
    assert site.call("GET", f"/api/me/library/{paper.id}", reader="bo").status_code == 404
    assert paper.id not in {i["paper_id"] for i in site.call("GET", "/api/me/library", reader="bo").json()["items"]}
    assert site.call("GET", "/api/me/library", reader="bo", params={"tag": "mine"}).json()["total"] == 0
    assert paper.id not in {f["paper_id"] for f in site.call("GET", "/api/me/feedback", reader="bo").json()}
    assert site.call("DELETE", f"/api/me/library/{paper.id}", reader="bo").status_code == 204
    site.call("PUT", f"/api/me/feedback/{paper.id}", reader="bo", json={"mark": "not_relevant"})
    mine = site.call("GET", f"/api/me/library/{paper.id}", reader="ana").json()
    assert mine["note"] == "secret" and mine["tags"] == ["mine"]
    [ana_mark] = [f for f in site.call("GET", "/api/me/feedback", reader="ana").json() if f["paper_id"] == paper.id]
    assert ana_mark["label"] == "positive" and ana_mark["read_at"]
    for method, path in [
        ("GET", "/api/me/library"),
        ("GET", f"/api/me/library/{paper.id}"),
        ("PUT", f"/api/me/library/{paper.id}"),
        ("DELETE", f"/api/me/library/{paper.id}"),
        ("PUT", f"/api/me/feedback/{paper.id}"),
        ("GET", "/api/me/feedback"),
    ]:
        assert site.call(method, path, reader=None, json={}).status_code == 401, (method, path)


def test_a_paper_is_cited_in_every_format_under_any_of_its_ids(site: Site) -> None:
    bibtex = site.call("GET", f"/api/papers/{PUBLISHED.ids.arxiv}v2/cite", reader=None)
    assert bibtex.status_code == 200 and bibtex.headers["content-type"].startswith("application/x-bibtex")
    assert bibtex.text == export([PUBLISHED], "bibtex")  # the paper as stored, whichever id asked
    assert f"eprint = {{{PUBLISHED.ids.arxiv}}}" in bibtex.text and "archivePrefix = {arXiv}" in bibtex.text
    ris = site.call("GET", f"/api/papers/{PUBLISHED.id}/cite", reader=None, params={"format": "ris"})
    assert ris.text == export([PUBLISHED], "ris") and ris.headers["content-type"].startswith(MEDIA_TYPES["ris"])
    csl = site.call("GET", f"/api/papers/{PUBLISHED.id}/cite", reader=None, params={"format": "csl-json"}).json()
    assert csl[0]["DOI"].casefold() == PUBLISHED.ids.dois[0].casefold()
    assert site.call("GET", f"/api/papers/{PUBLISHED.id}/cite", params={"format": "docx"}).status_code == 422
    assert site.call("GET", "/api/papers/arxiv:0000.00000/cite").status_code == 404


def test_the_library_or_one_tag_is_exported_and_only_the_readers_own(site: Site) -> None:
    mine, tagged = PAPERS[50:53], PAPERS[53]
    for paper in mine:
        site.call("PUT", f"/api/me/library/{paper.id}", reader="cy", json={})
    site.call("PUT", f"/api/me/library/{tagged.id}", reader="cy", json={"tags": ["to read"], "note": "Sec. 3 & 4"})
    site.call("PUT", f"/api/me/library/{PAPERS[60].id}", reader="bo", json={"tags": ["to read"]})
    whole = site.call("GET", "/api/me/library/export", reader="cy", params={"format": "ris"})
    assert whole.status_code == 200 and 'filename="papertrail-library.ris"' in whole.headers["content-disposition"]
    assert whole.text == export([tagged, *reversed(mine)], "ris")  # newest saved first
    one_tag = site.call("GET", "/api/me/library/export", reader="cy", params={"tag": "to read"})
    assert (
        one_tag.text == export([tagged], "bibtex", [ShelfMarks(("to read",), "Sec. 3 & 4")])
        and "papertrail-library-to_read.bib" in one_tag.headers["content-disposition"]
    )
    (entry,) = bibtexparser.parse_string(one_tag.text).entries  # the reader's tags and note come along
    assert entry.fields_dict["keywords"].value == "to read" and entry.fields_dict["annote"].value == r"Sec. 3 {\&} 4"
    assert site.call("GET", "/api/me/library/export", reader=None).status_code == 401


# Moments that parse, but whose time in UTC falls outside the years 1-9999 (year 1 at +14:00 is 31 December of year 0
# in UTC): each was a 500 where a date-time is stored or compared in UTC (issue 37).
BEYOND_UTC = ("0001-01-01T00:00:00+14:00", "0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59")


def refused_as_a_problem(response: Any, *location: str, says: str = "1-9999") -> None:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == PROBLEM_JSON
    problem = response.json()
    assert problem["status"] == 422 and says in problem["detail"], problem
    if location:
        assert [e["location"] for e in problem["errors"]] == [list(location)], problem


@pytest.mark.parametrize("moment", BEYOND_UTC)
def test_a_moment_beyond_the_years_utc_holds_is_refused_as_a_problem_everywhere(site: Site, moment: str) -> None:
    """The library's and the feed's `since`, the search's `since`, `until` and `summarized_since` (API and Atom): one
    check, a 422 problem naming the parameter, never a 500. A cursor's moment is milliseconds since 1970, at most 14
    digits (before the year 5138): a cursor of the old form that carried such a moment is no cursor."""
    refused_as_a_problem(site.call("GET", "/api/me/library", params={"since": moment}), "query", "since")
    for sort in ("newest", "relevance"):
        refused_as_a_problem(site.call("GET", "/api/feed", params={"since": moment, "sort": sort}), "query", "since")
    for name in ("since", "until", "summarized_since"):
        refused_as_a_problem(site.call("GET", "/api/papers", reader=None, params={name: moment}), "query", name)
        refused_as_a_problem(site.call("GET", "/feeds/search.atom", reader=None, params={name: moment}), "query", name)
    forged = base64.urlsafe_b64encode(json.dumps([moment, "x"]).encode()).decode().rstrip("=")
    refused_as_a_problem(site.call("GET", "/api/me/library", params={"cursor": forged}), "query", "cursor", says="")
    forged = base64.urlsafe_b64encode(json.dumps({"matched_at": moment, "id": "x"}).encode()).decode().rstrip("=")
    refused_as_a_problem(site.call("GET", "/api/feed", params={"cursor": forged}), "query", "cursor", says="")
    latest = f"{'9' * 14}.eA"  # the latest moment a cursor can carry, and an id
    assert site.call("GET", "/api/me/library", params={"cursor": latest}).status_code == 200
    assert site.call("GET", "/api/feed", params={"cursor": f"0.{latest}"}).status_code == 200
    # the years' own ends, written in UTC, are still taken
    for edge in ("0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00-14:00"):
        assert site.call("GET", "/api/me/library", params={"since": edge}).status_code == 200, edge
        assert site.call("GET", "/api/papers", reader=None, params={"since": edge}).status_code == 200, edge
