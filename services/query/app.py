"""Query service: the indexer (papers.enriched.v1 → the Meilisearch index, each paper tagged with its catalogue
topics; papers.withdrawn.v1 → out of it; harvest.status.v1 → source freshness), the HTTP API, Atom feeds and web
pages that read them, and the accounts (users, follows announced on follows.changed.v1, error reports)."""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response

from papertrail.embedders import open_embedder
from papertrail.follows.catalogue import load_catalogue
from papertrail.kafka import batch_options, consumer_options, make_broker
from papertrail.metrics import RequestMetrics
from papertrail.migrations import MigrationContext, MigrationRecord, publishing_on
from papertrail.service import Readiness, health_routes, open_resources, provide
from schemas import topics
from schemas.events import FollowChanged
from services.query.api.problems import install_problem_details, on_api, one_value_each, problem_response
from services.query.api.routes import corrections, feeds, follows, library, overview, papers
from services.query.api.routes import topics as topic_routes
from services.query.deps import QueryResources
from services.query.http_guards import BodyCap, SecurityHeaders
from services.query.index import PaperIndex
from services.query.indexer.handlers import on_harvest_status, on_paper_withdrawn, on_papers_enriched
from services.query.indexer.retag import attach_vectors_on_model_change, retag_on_catalogue_change
from services.query.indexer.topic_tags import TopicTagger
from services.query.library.importing import MAX_FILE_BYTES, ImportJobs
from services.query.library.recommend import ReaderModels
from services.query.library.store import LibraryStore
from services.query.migrations import MIGRATIONS
from services.query.settings import QuerySettings
from services.query.store import QueryStore
from services.query.web import mount_web
from services.query.web.render import error_page
from services.query.write_limits import WriteLimited

SERVICE = "query"
NEEDS = ("kafka", "mongodb", "meilisearch")  # checked before the service starts serving
IMPORT_PATHS = ("/api/me/library/import", "/me/library/import")  # the library file uploads (API and page)
TOPICS = [topics.PAPERS_ENRICHED, topics.PAPERS_WITHDRAWN, topics.HARVEST_STATUS, topics.FOLLOWS_CHANGED]
log = logging.getLogger(f"papertrail.{SERVICE}")


def create_app(settings: QuerySettings) -> FastAPI:
    """The query service: the API and pages (FastAPI), its broker's publisher and handlers, and the lifespan that
    opens what both work with."""
    broker = make_broker(settings, SERVICE)
    follow_changes = broker.publisher(topics.FOLLOWS_CHANGED, schema=FollowChanged, description="follow changes")
    indexing = batch_options(SERVICE, settings.index_batch_size, settings.index_batch_wait_ms, settings.index_linger_ms)
    broker.subscriber(topics.PAPERS_ENRICHED, **indexing)(on_papers_enriched)
    # a group of its own, so withdrawals never rebalance the papers consumer (docs/events.md)
    broker.subscriber(topics.PAPERS_WITHDRAWN, **consumer_options(f"{SERVICE}-withdrawals"))(on_paper_withdrawn)
    # a group of its own too: in the papers group, the papers consumer joining at start failed its commits
    broker.subscriber(topics.HARVEST_STATUS, **consumer_options(f"{SERVICE}-status"))(on_harvest_status)
    readiness = Readiness()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with open_resources(settings, SERVICE, broker, readiness, topics=TOPICS, needs=NEEDS) as clients:
            assert clients.search is not None  # NEEDS names meilisearch
            # loaded once: every search by meaning embeds its text with it, as the summarizer embeds papers
            query_embedder = open_embedder(settings)
            paper_index = PaperIndex(
                clients.search,
                settings.index_name,
                settings.index_task_timeout_s,
                settings.embedding_dimensions,
                query_embedder,
            )
            await paper_index.ensure()
            store = QueryStore(clients.db)
            await store.ensure_indexes()
            library = LibraryStore(clients.db)
            await library.ensure_indexes()
            imports = ImportJobs(
                clients.db, library, settings.library_import_chunk, settings.library_import_max_entries
            )
            await imports.ensure_indexes()
            reader_models = ReaderModels(
                clients.db,
                settings.model_key,
                settings.embedding_dimensions,
                settings.feed_retrain_debounce_s,
                settings.feed_retrain_timeout_s,
            )
            await reader_models.ensure_indexes()
            tagger = TopicTagger(load_catalogue())
            resources = QueryResources(
                settings, paper_index, store, tagger, follow_changes, broker.dead_letters,
                library, imports, reader_models,
            )  # fmt: skip
            app.state.resources = resources  # the routes' and pages' dependencies read it
            provide(broker.context, resources)
            await broker.start()
            migrating = MigrationContext(clients.db, publishing_on(broker, settings))
            await MigrationRecord(clients.db).run_pending(MIGRATIONS, migrating)  # once: papertrail/migrations.py
            retag = asyncio.create_task(retag_on_catalogue_change(paper_index, store, tagger), name="retag")
            vectors = asyncio.create_task(
                attach_vectors_on_model_change(paper_index, store, settings.model_key), name="vectors"
            )
            if resumed := await imports.resume():
                log.info("resumed %d library imports left running", resumed)
            training = asyncio.create_task(
                reader_models.keep_training(
                    settings.feed_retrain_poll_s, settings.feed_picks_every_s, settings.digest_picks
                ),
                name="training",
            )
            try:
                yield
            finally:
                for task in (retag, vectors, training):
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                await query_embedder.close()
                await imports.stop()
                await broker.stop()

    app = FastAPI(
        title="PaperTrail query API",
        version="0.1.0",
        lifespan=lifespan,
        description="Search, browse and follow computer-science papers.",
        # operation ids are the routes' names (read_follow): links name them, generated clients call them
        generate_unique_id_function=lambda route: route.name,
        dependencies=[Depends(one_value_each)],
        docs_url=None,  # /docs is the pages' own, with Swagger UI served from /static (services/query/web)
        redoc_url=None,
    )
    for router in (
        corrections.router,  # first: /api/papers/{id}/corrections must not be read as a paper id (405's Allow)
        library.router,  # then: /api/papers/{id}/cite must not be read as a paper id either
        papers.router,
        overview.router,
        topic_routes.router,
        follows.router,
        feeds.router,
    ):
        app.include_router(router)
    install_problem_details(app)  # every API error one documented shape; the pages keep their HTML
    if not mount_web(app):  # the web pages and their static files
        log.warning("KaTeX is not installed: pages show formulas as their source; run `papertrail assets`")
    app.add_exception_handler(WriteLimited, too_many_writes)  # type: ignore[arg-type]
    app.state.broker = broker  # its consumers and publisher, for whoever holds only the app (tests, tools)
    # a library file's own cap (24 MiB) and room for the form around it; every other body settings.max_body_bytes
    import_cap = MAX_FILE_BYTES + 1024 * 1024
    app.add_middleware(BodyCap, default=settings.max_body_bytes, caps=dict.fromkeys(IMPORT_PATHS, import_cap))
    app.add_middleware(SecurityHeaders)
    app.add_middleware(RequestMetrics, service=SERVICE)
    for path, endpoint in health_routes(readiness):
        app.add_route(path, endpoint, include_in_schema=False)
    return app


async def too_many_writes(request: Request, refused: WriteLimited) -> Response:
    """429 with Retry-After: problem details from the API, the error page from the pages."""
    headers = {"Retry-After": str(refused.retry_after)}
    log.info("write refused by its limit", extra={"limit": refused.limit, "retry_after_s": refused.retry_after})
    if on_api(request):
        return problem_response(request, 429, str(refused), headers)
    page = error_page(request, 429, str(refused))
    page.headers.update(headers)
    return page
