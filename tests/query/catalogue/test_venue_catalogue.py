"""The venue catalogue over the query service's app with its lifespan on real servers: GET /api/venues (by field,
rank and name) and /api/venues/{key} (editions, deadlines; a 404 problem for an unknown key), documented with
examples; 会议截稿 (/deadlines) in Beijing time by default and its iCal feed (/deadlines.ics), at a clock the test
sets (the `get_now` dependency)."""

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import httpx
import pytest
from icalendar import Calendar
from lxml import html

from papertrail.domain.venues.catalogue import default_index
from papertrail.domain.venues.ccfddl import build_venues
from papertrail.domain.venues.deadlines import upcoming_deadlines
from services.harvester.store import VenueCatalogueStore
from services.query.app import create_app
from services.query.http.deps import get_now
from tests.support.paths import SOURCES
from tests.support.query import query_settings
from tests.support.servers import Servers

pytestmark = pytest.mark.integration
NOW = datetime(2026, 1, 20, tzinfo=UTC)
EARLIER = SOURCES / "ccf-deadlines-history"  # earlier versions of ccf-deadlines files (SOURCES.md)


@pytest.fixture
async def client(servers: Servers) -> AsyncIterator[httpx.AsyncClient]:
    run = uuid.uuid4().hex[:8]
    settings = query_settings(servers, "venue_catalogue", run, "api")
    app = create_app(settings)
    clock = {"now": NOW}

    async def now() -> datetime:
        return clock["now"]

    app.dependency_overrides[get_now] = now
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://query") as http:
            http.clock = clock  # type: ignore[attr-defined]
            yield http


async def test_venues_by_field_rank_and_name(client: httpx.AsyncClient) -> None:
    everything = (await client.get("/api/venues")).json()
    assert len(everything) == len(default_index().venues)
    assert [v["ccf_rank"] for v in everything] == sorted((v["ccf_rank"] for v in everything), key=lambda r: r or "Z")
    ai_a = (await client.get("/api/venues", params={"field": "AI", "ccf_rank": "A"})).json()
    assert ai_a and all(v["field"] == "AI" and v["ccf_rank"] == "A" for v in ai_a)
    assert {"ICML", "NeurIPS", "AAAI"} <= {v["acronym"] for v in ai_a} and "editions" not in ai_a[0]
    two = (await client.get("/api/venues", params=[("field", "AI"), ("field", "SE")])).json()
    assert {v["field"] for v in two} == {"AI", "SE"}
    named = (await client.get("/api/venues", params={"q": "machine learning"})).json()
    assert "ICML" in {v["acronym"] for v in named} and all(
        "machine learning" in " ".join([v["name"], *v["aliases"]]).lower() for v in named
    )


async def test_one_venue_with_its_editions_and_a_404_problem_for_an_unknown_key(client: httpx.AsyncClient) -> None:
    icml = (await client.get("/api/venues/AI/icml")).json()
    assert (icml["acronym"], icml["ccf_rank"], icml["dblp"]) == ("ICML", "A", "icml")
    assert 2026 in {e["year"] for e in icml["editions"]} and icml["editions"][-1]["deadlines"]
    missing = await client.get("/api/venues/AI/nosuchvenue")
    assert missing.status_code == 404 and missing.headers["content-type"] == "application/problem+json"
    assert "AI/nosuchvenue" in missing.json()["detail"]
    for bad in ({"ccf_rank": "D"}, {"field": "XX"}, {"q": "x" * 201}):
        refused = await client.get("/api/venues", params=bad)
        assert refused.status_code == 422 and next(iter(bad)) in refused.text, bad
    assert (await client.get("/api/venues/..%2Fetc")).status_code in (404, 422)


async def test_the_venue_api_is_documented_with_examples(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    listed = spec["paths"]["/api/venues"]["get"]
    assert {p["name"] for p in listed["parameters"]} == {"field", "ccf_rank", "q"}
    assert listed["responses"]["200"]["content"]["application/json"]["example"][0]["acronym"] == "ICML"
    one = spec["paths"]["/api/venues/{key}"]["get"]
    assert one["responses"]["200"]["content"]["application/json"]["example"]["editions"][0]["deadlines"]
    assert "404" in one["responses"]


def _rows(page: str) -> list[html.HtmlElement]:
    return html.fromstring(page).find_class("deadline")


async def test_the_deadlines_page_in_beijing_time_by_field_and_rank(client: httpx.AsyncClient) -> None:
    expected = upcoming_deadlines(default_index().venues.values(), NOW, ["AI"], ["A"])
    response = await client.get("/deadlines", params={"field": "AI", "ccf_rank": "A"})
    assert response.status_code == 200
    rows = _rows(response.text)
    assert [(r.get("data-venue"), r.get("data-kind")) for r in rows] == [(d.venue.key, d.kind) for d in expected]
    beijing = ZoneInfo("Asia/Shanghai")
    for row, deadline in zip(rows, expected, strict=True):
        shown = row.find_class("when")[0].text_content()
        assert shown.startswith(deadline.at.astimezone(beijing).strftime("%Y-%m-%d %H:%M"))
        assert f"({deadline.as_written})" in shown
    aaai = next(r for r, d in zip(rows, expected, strict=True) if d.venue.key == "AI/aaai" and d.kind == "paper")
    assert aaai.find_class("when")[0].text_content() == "2026-07-29 19:59 (2026-07-28 23:59:59 UTC-12)"
    # the menu links it, marked as the page shown
    assert "北京时间" in response.text and '<a href="/deadlines" aria-current="page">会议截稿</a>' in response.text
    utc = _rows((await client.get("/deadlines", params={"field": "AI", "ccf_rank": "A", "tz": "UTC"})).text)
    assert utc[0].find_class("when")[0].text_content().startswith(expected[0].at.strftime("%Y-%m-%d %H:%M"))
    english = await client.get("/deadlines", params={"lang": "en", "ccf_rank": "A"})
    assert "Submission deadlines" in english.text and len(_rows(english.text)) > len(rows)


async def test_the_clock_moves_past_a_deadline(client: httpx.AsyncClient) -> None:
    before = _rows((await client.get("/deadlines", params={"field": "AI", "ccf_rank": "A"})).text)
    assert "AI/icml" in {r.get("data-venue") for r in before}
    client.clock["now"] = datetime(2026, 2, 1, tzinfo=UTC)  # type: ignore[attr-defined]
    after = _rows((await client.get("/deadlines", params={"field": "AI", "ccf_rank": "A"})).text)
    assert "AI/icml" not in {r.get("data-venue") for r in after} and len(after) == len(before) - 2


async def test_bad_filters_are_a_422_naming_the_parameter(client: httpx.AsyncClient) -> None:
    said = {
        "ccf_rank": "CCF 等级:不是可选的值「A+」",
        "field": "领域:不是可选的值「ZZ」",
        "tz": "没有这个时区:Mars/Olympus",
    }
    for params in ({"ccf_rank": "A+"}, {"field": "ZZ"}, {"tz": "Mars/Olympus"}):
        page = await client.get("/deadlines", params=params)
        banner = " ".join(html.fromstring(page.text).find_class("banner-error")[0].text_content().split())
        assert page.status_code == 422 and said[next(iter(params))] in banner, banner
    feed = await client.get("/deadlines.ics", params={"field": "ZZ"})
    assert feed.status_code == 422 and "field" in feed.text


async def test_the_ical_feed_holds_the_same_deadlines(client: httpx.AsyncClient) -> None:
    expected = upcoming_deadlines(default_index().venues.values(), NOW, ["AI"], ["A"])
    response = await client.get("/deadlines.ics", params={"field": "AI", "ccf_rank": "A"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/calendar")
    events = Calendar.from_ical(response.content).walk("VEVENT")
    assert [e.decoded("dtstart") for e in events] == [d.at for d in expected]
    icml = next(e for e, d in zip(events, expected, strict=True) if d.venue.key == "AI/icml" and d.kind == "paper")
    assert str(icml["summary"]) == "ICML 2026 paper deadline · CCF-A" and str(icml["url"]).startswith("https://")
    again = Calendar.from_ical((await client.get("/deadlines.ics", params={"field": "AI", "ccf_rank": "A"})).content)
    assert [str(e["uid"]) for e in again.walk("VEVENT")] == [str(e["uid"]) for e in events]  # stable across reads
    assert len({str(e["uid"]) for e in events}) == len(events)


def _awaited(page: str) -> list[str]:
    return [" ".join(li.text_content().split()) for li in html.fromstring(page).find_class("awaited-edition")]


async def test_a_top_venue_whose_next_deadline_is_not_announced_says_so_with_its_last(
    client: httpx.AsyncClient,
) -> None:
    client.clock["now"] = datetime(2026, 9, 1, tzinfo=UTC)  # type: ignore[attr-defined]
    page = await client.get("/deadlines", params={"field": "AI", "ccf_rank": "A"})
    assert page.status_code == 200
    lines = _awaited(page.text)
    # ccf-deadlines lists no ICML 2027 yet: its last paper deadline, 2026-01-29 11:59:59 UTC+0, in Beijing time
    assert "ICML 2027: 尚未公布 (上届截稿 2026-01-29 19:59 (2026-01-29 11:59:59 UTC+0)) 登录后关注" in lines
    assert "NeurIPS 2027: 尚未公布 (上届截稿 2026-05-07 19:59 (2026-05-07 11:59:00 UTC+0)) 登录后关注" in lines
    assert "AI/icml" not in {r.get("data-venue") for r in _rows(page.text)}
    english = _awaited((await client.get("/deadlines", params={"field": "AI", "ccf_rank": "A", "lang": "en"})).text)
    assert any(line.startswith("ICML 2027: not announced yet (last deadline 2026-01-29 19:59") for line in english)
    assert _awaited((await client.get("/deadlines", params={"field": "AI", "ccf_rank": "B"})).text) == []


async def test_the_page_reads_the_harvested_catalogue_over_the_shipped_one(client: httpx.AsyncClient) -> None:
    """ICML as ccf-deadlines had it in October 2025 (2026 announced, its deadlines TBD), kept by the harvester."""
    app = client._transport.app  # type: ignore[attr-defined]
    venues = VenueCatalogueStore(app.state.resources.catalogue.venues.documents.database)
    october = EARLIER / "4d5483f3/conference/AI/icml.yml"
    icml = build_venues({"conference/AI/icml.yml": october.read_bytes()}).venues
    await venues.save([(icml[0], "conference/AI/icml.yml")], None, NOW)
    page = await client.get("/deadlines", params={"field": "AI", "ccf_rank": "A"})
    assert "AI/icml" not in {r.get("data-venue") for r in _rows(page.text)}  # the shipped file's 2026 deadline: gone
    assert "ICML 2026: 尚未公布 (上届截稿 2025-01-31 19:59 (2025-01-30 23:59:59 UTC-12)) 登录后关注" in _awaited(
        page.text
    )
    feed = Calendar.from_ical((await client.get("/deadlines.ics", params={"field": "AI"})).content)
    assert not [e for e in feed.walk("VEVENT") if str(e["summary"]).startswith("ICML ")]
