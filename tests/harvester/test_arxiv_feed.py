"""The announcement watcher over HTTP against the replay server's feeds, on an injected clock, with its
checkpoint and run records in a real MongoDB: an announcement caught, a stale feed, a holiday, a bad feed."""

import asyncio
import datetime as dt
import os
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from services.harvester.http import PoliteFetcher
from services.harvester.runner import run_source
from services.harvester.scheduler import build_sources, watch_announcements
from services.harvester.settings import HarvesterSettings
from services.harvester.sources.arxiv import ArxivOaiSource
from services.harvester.sources.arxiv_feed import DUE, ArxivAnnouncementSource
from services.harvester.store import HarvestStore
from tests.support.fakes import Published
from tests.support.harvests import note_grants, pace_gaps
from tests.support.replay import Replay
from tests.support.servers import Servers
from tests.support.services import running_service

pytestmark = pytest.mark.integration

YESTERDAY = ["2203.01250v3"]  # the documented entry (tests/fixtures/harvester/README.md)
TONIGHT = ["0704.0471", "0704.1109", "0704.1114"]
# Monday 2026-03-02, EST: 20:00 Eastern is 01:00 UTC on the 3rd
ANNOUNCED = dt.datetime(2026, 3, 3, 1, 0, tzinfo=dt.UTC)


class Clock:
    """The watcher's clock and sleep: sleeping moves the clock on at once, and is logged."""

    def __init__(self, now: dt.datetime) -> None:
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> dt.datetime:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += dt.timedelta(seconds=seconds)
        await asyncio.sleep(0)


def _settings(settings: HarvesterSettings, replay: Replay, categories: list[str]) -> HarvesterSettings:
    return settings.model_copy(
        update={
            "arxiv_feed_url": f"{replay.url}/atom",
            "arxiv_feed_categories": categories,
            "arxiv_feed_poll_s": 60,
            "arxiv_feed_watch_s": 600,
        }
    )


async def _watch(settings: HarvesterSettings, store: HarvestStore, published: Published, clock: Clock):
    async with httpx.AsyncClient(timeout=10) as client:
        fetcher = PoliteFetcher(client, min_interval_s=0, retries=1, retry_after_max_s=60)
        source = ArxivAnnouncementSource(settings, fetcher, clock=clock, sleep=clock.sleep)
        return await run_source(source, store, published.publish_raw, published.publish_status)


def _windows(category: str, outcome: str) -> float:
    return (
        REGISTRY.get_sample_value("papertrail_announce_windows_total", {"category": category, "outcome": outcome}) or 0
    )


def _due() -> float | None:
    return REGISTRY.get_sample_value("papertrail_harvest_due_timestamp_seconds", {"source": "arxiv_feed"})


def _feed_requests(replay: Replay) -> list[str]:
    return [r["path"] for r in replay.requests() if r["path"].startswith("/atom/")]


async def test_the_announcement_is_published_as_it_appears_and_the_watch_then_stops(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    clock = Clock(ANNOUNCED - dt.timedelta(seconds=30))  # 19:59:30 Eastern: the feed still holds yesterday's
    announced_before = _windows("cs", "announced")
    status = await _watch(_settings(settings, replay, ["cs"]), store, published, clock)

    assert status.state == "finished" and status.window_from == "2026-03-02"
    # yesterday's batch (first seen, before 20:00) is published but the watch goes on; one round later, tonight's
    assert published.ids == ["2203.01250", *TONIGHT]
    assert {(r.source, r.format) for r in published.raw} == {("arxiv", "arxiv_atom")}
    assert _feed_requests(replay) == ["/atom/cs", "/atom/cs"] and clock.slept == [60]
    checkpoint = await store.load_checkpoint("arxiv_feed")
    assert checkpoint["window"] == {"day": "2026-03-02", "announced": ["cs"], "outcomes": {"cs": "announced"}}
    assert checkpoint["categories"]["cs"]["ids"] == ["0704.0471v1", "0704.1109v2", "0704.1114v1"]
    assert REGISTRY.get_sample_value("papertrail_announce_delay_seconds", {"category": "cs"}) == 30
    assert _windows("cs", "announced") == announced_before + 1
    # the next batch is due by the close of Tuesday's window (20:00 EST = 01:00 UTC, plus the 600 s watch)
    assert _due() == dt.datetime(2026, 3, 4, 1, 10, tzinfo=dt.UTC).timestamp()

    # started again in the same window (a restart): nothing is fetched or published again
    replay.reset()
    again = Published()
    DUE.labels("arxiv_feed").set(0)  # a restarted process knows no due time until its window says
    await _watch(_settings(settings, replay, ["cs"]), store, again, clock)
    assert again.raw == [] and _feed_requests(replay) == []
    assert _due() == dt.datetime(2026, 3, 4, 1, 10, tzinfo=dt.UTC).timestamp()
    assert _windows("cs", "announced") == announced_before + 1


async def test_a_feed_still_serving_the_last_batch_is_stale_not_quiet(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    last_night = {"updated": "2024-02-23T16:08:30.941605+00:00", "ids": YESTERDAY}
    await store.save_checkpoint("arxiv_feed", {"categories": {"cs": last_night, "math.OC": last_night}})
    stale_before, none_before = _windows("math.OC", "stale"), _windows("math.OC", "none")
    clock = Clock(ANNOUNCED + dt.timedelta(seconds=10))

    status = await _watch(_settings(settings, replay, ["cs", "math.OC"]), store, published, clock)

    assert status.state == "finished" and published.ids == TONIGHT  # cs announced; yesterday's never again
    requests = _feed_requests(replay)
    # math.OC is asked for every round until the window closes (600 s after 20:00, a round a minute)
    assert requests.count("/atom/cs") == 2 and requests.count("/atom/math.OC") == len(clock.slept) + 1 >= 10
    assert clock.now >= ANNOUNCED + dt.timedelta(seconds=600)
    assert _windows("math.OC", "stale") == stale_before + 1 and _windows("math.OC", "none") == none_before
    window = (await store.load_checkpoint("arxiv_feed"))["window"]
    assert window["outcomes"] == {"cs": "announced", "math.OC": "stale"}
    # the run's status carries the status page's line: cs's batch as caught, math.OC's last one, stale
    report = status.announcement
    assert report is not None and (report.day, report.announced_at) == ("2026-03-02", ANNOUNCED)
    assert [(c.category, c.outcome, c.entries, c.seen_at) for c in report.categories] == [
        ("cs", "announced", 3, ANNOUNCED + dt.timedelta(seconds=70)),
        ("math.OC", "stale", 1, None),
    ]
    assert published.statuses[-1].announcement == report


async def test_a_holiday_is_a_quiet_window_not_a_failure(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    last_night = {"updated": "2024-02-23T16:08:30.941605+00:00", "ids": YESTERDAY}
    await store.save_checkpoint("arxiv_feed", {"categories": {"math.OC": last_night}})
    none_before = _windows("math.OC", "none")
    DUE.labels("arxiv_feed").set(due_before := ANNOUNCED.timestamp() + 600)
    clock = Clock(ANNOUNCED - dt.timedelta(minutes=5))

    status = await _watch(_settings(settings, replay, ["math.OC"]), store, published, clock)

    assert status.state == "finished" and status.error is None and published.raw == []
    assert clock.now >= ANNOUNCED + dt.timedelta(seconds=600)
    assert _windows("math.OC", "none") == none_before + 1
    assert (await store.load_checkpoint("arxiv_feed"))["window"]["outcomes"] == {"math.OC": "none"}
    assert _due() == due_before  # no batch: the due time passes, and SourceStale fires


async def test_a_feed_that_is_no_feed_fails_the_run_and_keeps_the_checkpoint(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    replay.fault(path="/atom/cs", body="<html>arXiv is busy</html>", content_type="text/html")
    status = await _watch(_settings(settings, replay, ["cs"]), store, published, Clock(ANNOUNCED))
    assert status.state == "failed" and "arXiv feed cs" in (status.error or "")
    assert published.raw == [] and await store.load_checkpoint("arxiv_feed") == {}


async def test_the_schedule_sleeps_until_the_window_watches_it_then_waits_for_the_next(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    noon = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)  # Monday noon
    clock = Clock(noon)
    last_night = {"updated": "2024-02-23T16:08:30.941605+00:00", "ids": YESTERDAY}
    await store.save_checkpoint("arxiv_feed", {"categories": {"cs": last_night}})

    class Stop(Exception):
        pass

    async def sleep(seconds: float) -> None:
        await clock.sleep(seconds)
        if len(clock.slept) == 3:
            raise Stop

    watching = _settings(settings, replay, ["cs"]).model_copy(update={"arxiv_feed_lead_s": 0})
    async with httpx.AsyncClient(timeout=10) as client:
        fetcher = PoliteFetcher(client, min_interval_s=0, retries=1, retry_after_max_s=60)
        source = ArxivAnnouncementSource(watching, fetcher, clock=clock, sleep=sleep)
        with pytest.raises(Stop):
            await watch_announcements(source, store, published, lease_ttl_s=60)

    # asleep until 20:00, a round a minute until tonight's batch, then asleep until Tuesday's 20:00
    tuesday = ANNOUNCED + dt.timedelta(days=1)
    assert clock.slept == [(ANNOUNCED - noon).total_seconds(), 60, (tuesday - ANNOUNCED).total_seconds() - 60]
    assert published.ids == TONIGHT
    assert [s.state for s in published.statuses] == ["started", "finished"]


def test_the_feed_shares_arxivs_pace_with_the_oai_harvest(settings: HarvesterSettings) -> None:
    built = build_sources(["arxiv", "arxiv_feed"], settings, httpx.AsyncClient())
    oai, feed = built["arxiv"][0], built["arxiv_feed"][0]
    assert isinstance(feed, ArxivAnnouncementSource) and feed.fetcher is oai.fetcher  # type: ignore[attr-defined]
    assert built["arxiv_feed"][1] == 72 * 3600


def test_the_harvester_starts_the_watcher_with_its_series_at_zero(
    servers: Servers, replay: Replay, tmp_path: Path
) -> None:
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_watch_{uuid.uuid4().hex[:8]}",
        "SOURCES": '["arxiv_feed"]',
        "ARXIV_FEED_CATEGORIES": '["cs", "math.OC"]',
        "ARXIV_FEED_URL": f"{replay.url}/atom",  # were a window open now, it would read the replay server's feed
        "ARXIV_MIN_REQUEST_INTERVAL_S": "0",
    }
    with running_service("harvester", env, tmp_path) as port:
        text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    for category in ("cs", "math.OC"):
        for outcome in ("announced", "stale", "none"):
            key = ("papertrail_announce_windows_total", (("category", category), ("outcome", outcome)))
            assert key in samples, key
    assert samples[("papertrail_harvest_interval_seconds", (("source", "arxiv_feed"),))] == 72 * 3600


def test_a_bad_category_stops_the_harvester_at_start_naming_it(servers: Servers, tmp_path: Path) -> None:
    env = servers.environment() | {"SOURCES": '["arxiv_feed"]', "ARXIV_FEED_CATEGORIES": '["cs AI"]'}
    done = subprocess.run(
        [sys.executable, "-m", "papertrail", "harvester"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and "ARXIV_FEED_CATEGORIES" in done.stderr + done.stdout


async def test_the_feed_and_the_oai_harvest_together_keep_arxivs_pace(
    settings: HarvesterSettings, store: HarvestStore, published: Published, replay: Replay
) -> None:
    paced = _settings(settings, replay, ["cs"]).model_copy(update={"arxiv_min_request_interval_s": 1.0})
    clock = Clock(ANNOUNCED - dt.timedelta(seconds=30))
    async with httpx.AsyncClient(timeout=10) as client:
        built = build_sources(["arxiv", "arxiv_feed"], paced, client)
        feed, oai = built["arxiv_feed"][0], built["arxiv"][0]
        assert isinstance(feed, ArxivAnnouncementSource) and isinstance(oai, ArxivOaiSource)
        assert feed.fetcher is oai.fetcher  # one limiter for both: arXiv's pace is the client's, not a source's
        shared = feed.fetcher.limiter
        assert shared is not None and (shared.max_rate, shared.time_period) == (1, 1.0)
        granted = note_grants(feed.fetcher)
        feed.clock, feed.sleep = clock, clock.sleep
        statuses = await asyncio.gather(
            *(run_source(built[name][0], store, published.publish_raw, published.publish_status) for name in built)
        )
    assert [s.state for s in statuses] == ["finished", "finished"], [s.error for s in statuses]
    arxiv = [r for r in replay.requests() if r["path"] in ("/oai", "/atom/cs")]
    assert {r["path"] for r in arxiv} == {"/oai", "/atom/cs"} and len(arxiv) == 5  # 3 OAI pages, 2 feed rounds
    assert len(granted.moments) == 5
    gaps = pace_gaps(granted.moments)
    assert min(gaps) >= 0.999, gaps  # one request a second across both (arXiv asks one per 3 s: the default)
