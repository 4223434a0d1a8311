"""Announcement → searchable and announcement → a follower's webhook, per paper, for a real day's batch, on a local
stack this script starts itself (servers and the normalizer, summarizer, matcher and query services on free ports).

The batch: the May 2026 corpus's last six days (2026-05-26..31), their 957 distinct ids as one evening's `cs`
announcement (about a weekday's 1,000 cs papers; no single corpus file holds 1,000, the largest has 355, and the
weekend's files re-list Friday's). Each corpus line is turned into an entry of arXiv's Atom feed in the shape of
its documentation (arXiv/arxiv-docs `atom_specifications.md`, as the test fixtures
tests/fixtures/harvester/arxiv_feed/ are: id with version, title, summary "Announce Type: new", categories,
published, `arxiv:announce_type`, `dc:creator`). The corpus has no versions: every entry is v1, announced `new`.

The replay server serves yesterday's batch (tests/fixtures/harvester/arxiv_feed/yesterday.xml) at the watcher's
first request and the day's batch from its second: the announcement is taken to happen right after the first
answer (the worst case for the watcher: a whole ARXIV_FEED_POLL_S until it looks again). The watcher is the
harvester's own (ArxivAnnouncementSource through the runner and the harvester's publishers, at arXiv's pace of
one request per 3 s), run in this process on a clock set to 20:00 US Eastern.

Per paper: announcement → the watcher has the batch (fetched and parsed) → published (broker acknowledged) →
stored by the normalizer (the paper's first_seen) → searchable (first listed by the query API, polled every
0.5 s) and → the follower's webhook received (a user's keyword follow matching most papers, its webhook a local
receiver; WEBHOOK_ALLOWED_HOSTS=127.0.0.1 as an operator allows an on-premises one). Printed: p50 / p99 / max of
each, each stage's share of the mean, the machine and its load average.

    uv run python bench/announce_latency.py [--poll 60] [--within 900]
"""

import argparse
import asyncio
import datetime as dt
import gzip
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from pymongo import MongoClient  # noqa: E402

from papertrail_tools import stack  # noqa: E402
from schemas.events import RawRecord  # noqa: E402
from services.harvester.announcements import announcement_at  # noqa: E402
from services.harvester.http import PoliteFetcher  # noqa: E402
from services.harvester.manual import harvesting  # noqa: E402
from services.harvester.runner import run_source  # noqa: E402
from services.harvester.scheduler import make_http_client  # noqa: E402
from services.harvester.settings import HarvesterSettings  # noqa: E402
from services.harvester.sources.arxiv_feed import ArxivAnnouncementSource  # noqa: E402
from tests.support.drills import Pipeline, pipeline_env  # noqa: E402
from tests.support.paths import FIXTURES  # noqa: E402
from tests.support.replay import replay_server  # noqa: E402
from tests.support.servers import free_port, stack_on_free_ports  # noqa: E402
from tests.support.services import create_user  # noqa: E402
from tests.support.waiting import wait_until  # noqa: E402

CORPUS = FIXTURES / "corpus/arxiv-daily-2026-05"  # /work/shared/corpus's May 2026, copied (its ORIGIN.md)
DAYS = [f"2026-05-{day}" for day in range(26, 32)]
YESTERDAY = FIXTURES / "harvester/arxiv_feed/yesterday.xml"
YESTERDAY_IDS = ["2203.01250v3"]
EVENING = dt.date(2026, 6, 1)  # a Monday: 20:00 EDT
FOLLOW_QUERY = "model OR learning OR data OR method OR network"


def corpus_day_lines() -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for day in DAYS:
        with gzip.open(CORPUS / f"{day}_AI_enhanced_Chinese.jsonl.gz", "rt", encoding="utf-8") as lines:
            for line in lines:
                paper = json.loads(line)
                seen.setdefault(paper["id"], paper)
    return list(seen.values())


def atom_feed(papers: list[dict[str, Any]], built: dt.datetime) -> str:
    """The papers as arXiv's Atom feed of a category (the documented shape of tests/fixtures/harvester/arxiv_feed)."""
    published = EVENING.isoformat() + "T00:00:00-04:00"
    updated = built.isoformat()
    entries = []
    for p in papers:
        categories = "".join(f'\n    <category term="{escape(c)}"/>' for c in p["categories"])
        entries.append(
            f"""  <entry>
    <id>oai:arXiv.org:{p["id"]}v1</id>
    <title>{escape(" ".join(p["title"].split()))}</title>
    <updated>{updated}</updated>
    <link href="https://arxiv.org/abs/{p["id"]}" rel="alternate" type="text/html"/>
    <summary>arXiv:{p["id"]}v1 Announce Type: new
Abstract: {escape(" ".join(p["summary"].split()))}</summary>{categories}
    <published>{published}</published>
    <arxiv:announce_type>new</arxiv:announce_type>
    <dc:creator>{escape(", ".join(p["authors"]))}</dc:creator>
  </entry>"""
        )
    return (
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/">\n'
        "  <id>http://rss.arxiv.org/atom/</id>\n  <title>cs updates on arXiv.org</title>\n"
        f"  <updated>{updated}</updated>\n"
        '  <link href="http://rss.arxiv.org/atom/cs" rel="self" type="application/atom+xml"/>\n'
        "  <subtitle>cs updates on the arXiv.org e-print archive.</subtitle>\n" + "\n".join(entries) + "\n</feed>\n"
    )


class TimedFetcher(PoliteFetcher):
    """The harvester's fetcher, noting when each answer came (wall time)."""

    answered: list[float]

    async def get(
        self, url: str, params: Any = None, headers: Any = None, *, missing_ok: bool = False
    ) -> httpx.Response:
        response = await super().get(url, params, headers, missing_ok=missing_ok)
        self.answered.append(time.time())
        return response


class Receiver:
    """A follower's webhook: the time each matched paper's first delivery arrived."""

    def __init__(self) -> None:
        self.received: dict[str, float] = {}
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                at = time.time()
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                paper_id = json.loads(body)["match"]["paper_id"]
                received.setdefault(paper_id, at)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def searchable_times(query_url: str, expected: set[str], within: float) -> dict[str, float]:
    """When each paper is first listed by the query API (polled every 0.5 s, newest ingested first)."""
    seen: dict[str, float] = {}
    deadline = time.time() + within
    with httpx.Client(base_url=query_url, timeout=30) as http:
        while len(seen) < len(expected) and time.time() < deadline:
            page = 1
            while True:
                hits = http.get("/api/papers", params={"size": 100, "page": page, "sort": "ingested"}).json()["hits"]
                now = time.time()
                for hit in hits:
                    seen.setdefault(hit["paper_id"], now)
                if len(hits) < 100:
                    break
                page += 1
            time.sleep(0.5)
    return {k: v for k, v in seen.items() if k in expected}


def quantiles(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered):6.1f} s · p99 {p99:6.1f} s · max {ordered[-1]:6.1f} s"


async def watch(settings: HarvesterSettings, poll_s: float, published: list[float]) -> tuple[float, float, int]:
    """The watcher over the replay server from 19:59:59 US Eastern: (announced, batch in hand, records)."""
    fake_start = announcement_at(EVENING) - dt.timedelta(seconds=1)
    real_start = time.monotonic()

    def clock() -> dt.datetime:
        return fake_start + dt.timedelta(seconds=time.monotonic() - real_start)

    http = make_http_client(settings)
    try:
        fetcher = TimedFetcher(
            http, min_interval_s=settings.arxiv_min_request_interval_s, retries=3, retry_after_max_s=60
        )
        fetcher.answered = []
        source = ArxivAnnouncementSource(settings, fetcher, clock=clock)
        async with harvesting(settings) as context:
            await context.store.save_checkpoint(
                source.name, {"categories": {"cs": {"updated": None, "ids": YESTERDAY_IDS}}}
            )

            async def publish_raw(records: list[tuple[RawRecord, str]]) -> None:
                await context.publishers.publish_raw(records)
                published.append(time.time())

            status = await run_source(source, context.store, publish_raw, context.publishers.publish_status)
    finally:
        await http.aclose()
    assert status.state == "finished", status.error
    return fetcher.answered[0], fetcher.answered[1], status.records


def run(poll_s: float, within: float) -> None:
    papers = corpus_day_lines()
    expected = {f"arxiv:{p['id']}" for p in papers}
    with tempfile.TemporaryDirectory() as folder, ExitStack() as replaying:
        base = Path(folder)
        replay_dir = base / "replay"
        (replay_dir / "feed").mkdir(parents=True)
        shutil.copy(YESTERDAY, replay_dir / "feed/yesterday.xml")
        built = dt.datetime.combine(EVENING, dt.time(0, 0), tzinfo=dt.UTC) + dt.timedelta(days=1)
        (replay_dir / "feed/day.xml").write_text(atom_feed(papers, built), encoding="utf-8")
        routes = [
            {
                "path": "/atom/cs",
                "files": ["feed/yesterday.xml", "feed/day.xml"],
                "content_type": "application/atom+xml",
            }
        ]
        (replay_dir / "replay.json").write_text(json.dumps({"routes": routes}), encoding="utf-8")
        settings_stack = stack_on_free_ports(base / "stack")
        replay_url = replaying.enter_context(replay_server(replay_dir)).url
        pipeline = None
        receiver = Receiver()
        try:
            stack.up(settings_stack, log=lambda line: None)
            env = pipeline_env(
                settings_stack.environment(),
                WEBHOOK_ALLOWED_HOSTS="127.0.0.1",
                DIGEST_ENABLED="false",
                LOG_LEVEL="WARNING",
            )
            pipeline = Pipeline(env, base)
            pipeline.start(("normalizer", "summarizer", "matcher", "query"))
            token = create_user(env, "bench")
            follow = httpx.post(
                pipeline.services["query"].url("/api/follows"),
                headers={"Authorization": f"Bearer {token}"},
                json={
                    "kind": "keyword",
                    "name": "most",
                    "query": FOLLOW_QUERY,
                    "fields": "both",
                    "webhook_url": receiver.url,
                },
                timeout=30,
            )
            assert follow.status_code == 201, follow.text
            time.sleep(2)  # the matcher reads follows.changed.v1 before the batch comes

            os.environ.update(env)
            settings = HarvesterSettings(
                arxiv_feed_url=f"{replay_url}/atom",
                arxiv_feed_categories=["cs"],
                arxiv_feed_poll_s=poll_s,
                arxiv_feed_watch_s=3600,
            )
            published: list[float] = []
            result: dict[str, Any] = {}
            watcher = threading.Thread(
                target=lambda: result.update(watch=asyncio.run(watch(settings, poll_s, published)))
            )
            watcher.start()
            searchable = searchable_times(pipeline.services["query"].url(""), expected, within)
            watcher.join()
            wait_until(lambda: _settled_hooks(receiver), timeout=120, interval=1, what="webhooks settled")
            announced, in_hand, records = result["watch"]
            mongo: MongoClient = MongoClient(env["MONGODB_URL"], tz_aware=True)
            stored = {
                d["_id"]: d["first_seen"].timestamp()
                for d in mongo[env["MONGODB_DATABASE"]].papers.find(
                    {"_id": {"$in": sorted(expected)}}, {"first_seen": 1}
                )
            }
            mongo.close()
        finally:
            receiver.server.shutdown()
            if pipeline is not None:
                pipeline.stop()
            stack.down(settings_stack, log=lambda line: None)
    report(papers, records, announced, in_hand, published[0], stored, searchable, receiver.received, poll_s)


def _settled_hooks(receiver: Receiver, last: list[int] = []) -> bool:  # noqa: B006 (a counter across polls)
    count = len(receiver.received)
    settled = bool(last) and last[-1] == count
    last.append(count)
    return settled


def report(
    papers: list[dict[str, Any]],
    records: int,
    announced: float,
    in_hand: float,
    acked: float,
    stored: dict[str, float],
    searchable: dict[str, float],
    hooks: dict[str, float],
    poll_s: float,
) -> None:
    load = os.getloadavg()
    print(f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, {os.cpu_count()} cores (shared)")
    print(f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(f"batch: {len(papers):,} papers of {', '.join(DAYS)} as one announcement; {records:,} records published")
    print(f"watcher: ARXIV_FEED_POLL_S={poll_s:g}; batch in hand {in_hand - announced:.1f} s after the announcement,")
    print(f"         acknowledged by the broker {acked - announced:.1f} s after it")
    to_stored = [stored[k] - announced for k in stored]
    to_search = [searchable[k] - announced for k in searchable]
    print(f"stored (normalizer)   {len(to_stored):5,}: {quantiles(to_stored)}")
    print(f"searchable (API)      {len(to_search):5,}: {quantiles(to_search)}")
    if hooks:
        to_hook = [hooks[k] - announced for k in hooks]
        print(f"webhook received      {len(to_hook):5,}: {quantiles(to_hook)}")
    both = [k for k in searchable if k in stored]
    stages = {
        "poll wait + feed fetched and parsed": [in_hand - announced] * len(both),
        "published (broker ack)": [acked - in_hand] * len(both),
        "ack → stored (normalizer)": [stored[k] - acked for k in both],
        "stored → searchable (summarizer, query)": [searchable[k] - stored[k] for k in both],
    }
    total = sum(statistics.mean(v) for v in stages.values())
    print("share of the mean announcement → searchable:")
    for name, values in stages.items():
        print(f"  {name:42} {statistics.mean(values):6.1f} s  {100 * statistics.mean(values) / total:5.1f} %")
    print(
        "baseline, OAI-PMH alone (ARXIV_INTERVAL_S=3600; not measured here): arXiv serves a day's records about 2 h"
        " after the announcement, the next hourly run up to 1 h later: 2-3 h plus the stages after the broker"
    )
    if hooks:
        matched = [k for k in hooks if k in searchable]
        after = [hooks[k] - stored[k] for k in matched if k in stored]
        print(f"  stored → webhook received (summarizer, matcher): mean {statistics.mean(after):.1f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--poll", type=float, default=60, help="ARXIV_FEED_POLL_S of the watcher (default: its own)")
    parser.add_argument("--within", type=float, default=900, help="seconds to wait for every paper to be searchable")
    args = parser.parse_args()
    run(args.poll, args.within)
