"""Matcher service: papers.enriched.v1 → follows it satisfies → matches → follows.matched.v1, webhooks, digests;
papers.withdrawn.v1 → the paper's matches deleted."""

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any
from urllib.parse import urlencode

import httpx
from faststream import Context
from faststream.asgi import AsgiFastStream
from faststream.kafka.annotations import KafkaMessage

from papertrail.domain.follows.catalogue import load_catalogue
from papertrail.domain.follows.rules import FollowIndex, PaperText, follow_matched, topics_by_id
from papertrail.embedding.backends import open_embedder
from papertrail.runtime.kafka import (
    DeadLetterPolicy,
    StaticMembershipBroker,
    batch_options,
    consumer_options,
    make_broker,
    publish_confirmed,
)
from papertrail.runtime.push.channels import GENERIC
from papertrail.runtime.service import Clients, service_app
from schemas import topics
from schemas.events import Follow, FollowChanged, FollowMatched, PaperEnriched, PaperWithdrawn
from schemas.unchecked import cycles_unchecked
from services.matcher.delivery.digest_mailer import DigestMaker, run_digests
from services.matcher.delivery.dispatcher import WebhookDispatcher, open_webhooks
from services.matcher.delivery.webhook_sender import queued_backfill_summary, queued_delivery, webhook_target
from services.matcher.matching.backfill import Backfiller
from services.matcher.matching.recorder import BackfillRunner, MatchRecorder
from services.matcher.matching.similar import SimilarFollows
from services.matcher.metrics import FOLLOWS, MATCH_LAG_SECONDS, MATCH_SECONDS, PAPERS_MATCHED
from services.matcher.settings import MatcherSettings
from services.matcher.store import MatchStore

SERVICE = "matcher"
NEEDS = ("kafka", "mongodb", "meilisearch")  # checked before the service starts serving; backfills search the index
TOPICS = [topics.PAPERS_ENRICHED, topics.PAPERS_WITHDRAWN, topics.FOLLOWS_CHANGED, topics.FOLLOWS_MATCHED]
log = logging.getLogger(f"papertrail.{SERVICE}")


@dataclass(frozen=True, slots=True)
class MatcherResources:
    """What the handlers work with, opened by the lifespan."""

    store: MatchStore
    follow_index: FollowIndex
    similar: SimilarFollows
    recorder: MatchRecorder
    backfills: BackfillRunner
    webhooks: WebhookDispatcher
    dead_letters: DeadLetterPolicy
    http: httpx.AsyncClient  # the webhooks' client, closed by whoever built these


Resources = Annotated[MatcherResources, Context()]  # what every handler takes, from the lifespan


def count_follows(index: FollowIndex) -> None:
    for kind, count in index.count_by_kind().items():
        FOLLOWS.labels(kind).set(count)


async def load_follow_index(store: MatchStore, index: FollowIndex, similar: SimilarFollows | None = None) -> None:
    """Every stored follow, compiled with the topic catalogue into `index` (and each similar follow held for its
    vectors); one that does not compile is logged and skipped."""
    for follow in await store.all_follows():
        try:
            index.upsert(follow)
        except ValueError as error:
            log.warning("stored follow does not compile; skipped", extra={"follow_id": follow.id, "error": str(error)})
            continue
        if similar is not None and follow.kind == "similar":
            similar.upsert(follow)
    count_follows(index)


async def on_follow_changed(event: FollowChanged, resources: Resources) -> None:
    """Keep the in-memory follow index in step with the query service's follows; backfill new ones."""
    follow_index, similar = resources.follow_index, resources.similar
    if event.action == "deleted" or event.follow is None:
        follow_index.remove(event.follow_id)
        similar.remove(event.follow_id)
        # a batch or a backfill may have matched it since the reader unfollowed (this event comes after them)
        await resources.store.forget_follow(event.follow_id)
    else:
        follow_index.upsert(event.follow)  # ValueError → dead letter; the API rejects these first
        ready = True
        if event.follow.kind == "similar":
            similar.upsert(event.follow)
            await similar.refresh()  # its seeds' vectors, its description's
            ready = similar.ready(event.follow.id)  # if not, backfilled once a seed has a vector (similar_matches_of)
        else:
            similar.remove(event.follow_id)
        start_backfills_of_ready(resources, {event.follow_id} if event.action == "created" and ready else set())
    count_follows(follow_index)


def start_backfills_of_ready(resources: MatcherResources, also: Collection[str] = ()) -> None:
    """Backfill `also` and every similar follow that got a vector since this was last asked, whoever made the refresh
    that found it (a backfill refreshes too). A follow backfilled before is not backfilled again (its claim), unless
    it is a similar follow with more vectors now than its last backfill had: the papers scored meanwhile by only
    some of its seeds are scored by all of them."""
    for follow_id in sorted({*also, *resources.similar.gained_vectors()}):
        if (compiled := resources.follow_index.follows.get(follow_id)) is not None:
            resources.backfills.start(compiled)


async def on_papers_enriched(body: list[Any], message: KafkaMessage, resources: Resources) -> None:
    """Record and announce every follow each paper of the batch satisfies, once per follow; bad records are
    parked. Offsets are committed after the whole batch is stored and announced."""
    valid = await resources.dead_letters.keep_valid(message.raw_message, PaperEnriched)  # type: ignore[arg-type]
    now = datetime.now(UTC)
    matches: list[FollowMatched] = []
    with cycles_unchecked():  # a batch can make ~100,000 events
        for _, event in valid:
            started = time.perf_counter()
            hits = resources.follow_index.match(PaperText.of(event.paper, event.summary))
            MATCH_SECONDS.observe(time.perf_counter() - started)
            matches += [
                follow_matched(follow, event.paper.id, event.paper.title, reasons, now) for follow, reasons in hits
            ]
    matches += await similar_matches_of(resources, [event for _, event in valid], now)
    await resources.recorder.record(matches)
    done = datetime.now(UTC)
    PAPERS_MATCHED.inc(len(valid))
    for _, event in valid:
        if event.harvested_at is not None:
            MATCH_LAG_SECONDS.observe((done - event.harvested_at).total_seconds())


async def similar_matches_of(
    resources: MatcherResources, events: list[PaperEnriched], now: datetime
) -> list[FollowMatched]:
    """The batch's embedded papers scored against every similar follow in one product; a similar follow whose seeds
    got vectors meanwhile is backfilled (again) now. A paper comes again once embedded (docs/events.md), and a
    match recorded before is not recorded twice."""
    similar = resources.similar
    if not len(similar):
        return []
    await similar.refresh()
    start_backfills_of_ready(resources)
    titles = {e.paper.id: e.paper.title for e in events if e.embedding is not None and e.embedding.state == "embedded"}
    return await similar.matched(titles, now)


async def on_paper_withdrawn(event: PaperWithdrawn, resources: Resources) -> None:
    """A withdrawn paper matches no follow any more: its matches go (already sent webhooks and digests stay sent)."""
    await resources.store.forget_paper(event.paper_id)


async def on_follows_matched(body: list[Any], message: KafkaMessage, resources: Resources) -> None:
    """Queue each match of a batch for the follow's or the user's webhook, if there is one (the dispatcher POSTs
    them, concurrently), but a backfill's (its runner queues one summary of them); the owners of follows without
    their own webhook are read in one query per batch. Offsets are committed once the batch is queued, and a match
    queued before is not queued again."""
    valid = await resources.dead_letters.keep_valid(message.raw_message, FollowMatched)  # type: ignore[arg-type]
    wanted: list[tuple[FollowMatched, Follow]] = []
    for _, event in valid:
        compiled = resources.follow_index.follows.get(event.follow_id)
        if compiled is not None and not event.backfill:  # None: unfollowed since; a backfill's: summarized
            wanted.append((event, compiled.follow))
    owners = await resources.store.users_by_id(sorted({e.user_id for e, follow in wanted if not follow.webhook_url}))
    now = datetime.now(UTC)
    queued = [
        queued_delivery(event, target, now, resources.webhooks.public_url)
        for event, follow in wanted
        if (target := webhook_target(follow, owners.get(event.user_id))) is not None
    ]
    if await resources.store.queue_deliveries(queued):
        resources.webhooks.poke()


async def queue_backfill_summary(
    store: MatchStore, webhooks: WebhookDispatcher, public_url: str, follow: Follow, papers: int, at: datetime
) -> None:
    """Queue the one webhook delivery of a follow's backfill (its matches have none of their own), if the follow or
    its owner has a webhook: how many held papers it matched, and a link to the follow's feed."""
    owner = None if follow.webhook_url else await store.user(follow.user_id)
    target = webhook_target(follow, owner)
    if target is None or target.channel != GENERIC:  # a group bot's reader sees them in the follow's feed
        return
    feed_url = f"{public_url.rstrip('/')}/me/feed?{urlencode({'follow_id': follow.id})}"
    summary = queued_backfill_summary(follow, papers, at, feed_url, target, datetime.now(UTC))
    if await store.queue_deliveries([summary]):
        webhooks.poke()


def build_resources(settings: MatcherSettings, clients: Clients, broker: StaticMembershipBroker) -> MatcherResources:
    """What the handlers work with, over the clients and the publisher create_app declared on the broker, with an
    empty follow index: the lifespan's and the tests' one wiring (nothing is read or written here; the lifespan
    loads the stored follows, and whoever built these closes their `http`)."""
    assert clients.search is not None  # NEEDS names meilisearch
    matched = broker.declared_publisher(topics.FOLLOWS_MATCHED)

    async def publish_matches(matches: list[FollowMatched]) -> None:
        await publish_confirmed(matched, [(match, match.paper_id) for match in matches])

    store = MatchStore(clients.db)
    index = FollowIndex(topics=topics_by_id(load_catalogue()))
    similar = SimilarFollows(store, settings.model_key, settings.embedding_dimensions, lambda: open_embedder(settings))
    recorder = MatchRecorder(store, publish_matches)
    backfiller = Backfiller(
        clients.search,
        settings.index_name,
        store,
        settings.backfill_days,
        settings.backfill_max_hits_per_term,
        similar,
        settings.backfill_max_similar_papers,
    )
    webhooks, http = open_webhooks(store, settings)

    async def summarize_backfill(follow: Follow, papers: int, at: datetime) -> None:
        await queue_backfill_summary(store, webhooks, settings.public_url, follow, papers, at)

    backfills = BackfillRunner(
        index, backfiller, recorder, store, settings.backfill_stale_s, settings.backfill_retry_s, summarize_backfill
    )
    return MatcherResources(store, index, similar, recorder, backfills, webhooks, broker.dead_letters, http)


def create_app(settings: MatcherSettings) -> AsgiFastStream:
    """The matcher's broker, publisher and handlers, and the lifespan that opens what they work with."""
    broker = make_broker(settings, SERVICE)
    broker.publisher(topics.FOLLOWS_MATCHED, schema=FollowMatched, description="a paper satisfies a follow")
    broker.subscriber(topics.FOLLOWS_CHANGED, **consumer_options(SERVICE, shared=False))(on_follow_changed)
    batches = {"max_records": settings.match_batch_size, "wait_ms": settings.match_batch_wait_ms}
    broker.subscriber(topics.PAPERS_ENRICHED, **batch_options(SERVICE, **batches))(on_papers_enriched)
    # a group of its own, so withdrawals never rebalance the papers consumer (docs/events.md)
    broker.subscriber(topics.PAPERS_WITHDRAWN, **consumer_options(f"{SERVICE}-withdrawals"))(on_paper_withdrawn)
    broker.subscriber(topics.FOLLOWS_MATCHED, **batch_options(f"{SERVICE}-webhooks", **batches))(on_follows_matched)

    @asynccontextmanager
    async def open_matcher(clients: Clients) -> AsyncIterator[MatcherResources]:
        resources = build_resources(settings, clients, broker)
        store, similar, backfills = resources.store, resources.similar, resources.backfills
        digests: asyncio.Task[None] | None = None
        dispatching: asyncio.Task[None] | None = None
        try:
            await store.ensure_indexes()
            await load_follow_index(store, resources.follow_index, similar)
            await similar.refresh()  # the stored follows' vectors
            # a similar follow whose seeds got vectors while the matcher was down is backfilled again (its claim
            # records how many vectors its last backfill had, so the others are left as they are)
            start_backfills_of_ready(resources, [f for f in similar.follows if similar.ready(f)])
            if settings.digest_enabled:
                digests = asyncio.create_task(
                    run_digests(DigestMaker(store, settings), settings.digest_check_interval_s)
                )
            dispatching = asyncio.create_task(resources.webhooks.run())
            yield resources
        finally:
            for task in (dispatching, digests):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            await backfills.stop()
            await similar.close()
            await resources.http.aclose()

    # matching needs no index: /readyz leaves Meilisearch out, and a backfill retries until the index answers
    return service_app(
        settings, SERVICE, broker, open_matcher, topics=TOPICS, needs=NEEDS, ready_without=["meilisearch"]
    )
