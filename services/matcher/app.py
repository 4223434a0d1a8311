"""Matcher service: papers.enriched.v1 → follows it satisfies → matches → follows.matched.v1, webhooks, digests;
papers.withdrawn.v1 → the paper's matches deleted."""

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Annotated, Any

import httpx
from faststream import Context, ContextRepo
from faststream.asgi import AsgiFastStream
from faststream.kafka.annotations import KafkaMessage

from papertrail.kafka import (
    DeadLetterPolicy,
    batch_options,
    consumer_options,
    ensure_topics,
    make_broker,
    publish_confirmed,
)
from papertrail.lag import LagMonitor, watched_groups
from papertrail.logs import configure_logging
from papertrail.mongo import database, make_mongo_client, ping
from papertrail.search import make_search_client
from papertrail.service import Readiness, health_routes, load_settings
from schemas import topics
from schemas.events import Follow, FollowChanged, FollowMatched, PaperEnriched, PaperWithdrawn
from services.matcher.backfill import Backfiller
from services.matcher.catalogue import load_catalogue
from services.matcher.delivery import DigestMaker, WebhookSender, webhook_target
from services.matcher.metrics import FOLLOWS, MATCH_LAG_SECONDS, MATCH_SECONDS, PAPERS_MATCHED
from services.matcher.recorder import BackfillRunner, MatchRecorder
from services.matcher.rules import FollowIndex, PaperText, follow_matched, topics_by_id
from services.matcher.settings import MatcherSettings
from services.matcher.store import MatchStore

SERVICE = "matcher"
settings = load_settings(MatcherSettings, SERVICE)
log = configure_logging(SERVICE, settings)
broker = make_broker(settings, SERVICE)
readiness = Readiness()

matched = broker.publisher(topics.FOLLOWS_MATCHED, schema=FollowMatched, description="a paper satisfies a follow")


def count_follows(index: FollowIndex) -> None:
    for kind, count in index.count_by_kind().items():
        FOLLOWS.labels(kind).set(count)


async def publish_matches(matches: list[FollowMatched]) -> None:
    await publish_confirmed(matched, [(match, match.paper_id) for match in matches])


async def digest_loop(maker: DigestMaker) -> None:
    while True:
        try:
            await maker.run_once()
        except Exception:
            log.exception("digest run failed; trying again at the next interval")
        await asyncio.sleep(settings.digest_check_interval_s)


@asynccontextmanager
async def lifespan(context: ContextRepo) -> AsyncIterator[None]:
    await ensure_topics(
        settings, [topics.PAPERS_ENRICHED, topics.PAPERS_WITHDRAWN, topics.FOLLOWS_CHANGED, topics.FOLLOWS_MATCHED]
    )
    mongo = make_mongo_client(settings, SERVICE)
    search = make_search_client(settings)
    http = httpx.AsyncClient(follow_redirects=False)
    store = MatchStore(database(mongo, settings))
    await store.ensure_indexes()
    index = FollowIndex(topics=topics_by_id(load_catalogue()))
    for follow in await store.all_follows():
        try:
            index.upsert(follow)
        except ValueError as error:
            log.warning("stored follow does not compile; skipped", extra={"follow_id": follow.id, "error": str(error)})
    count_follows(index)
    recorder = MatchRecorder(store, publish_matches)
    backfiller = Backfiller(
        search, settings.index_name, store, settings.backfill_days, settings.backfill_max_hits_per_term
    )
    backfills = BackfillRunner(index, backfiller, recorder, store, settings.backfill_stale_s, settings.backfill_retry_s)
    digests = asyncio.create_task(digest_loop(DigestMaker(store, settings))) if settings.digest_enabled else None
    context.set_global("matches", store)
    context.set_global("follow_index", index)
    context.set_global("recorder", recorder)
    context.set_global("backfills", backfills)
    context.set_global("webhooks", WebhookSender(store, http, settings))
    readiness.add("kafka", lambda: broker.ping(timeout=3))
    readiness.add("mongodb", lambda: ping(mongo))
    lag = LagMonitor(settings, SERVICE, watched_groups(broker.subscribers)).start()  # papertrail_consumer_lag
    try:
        yield
    finally:
        await lag.stop()
        if digests is not None:
            digests.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await digests
        await backfills.stop()
        await http.aclose()
        await search.aclose()
        await mongo.close()


@broker.subscriber(topics.FOLLOWS_CHANGED, **consumer_options(SERVICE, shared=False))
async def on_follow_changed(
    event: FollowChanged,
    follow_index: Annotated[FollowIndex, Context()],
    backfills: Annotated[BackfillRunner, Context()],
) -> None:
    """Keep the in-memory follow index in step with the query service's follows; backfill new ones."""
    if event.action == "deleted" or event.follow is None:
        follow_index.remove(event.follow_id)
    else:
        compiled = follow_index.upsert(event.follow)  # ValueError → dead letter; the API rejects these first
        if event.action == "created":
            backfills.start(compiled)
    count_follows(follow_index)


@broker.subscriber(
    topics.PAPERS_ENRICHED, **batch_options(SERVICE, settings.match_batch_size, settings.match_batch_wait_ms)
)
async def on_papers_enriched(
    body: list[Any],
    message: KafkaMessage,
    follow_index: Annotated[FollowIndex, Context()],
    recorder: Annotated[MatchRecorder, Context()],
    dead_letters: Annotated[DeadLetterPolicy, Context()],
) -> None:
    """Record and announce every follow each paper of the batch satisfies, once per follow; bad records are
    parked. Offsets are committed after the whole batch is stored and announced."""
    valid = await dead_letters.keep_valid(message.raw_message, PaperEnriched)  # type: ignore[arg-type]
    now = datetime.now(UTC)
    matches: list[FollowMatched] = []
    for _, event in valid:
        started = time.perf_counter()
        hits = follow_index.match(PaperText.of(event.paper))
        MATCH_SECONDS.observe(time.perf_counter() - started)
        matches += [follow_matched(follow, event.paper.id, event.paper.title, reasons, now) for follow, reasons in hits]
    await recorder.record(matches)
    done = datetime.now(UTC)
    PAPERS_MATCHED.inc(len(valid))
    for _, event in valid:
        if event.harvested_at is not None:
            MATCH_LAG_SECONDS.observe((done - event.harvested_at).total_seconds())


# a group of its own, so withdrawals never rebalance the papers consumer (docs/events.md)
@broker.subscriber(topics.PAPERS_WITHDRAWN, **consumer_options(f"{SERVICE}-withdrawals"))
async def on_paper_withdrawn(event: PaperWithdrawn, matches: Annotated[MatchStore, Context()]) -> None:
    """A withdrawn paper matches no follow any more: its matches go (already sent webhooks and digests stay sent)."""
    await matches.forget_paper(event.paper_id)


@broker.subscriber(
    topics.FOLLOWS_MATCHED,
    **batch_options(f"{SERVICE}-webhooks", settings.match_batch_size, settings.match_batch_wait_ms),
)
async def on_follows_matched(
    body: list[Any],
    message: KafkaMessage,
    follow_index: Annotated[FollowIndex, Context()],
    matches: Annotated[MatchStore, Context()],
    webhooks: Annotated[WebhookSender, Context()],
    dead_letters: Annotated[DeadLetterPolicy, Context()],
) -> None:
    """POST each match of a batch to the follow's or the user's webhook, if there is one, in order; the owners of
    follows without their own webhook are read in one query per batch."""
    valid = await dead_letters.keep_valid(message.raw_message, FollowMatched)  # type: ignore[arg-type]
    wanted: list[tuple[FollowMatched, Follow]] = []
    for _, event in valid:
        compiled = follow_index.follows.get(event.follow_id)
        if compiled is not None:  # None: unfollowed since
            wanted.append((event, compiled.follow))
    owners = await matches.users_by_id(sorted({e.user_id for e, follow in wanted if not follow.webhook_url}))
    for event, follow in wanted:
        target = webhook_target(follow, owners.get(event.user_id))
        if target is not None:
            await webhooks.deliver(event, target)


app = AsgiFastStream(broker, lifespan=lifespan, asgi_routes=health_routes(readiness), logger=log)
