"""`papertrail smoke`: what a new reader and an operator see, checked on a running deployment.

In order, each with a condition and a deadline (no fixed pauses): every service answers /readyz; the normalizer has
read every raw record harvested before the check; the papers it stored (the canonical `papers` collection, which a
withdrawn paper leaves), or `--expect-papers N`, are all in the search index; the home page, a paper's page, a
search (API and page), a topic's page and its Atom feed answer 200 and show a real paper's title; a listed paper
with an AI 导读 shows it on its page, and no paper page shows a reader the operator's setup steps; no dead letter is
parked; the index has no failed Meilisearch task. Every failure says what was missing; the exit code is 1 if any.

The verdicts are pure functions (tested without servers); `run_smoke` does the I/O.
"""

import asyncio
import html
import json
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import quote, urlencode

import httpx
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from papertrail.runtime import dlq
from papertrail.runtime.collections import PAPERS
from papertrail.runtime.kafka import consumer_options
from papertrail.runtime.mongo import make_mongo_client
from papertrail.runtime.search import make_search_client
from papertrail.runtime.settings import PaperIndexSettings
from schemas.topics import HARVEST_RAW

T = TypeVar("T")
NORMALIZER_GROUP = consumer_options("normalizer")["group_id"]
SHOWN = 3  # dead letters and failed tasks named in a failure; the count says how many more


@dataclass(frozen=True)
class Verdict:
    check: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class Page:
    """One answer of the query service: its status, body and content type."""

    url: str
    status: int
    body: str
    content_type: str = ""

    def hits(self) -> list[dict[str, Any]]:
        """The papers a 200 JSON listing of the API holds (`hits`); none for any other answer."""
        if self.status != 200:
            return []
        try:
            hits = json.loads(self.body).get("hits", [])
        except (ValueError, AttributeError):
            return []
        return [hit for hit in hits if isinstance(hit, dict)] if isinstance(hits, list) else []


# The pure part: verdicts from what was seen.


def readiness(states: Mapping[str, str | None], waited_s: float) -> Verdict:
    """`states`: service → None when its /readyz answered 200, else what it answered."""
    waiting = {name: why for name, why in states.items() if why is not None}
    if not waiting:
        return Verdict("ready", True, f"{len(states)} services ready ({', '.join(states)}) after {waited_s:.0f} s")
    named = "; ".join(f"{name}: {why}" for name, why in waiting.items())
    detail = f"{len(waiting)} of {len(states)} services not ready after {waited_s:.0f} s: {named}"
    return Verdict("ready", False, detail)


def records_behind(ends: Mapping[TopicPartition, int], committed: Mapping[TopicPartition, int]) -> int:
    """How many records of `ends` (offsets read at the start) the group has not committed yet."""
    return sum(max(0, end - committed.get(partition, 0)) for partition, end in ends.items())


def caught_up(behind: int, waited_s: float) -> Verdict:
    if behind == 0:
        return Verdict("normalized", True, f"the normalizer has read every harvested record ({waited_s:.0f} s)")
    return Verdict(
        "normalized",
        False,
        f"the normalizer is still {behind} records behind {HARVEST_RAW} after {waited_s:.0f} s "
        "(the papers stored so far are checked below)",
    )


def searchable(indexed: int, expected: int, waited_s: float, whence: str) -> Verdict:
    """`indexed` documents in the index against the `expected` papers (`whence` says where that number came from)."""
    if expected <= 0:
        return Verdict("searchable", False, f"no papers to search: {whence} is 0")
    shown = min(indexed, expected)
    ok = indexed >= expected
    detail = f"{shown} of {expected} papers searchable after {waited_s:.0f} s ({whence})"
    return Verdict("searchable", ok, detail)


_NOT_PLAIN = re.compile(r"[\\$^_{}~]|--")  # TeX the pages may render otherwise than the title's text reads


def plain_paper(hits: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """A listed paper whose title a page shows as it is stored (no TeX to render), to look for in the pages."""
    return next((hit for hit in hits if (title := hit.get("title")) and not _NOT_PLAIN.search(title)), None)


def _folded(text: str) -> str:
    return " ".join(html.unescape(text).split())


def shows(page: Page, title: str) -> bool:
    """Whether the page's text holds the title, escaped in HTML or XML or not."""
    return _folded(title) in _folded(page.body)


def page_verdict(check: str, page: Page | None, title: str, *, content_type: str = "text/html") -> Verdict:
    """The page answered 200 with the expected content type and shows `title`."""
    if page is None:
        return Verdict(check, False, "not asked: no paper to look for")
    if page.status != 200:
        return Verdict(check, False, f"{page.url} answered {page.status}: {page.body[:200]}")
    if not page.content_type.startswith(content_type):
        answered = page.content_type or "no content type"
        return Verdict(check, False, f"{page.url} answered {answered}, not {content_type}")
    if not shows(page, title):
        return Verdict(check, False, f"{page.url} does not show the paper {title!r}")
    return Verdict(check, True, f"{page.url} shows {title!r}")


# What a reader must never read where the AI 导读 goes: the operator's setup steps (they belong on /sources)
OPERATOR_STEPS = ("OPENAI_BASE_URL", "make llm")


def guide_verdict(page: Page | None, hit: Mapping[str, Any] | None) -> Verdict:
    """A listed paper's page shows its AI 导读 (`tldr_zh`) when it has one, and no operator setup steps either way."""
    if page is None or hit is None:
        return Verdict("AI 导读", False, "not asked: no paper to look for")
    if page.status != 200:
        return Verdict("AI 导读", False, f"{page.url} answered {page.status}: {page.body[:200]}")
    if steps := [words for words in OPERATOR_STEPS if words in page.body]:
        return Verdict("AI 导读", False, f"{page.url} shows the operator's setup ({', '.join(steps)}) to readers")
    guide = hit.get("tldr_zh")
    if guide and not shows(page, guide):
        return Verdict("AI 导读", False, f"{page.url} does not show the paper's AI 导读 {guide[:40]!r}…")
    return Verdict("AI 导读", True, f"{page.url} shows " + ("its AI 导读" if guide else "that it has none yet"))


def search_verdict(page: Page, paper_id: str) -> Verdict:
    """The API's search for a paper's title lists that paper."""
    if page.status != 200:
        return Verdict("search", False, f"{page.url} answered {page.status}: {page.body[:200]}")
    ids = [hit.get("paper_id") for hit in page.hits()]
    if paper_id not in ids:
        return Verdict("search", False, f"{page.url} does not list {paper_id} (it lists {len(ids)} others)")
    return Verdict("search", True, f"{page.url} lists {paper_id}")


def dead_letters_verdict(letters: Sequence[dlq.DeadLetter]) -> Verdict:
    if not letters:
        return Verdict("dead letters", True, "no dead letter parked")
    letters = sorted(letters, key=lambda letter: (letter.topic, letter.partition, letter.offset))  # as read, per topic
    shown = "\n".join(dlq.format_letter(letter) for letter in letters[:SHOWN])
    more = f"\n  … and {len(letters) - SHOWN} more (`papertrail dlq list`)" if len(letters) > SHOWN else ""
    return Verdict("dead letters", False, f"{len(letters)} dead letter(s) parked:\n{shown}{more}")


@dataclass(frozen=True)
class FailedTask:
    uid: int
    kind: str
    error: str


def failed_tasks_verdict(index: str, total: int, examples: Sequence[FailedTask]) -> Verdict:
    if total == 0:
        return Verdict("search tasks", True, f"no failed Meilisearch task on index {index}")
    shown = "\n".join(f"    task {t.uid} ({t.kind}): {' '.join(t.error.split())[:300]}" for t in examples[:SHOWN])
    return Verdict("search tasks", False, f"{total} failed Meilisearch task(s) on index {index}, latest:\n{shown}")


def line(verdict: Verdict) -> str:
    return f"{'ok  ' if verdict.ok else 'FAIL'} {verdict.check}: {verdict.detail}"


def report(verdicts: Sequence[Verdict]) -> tuple[str, int]:
    """The lines to print and the exit code: 1 when any check failed."""
    lines = [line(v) for v in verdicts]
    failed = [v.check for v in verdicts if not v.ok]
    if failed:
        lines.append(f"smoke: {len(failed)} of {len(verdicts)} checks failed: {', '.join(failed)}")
    else:
        lines.append(f"smoke: all {len(verdicts)} checks passed")
    return "\n".join(lines), 1 if failed else 0


async def wait_for(
    probe: Callable[[], Awaitable[tuple[bool, T]]],
    timeout_s: float,
    interval_s: float = 1.0,
    clock: Callable[[], float] = time.monotonic,
    pause: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> tuple[bool, T, float]:
    """Probe until it says done or `timeout_s` passed; (done, its last value, seconds waited). A probe always runs
    at least once, and once more at the deadline."""
    started = clock()
    while True:
        done, value = await probe()
        waited = clock() - started
        if done or waited >= timeout_s:
            return done, value, waited
        await pause(min(interval_s, max(0.0, timeout_s - waited)))


# The I/O part.


@dataclass
class SmokeOptions:
    base_url: str  # the query service: API and pages
    service_urls: dict[str, str]  # every service's base URL, for /readyz (the query service's is base_url)
    expect_papers: int | None = None  # None: the papers the normalizer stored
    ready_timeout_s: float = 120
    searchable_timeout_s: float = 300
    request_timeout_s: float = 30
    log: Callable[[str], None] = field(default=print)


async def _get(client: httpx.AsyncClient, url: str) -> Page:
    try:
        response = await client.get(url)
    except httpx.HTTPError as error:
        return Page(url, 0, f"{type(error).__name__}: {error}")
    return Page(url, response.status_code, response.text, response.headers.get("content-type", ""))


def _not_ready(page: Page) -> str | None:
    """None for a 200; else the status and body (which names the failing check), or why nothing answered."""
    if page.status == 200:
        return None
    return f"HTTP {page.status} {page.body[:200]}" if page.status else page.body


async def _readiness(client: httpx.AsyncClient, urls: Mapping[str, str], timeout_s: float) -> Verdict:
    async def probe() -> tuple[bool, dict[str, str | None]]:
        pages = await asyncio.gather(*(_get(client, f"{url}/readyz") for url in urls.values()))
        states = {name: _not_ready(page) for name, page in zip(urls, pages, strict=True)}
        return all(state is None for state in states.values()), states

    _, states, waited = await wait_for(probe, timeout_s)
    return readiness(states, waited)


async def _normalizer_caught_up(settings: PaperIndexSettings, timeout_s: float) -> Verdict:
    """Waits until the normalizer's group has committed every harvest.raw.v1 record there was when it began."""
    bootstrap = settings.kafka_bootstrap_servers.split(",")
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await admin.start()
    await consumer.start()
    try:
        described = await admin.describe_topics([HARVEST_RAW])
        partitions = [
            TopicPartition(HARVEST_RAW, p["partition"])
            for t in described
            if not t.get("error_code")
            for p in t["partitions"]
        ]
        ends = await consumer.end_offsets(partitions) if partitions else {}

        async def probe() -> tuple[bool, int]:
            offsets = await admin.list_consumer_group_offsets(NORMALIZER_GROUP)
            behind = records_behind(ends, {tp: meta.offset for tp, meta in offsets.items() if meta.offset >= 0})
            return behind == 0, behind

        _, behind, waited = await wait_for(probe, timeout_s)
        return caught_up(behind, waited)
    finally:
        await asyncio.sleep(0.01)  # as in papertrail/runtime/dlq.py: aiokafka's stop() right after start() can raise
        await consumer.stop()
        await admin.close()


async def _searchable(settings: PaperIndexSettings, options: SmokeOptions, timeout_s: float) -> Verdict:
    mongo = make_mongo_client(settings)
    search = make_search_client(settings)
    try:
        if options.expect_papers is not None:
            expected, whence = options.expect_papers, "as --expect-papers says"
        else:
            expected = await mongo[settings.mongodb_database][PAPERS.name].count_documents({})
            whence = f"the papers the normalizer stored in {settings.mongodb_database}.{PAPERS.name}"
        index = search.index(settings.index_name)

        async def probe() -> tuple[bool, int]:
            try:
                indexed = (await index.get_stats()).number_of_documents
            except Exception:  # the index may not exist yet
                indexed = 0
            return indexed >= expected > 0, indexed

        _, indexed, waited = await wait_for(probe, timeout_s, interval_s=2.0)
        return searchable(indexed, expected, waited, whence)
    finally:
        await search.aclose()
        await mongo.close()


async def _pages(client: httpx.AsyncClient, base: str) -> list[Verdict]:
    """The home page, a paper's page, a search (API and page), a topic's page and its Atom feed, each showing a real
    paper's title."""
    listing = await _get(client, f"{base}/api/papers")  # the home page lists the same, by the same defaults
    hits = listing.hits()
    paper = plain_paper(hits)
    if paper is None:
        why = f"{listing.url} answered {listing.status}" if listing.status != 200 else f"{listing.url} lists no paper"
        return [Verdict("pages", False, f"{why} with a title to look for")]
    title, paper_id = paper["title"], paper["paper_id"]
    verdicts = [page_verdict("home page", await _get(client, f"{base}/"), title)]
    paper_page = await _get(client, f"{base}/papers/{quote(paper_id, safe=':/')}")
    verdicts.append(page_verdict("paper page", paper_page, title))
    guided = next((hit for hit in hits if hit.get("tldr_zh")), None)  # the demo's community 导读, or ours
    if guided is None or guided["paper_id"] == paper_id:
        verdicts.append(guide_verdict(paper_page, guided or paper))
    else:
        guided_page = await _get(client, f"{base}/papers/{quote(guided['paper_id'], safe=':/')}")
        verdicts.append(guide_verdict(guided_page, guided))
    search = urlencode({"q": title})
    verdicts.append(search_verdict(await _get(client, f"{base}/api/papers?{search}&size=50"), paper_id))
    verdicts.append(page_verdict("search page", await _get(client, f"{base}/?{search}"), title))
    return verdicts + await _topic_pages(client, base, [t for hit in hits for t in hit.get("topic_ids", [])])


async def _topic_pages(client: httpx.AsyncClient, base: str, hit_topics: list[str]) -> list[Verdict]:
    """A topic's page and feed, of a topic the listed papers hit, else of the first catalogue topic with papers."""
    candidates = hit_topics[:1]
    if not candidates:
        catalogue = await _get(client, f"{base}/api/topics")
        candidates = [t["id"] for t in json.loads(catalogue.body)] if catalogue.status == 200 else []
    for topic_id in candidates:
        # the topic's page (20) and its feed (50) list its newest papers first, as its API listing does
        topic_paper = plain_paper((await _get(client, f"{base}/api/topics/{topic_id}/papers?size=20")).hits())
        if topic_paper is not None:
            break
    else:
        return [Verdict("topic page", False, f"no paper to look for under the topics {candidates}")]
    newest = topic_paper["title"]
    verdicts = [page_verdict("topic page", await _get(client, f"{base}/topics/{topic_id}"), newest)]
    feed = await _get(client, f"{base}/feeds/topics/{topic_id}.atom")
    return [*verdicts, page_verdict("topic feed", feed, newest, content_type="application/atom+xml")]


async def _dead_letters(settings: PaperIndexSettings) -> Verdict:
    letters, _ = await dlq.read_dead_letters(settings, None)
    return dead_letters_verdict(letters)


async def _failed_tasks(settings: PaperIndexSettings) -> Verdict:
    search = make_search_client(settings)
    try:
        found = await search.get_tasks(index_ids=[settings.index_name], statuses="failed", limit=SHOWN)
    finally:
        await search.aclose()
    examples = [
        FailedTask(task.uid, str(task.task_type), str((task.error or {}).get("message", task.error)))
        for task in found.results
    ]
    return failed_tasks_verdict(settings.index_name, found.total or len(examples), examples)


async def run_smoke(options: SmokeOptions, settings: PaperIndexSettings) -> int:
    """Run every check, printing each verdict as it comes; the exit code (0: all passed)."""
    verdicts: list[Verdict] = []

    def record(verdict: Verdict) -> None:
        verdicts.append(verdict)
        options.log(line(verdict))

    async with httpx.AsyncClient(timeout=options.request_timeout_s) as client:
        record(await _readiness(client, options.service_urls, options.ready_timeout_s))
        if not verdicts[-1].ok:
            options.log("smoke: stopped, the other checks need every service ready")
            return 1
        started = time.monotonic()
        if options.expect_papers is None:  # the count is the normalizer's once it has read what was harvested
            record(await _normalizer_caught_up(settings, options.searchable_timeout_s))
        left = max(0.0, options.searchable_timeout_s - (time.monotonic() - started))
        record(await _searchable(settings, options, left))
        for verdict in await _pages(client, options.base_url):
            record(verdict)
    record(await _dead_letters(settings))
    record(await _failed_tasks(settings))
    text, code = report(verdicts)
    options.log(text.splitlines()[-1])
    return code
