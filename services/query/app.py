"""Query service: the catalogue (services/query/catalogue: the indexer, papers.enriched.v1 → the Meilisearch index,
each paper tagged with its catalogue topics; papers.withdrawn.v1 → out of it; harvest.status.v1 → source freshness;
and the reads of it), the readers' record (services/query/readers: accounts, follows announced on follows.changed.v1,
error reports, the library, reader models), and the HTTP API, Atom feeds and web pages over both.

One service, two process roles (QUERY_ROLE): api serves HTTP only; worker runs the consumers and the background
jobs, each under a lease so one process across the replicas runs it; all (the default) does both."""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response

from papertrail.domain.follows.catalogue import load_catalogue
from papertrail.embedding.backends import open_embedder
from papertrail.embedding.query_hubs import reference_queries
from papertrail.runtime.collections import JOB_LEASES
from papertrail.runtime.kafka import StaticMembershipBroker, batch_options, consumer_options, make_broker
from papertrail.runtime.leases import Leases, run_under_lease
from papertrail.runtime.metrics import RequestMetrics
from papertrail.runtime.migrations import MigrationContext, MigrationRecord, publishing_on
from papertrail.runtime.service import Clients, Readiness, health_routes, open_resources, provide
from schemas import topics
from schemas.events import FollowChanged
from services.query.accounts.repositories import ReaderRecords, SiteKeys, SiteSecret
from services.query.api.routes import (
    corrections,
    feeds,
    follows,
    institutions,
    library,
    overview,
    papers,
    tokens,
    venues,
)
from services.query.api.routes import topics as topic_routes
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.indexer.handlers import on_harvest_status, on_paper_withdrawn, on_papers_enriched
from services.query.catalogue.indexer.hotness import keep_hotness_current
from services.query.catalogue.indexer.retag import (
    attach_search_vectors_on_model_change,
    attach_vectors_on_model_change,
    name_authors_on_scheme_change,
    retag_on_catalogue_change,
)
from services.query.catalogue.indexer.topic_tags import TopicTagger
from services.query.catalogue.repositories import CatalogueRecords
from services.query.http.guards import BodyCap, SecurityHeaders
from services.query.http.problems import install_problem_details, on_api, one_value_each, problem_response
from services.query.http.write_limits import WriteLimited
from services.query.library.importing import MAX_FILE_BYTES, ImportJobs, LibraryReaders
from services.query.library.store import LibraryStore
from services.query.migrations import MIGRATIONS
from services.query.recommender.recommend import ReaderModels
from services.query.resources import QueryResources
from services.query.settings import QuerySettings
from services.query.web.mount import mount_web
from services.query.web.refusals import write_limited_text
from services.query.web.render import error_page, words_of

SERVICE = "query"
NEEDS = ("kafka", "mongodb", "meilisearch")  # checked before the service starts serving
IMPORT_PATHS = ("/api/me/library/import", "/me/library/import")  # the library file uploads (API and page)
TOPICS = [topics.PAPERS_ENRICHED, topics.PAPERS_WITHDRAWN, topics.HARVEST_STATUS, topics.FOLLOWS_CHANGED]
log = logging.getLogger(f"papertrail.{SERVICE}")


HTTP_ROLES = ("api", "all")  # serve the API and pages
WORK_ROLES = ("worker", "all")  # run the consumers and the background jobs


def build_resources(settings: QuerySettings, clients: Clients, broker: StaticMembershipBroker) -> QueryResources:
    """The service's one wiring, without I/O (a local model loads on first use, the kept site secret in `prepare`):
    the lifespan calls it with the clients it opened, tests with theirs. The api role embeds the text of searches by
    meaning (as the summarizer embeds papers), and those holding CJK characters by the search vectors' model while
    SEARCH_EMBEDDING_MODEL is on; a worker embeds nothing."""
    serves_http = settings.query_role in HTTP_ROLES
    query_embedder = open_embedder(settings) if serves_http else None
    search_embedder = open_embedder(settings.search_embedding) if serves_http and settings.search_embedding else None
    assert clients.search is not None  # NEEDS names meilisearch
    search = settings.search_embedding
    paper_index = PaperIndex(
        clients.search, settings.index_name, settings.index_task_timeout_s, settings.embedding_dimensions,
        query_embedder, min_score=settings.meaning_min_score,
        search_dimensions=search.embedding_dimensions if search else 0, search_embedder=search_embedder,
        search_min_score=search.meaning_min_score if search else settings.meaning_min_score,
        search_floor_margin=search.meaning_floor_margin if search else 0.0,
        search_hub_reference=reference_queries(search.embedding_model) if search else None,
    )  # fmt: skip
    library = LibraryStore(clients.db)
    runs_jobs = settings.query_role in WORK_ROLES
    readers = LibraryReaders(settings.library_import_readers, settings.library_import_max_entries)
    imports = ImportJobs(clients.db, library, settings.library_import_chunk, readers, runs_jobs=runs_jobs)
    reader_models = ReaderModels(
        clients.db,
        settings.model_key,
        settings.embedding_dimensions,
        settings.feed_retrain_debounce_s,
        settings.feed_retrain_timeout_s,
    )
    return QueryResources(
        settings, paper_index, CatalogueRecords.of(clients.db), ReaderRecords.of(clients.db),
        TopicTagger(load_catalogue()), broker.declared_publisher(topics.FOLLOWS_CHANGED), broker.dead_letters,
        library, imports, reader_models, site_secret_of(settings, clients),
    )  # fmt: skip


def site_secret_of(settings: QuerySettings, clients: Clients) -> SiteSecret:
    """SITE_SECRET; unset (a local run: production requires it), the one kept in MongoDB for every replica (none for
    a worker, which signs nothing)."""
    configured = settings.site_secret.get_secret_value().encode() if settings.site_secret is not None else None
    return SiteSecret(configured, SiteKeys(clients.db) if settings.query_role in HTTP_ROLES else None)


async def prepare(resources: QueryResources) -> None:
    """What the resources need before the first request or event: the index's settings, the collections' indexes,
    the site secret a local run keeps."""
    await resources.signing.load()
    await resources.paper_index.ensure()
    await resources.catalogue.ensure_indexes()
    await resources.readers.ensure_indexes()
    await resources.library.ensure_indexes()
    await resources.imports.ensure_indexes()
    await resources.reader_models.ensure_indexes()


async def close(resources: QueryResources) -> None:
    """Stop the imports left running, then close the models that embed searches."""
    await resources.imports.stop()
    await resources.paper_index.close()


def background_jobs(resources: QueryResources) -> dict[str, Callable[[], Awaitable[None]]]:
    """The worker role's jobs by name, each run under its lease of that name (one process across the replicas):
    retagging, the vectors' and search vectors' attachment and the author name keys run once, when the catalogue, a
    model or the name key scheme changed; training, the digest picks and the imports left running go on until the
    service stops, as does bringing the citations per month up to date."""
    settings, index, catalogue = resources.settings, resources.paper_index, resources.catalogue
    models, imports = resources.reader_models, resources.imports
    return {
        "retag": lambda: retag_on_catalogue_change(index, catalogue, resources.topic_tagger),
        "vectors": lambda: attach_vectors_on_model_change(index, catalogue, settings.model_key),
        "search_vectors": lambda: attach_search_vectors_on_model_change(index, catalogue, settings.search_model_key),
        "author_names": lambda: name_authors_on_scheme_change(index, catalogue),
        "training": lambda: models.keep_training(
            settings.feed_retrain_poll_s, settings.feed_picks_every_s, settings.digest_picks
        ),
        "imports": lambda: imports.keep_taking_up(settings.import_poll_s),
        "hotness": lambda: keep_hotness_current(index, settings.hot_refresh_every_s),
    }


def create_app(settings: QuerySettings) -> FastAPI:
    """The query service in its role (QUERY_ROLE): the API and pages (FastAPI), its broker's publisher and, in the
    worker role, its handlers and background jobs; the lifespan that opens what they work with."""
    serves_http, works = settings.query_role in HTTP_ROLES, settings.query_role in WORK_ROLES
    broker = make_broker(settings, SERVICE)
    broker.publisher(topics.FOLLOWS_CHANGED, schema=FollowChanged, description="follow changes")
    if works:
        indexing = batch_options(
            SERVICE, settings.index_batch_size, settings.index_batch_wait_ms, settings.index_linger_ms
        )
        broker.subscriber(topics.PAPERS_ENRICHED, **indexing)(on_papers_enriched)
        # a group of its own, so withdrawals never rebalance the papers consumer (docs/events.md)
        broker.subscriber(topics.PAPERS_WITHDRAWN, **consumer_options(f"{SERVICE}-withdrawals"))(on_paper_withdrawn)
        # a group of its own too: in the papers group, the papers consumer joining at start failed its commits
        broker.subscriber(topics.HARVEST_STATUS, **consumer_options(f"{SERVICE}-status"))(on_harvest_status)
    readiness = Readiness()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with open_resources(settings, SERVICE, broker, readiness, topics=TOPICS, needs=NEEDS) as clients:
            resources = build_resources(settings, clients, broker)
            await prepare(resources)
            app.state.resources = resources  # the routes' and pages' dependencies read it
            provide(broker.context, resources)
            await broker.start()
            migrating = MigrationContext(clients.db, publishing_on(broker, settings))
            await MigrationRecord(clients.db).run_pending(
                MIGRATIONS, migrating
            )  # once: papertrail/runtime/migrations.py
            leases = Leases(clients.db[JOB_LEASES.name])
            jobs = background_jobs(resources) if works else {}
            app.state.jobs = {
                name: asyncio.create_task(run_under_lease(leases, name, job, settings.job_lease_s), name=name)
                for name, job in jobs.items()
            }
            try:
                yield
            finally:
                for task in app.state.jobs.values():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                await close(resources)
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
    routers = (
        corrections.router,  # first: /api/papers/{id}/corrections must not be read as a paper id (405's Allow)
        library.router,  # then: /api/papers/{id}/cite must not be read as a paper id either
        papers.router,
        overview.router,
        topic_routes.router,
        follows.router,
        tokens.router,
        feeds.router,
        venues.router,
        institutions.router,
    )
    for router in routers if serves_http else ():  # the worker role serves only /healthz, /readyz, /metrics
        app.include_router(router)
    install_problem_details(app)  # every API error one documented shape; the pages keep their HTML
    if serves_http and not mount_web(app):  # the web pages and their static files
        log.warning("KaTeX is not installed: pages show formulas as their source; run `papertrail assets`")
    app.add_exception_handler(WriteLimited, too_many_writes)  # type: ignore[arg-type]
    app.state.broker = broker  # its consumers and publisher, for whoever holds only the app (tests, tools)
    # a library file's own cap (24 MiB) and room for the form around it; every other body settings.max_body_bytes
    import_cap = MAX_FILE_BYTES + 1024 * 1024
    app.add_middleware(
        BodyCap,
        default=settings.max_body_bytes,
        caps=dict.fromkeys(IMPORT_PATHS, import_cap),
        read_timeout_s=settings.body_read_timeout_s,
    )
    app.add_middleware(SecurityHeaders)
    app.add_middleware(RequestMetrics, service=SERVICE)
    for path, endpoint in health_routes(readiness, settings):
        app.add_route(path, endpoint, include_in_schema=False)
    return app


async def too_many_writes(request: Request, refused: WriteLimited) -> Response:
    """429 with Retry-After: problem details from the API, the error page from the pages."""
    headers = {"Retry-After": str(refused.retry_after)}
    log.info("write refused by its limit", extra={"limit": refused.limit, "retry_after_s": refused.retry_after})
    if on_api(request):
        return problem_response(request, 429, str(refused), headers)
    page = error_page(request, 429, write_limited_text(refused.limit, refused.retry_after, words_of(request)))
    page.headers.update(headers)
    return page
