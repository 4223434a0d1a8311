"""Matcher service: papers.enriched.v1 → follows it satisfies → matches → follows.matched.v1."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Annotated

from faststream import Context, ContextRepo
from faststream.asgi import AsgiFastStream

from papertrail.kafka import consumer_options, ensure_topics, make_broker
from papertrail.logs import configure_logging
from papertrail.mongo import database, make_mongo_client, ping
from papertrail.service import Readiness, health_routes, load_settings
from schemas import topics
from schemas.events import FollowChanged, FollowMatched, PaperEnriched
from services.matcher.rules import FollowIndex
from services.matcher.settings import MatcherSettings
from services.matcher.store import MatchStore

SERVICE = "matcher"
settings = load_settings(MatcherSettings, SERVICE)
log = configure_logging(SERVICE, settings.log_level)
broker = make_broker(settings, SERVICE)
readiness = Readiness()

matched = broker.publisher(topics.FOLLOWS_MATCHED, schema=FollowMatched, description="a paper satisfies a follow")


@asynccontextmanager
async def lifespan(context: ContextRepo) -> AsyncIterator[None]:
    await ensure_topics(settings, [topics.PAPERS_ENRICHED, topics.FOLLOWS_CHANGED, topics.FOLLOWS_MATCHED])
    mongo = make_mongo_client(settings)
    store = MatchStore(database(mongo, settings))
    await store.ensure_indexes()
    index = FollowIndex()
    for follow in await store.all_follows():
        index.upsert(follow)
    context.set_global("matches", store)
    context.set_global("follow_index", index)
    readiness.add("kafka", lambda: broker.ping(timeout=3))
    readiness.add("mongodb", lambda: ping(mongo))
    try:
        yield
    finally:
        await mongo.close()


@broker.subscriber(topics.FOLLOWS_CHANGED, **consumer_options(SERVICE, shared=False))
async def on_follow_changed(event: FollowChanged, follow_index: Annotated[FollowIndex, Context()]) -> None:
    """Keep the in-memory follow index in step with the query service's follows."""
    if event.action == "deleted" or event.follow is None:
        follow_index.remove(event.follow_id)
    else:
        follow_index.upsert(event.follow)


@broker.subscriber(topics.PAPERS_ENRICHED, **consumer_options(SERVICE))
async def on_paper_enriched(
    event: PaperEnriched, follow_index: Annotated[FollowIndex, Context()], matches: Annotated[MatchStore, Context()]
) -> None:
    """Record and announce every follow the paper satisfies, once per follow."""
    now = datetime.now(UTC)
    for follow, reasons in follow_index.match(event.paper):
        match = FollowMatched(
            user_id=follow.user_id,
            follow_id=follow.id,
            follow_kind=follow.kind,
            paper_id=event.paper.id,
            reasons=reasons,
            matched_at=now,
        )
        if await matches.record(match):
            await matched.publish(match, key=event.paper.id.encode())


app = AsgiFastStream(broker, lifespan=lifespan, asgi_routes=health_routes(readiness), logger=log)
