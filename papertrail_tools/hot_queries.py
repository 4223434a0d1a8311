"""The queries the stages run per message, per batch or per poll (the hot path), each run through the store method
that runs it, so its shape is the code's own: what the driver sends is recorded (`Recorded`) and each command's filter
and sort is put to the server's planner (`plan_of`), which must not scan the collection. Each query comes with the
documents its collection holds behind it (`document`: the n-th), for `bench/hot_queries.py`'s fills.

A per-request read of one document by `_id` (a session, a user, a lease, a budget) always has the `_id` index and is
left out; so are reads of a whole collection by design (every follow at the matcher's start, every reader's picks for
the summarizer's priorities) and the once-per-start backfills (papers without a vector, the migrations)."""

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pymongo import monitoring
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.runtime.collections import (
    DIGESTS,
    EMBEDDING_PENDING,
    FEEDBACK,
    HARVEST_ANNOUNCED,
    HARVEST_FIRST_PAGES,
    HARVEST_RUNS,
    LIBRARY,
    LIBRARY_IMPORT_ENTRIES,
    LIBRARY_IMPORTS,
    MATCHES,
    PAPER_VECTORS,
    PAPER_VERSIONS,
    PAPERS,
    READER_MODELS,
    READER_PICKS,
    SUMMARIES,
    SUMMARY_PENDING,
    WEBHOOK_DELIVERIES,
    Collection,
)
from schemas.events import FollowMatched, MatchReason, PaperEnriched, PaperNormalized
from schemas.paper import Paper, PaperIds, PaperVersion
from schemas.paper_vector import PaperVector
from schemas.summary import Summary
from services.harvester.announced import AnnouncedPapers
from services.harvester.first_pages import FirstPageQueue
from services.harvester.store import HarvestStore
from services.matcher.store import MatchStore
from services.normalizer.records import ParsedRecord
from services.normalizer.store import PaperStore
from services.query.catalogue.reads.paper_lookup import PaperKey
from services.query.catalogue.repositories import CatalogueRecords, Papers, PaperVectors, SummaryBacklog
from services.query.readers.library.importing import ImportJobs, LibraryReaders, MongoFinder
from services.query.readers.library.recommend import ReaderModels
from services.query.readers.library.store import LibraryStore
from services.summarizer.store import ReaderInterest, SummaryStore, VectorStore, search_vectors

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
HOSTS, USERS = 20, 50
# the commands that select documents by a filter, and where each keeps it
SELECTING = {"find": "filter", "findAndModify": "query", "count": "query", "aggregate": None}
WRITES = {"update": "updates", "delete": "deletes"}


@dataclass(frozen=True)
class HotQuery:
    stage: str
    what: str  # what the stage does with it, and how often
    collection: Collection
    run: Callable[[AsyncDatabase, datetime], Awaitable[object]]  # the store method, with values a stage gives it
    document: Callable[[int, datetime], dict[str, Any]]  # the n-th document of the collection, for the fills
    reads_whole: frozenset[str] = frozenset()  # collections the call reads every document of, by design


def _arxiv(n: int) -> str:
    return f"25{n // 100_000 % 100:02d}.{n % 100_000:05d}"


def _paper_model(n: int, now: datetime) -> Paper:
    ids = PaperIds(
        arxiv=_arxiv(n), dois=[f"10.48550/arxiv.{_arxiv(n)}"], acl=f"2025.acl-long.{n}" if n % 5 == 0 else None
    )
    return Paper(id=f"pt-{n:08d}", ids=ids, title=f"Paper {n} on retrieval-augmented generation",
                 first_seen=now - timedelta(minutes=n), updated_at=now - timedelta(minutes=n))  # fmt: skip


def _version_model(n: int, now: datetime) -> PaperVersion:
    return PaperVersion(paper_id=f"pt-{n:08d}", seq=1, kind="first_observed", source="arxiv",
                        source_record_id=f"oai:arXiv.org:{_arxiv(n)}", observed_at=now - timedelta(minutes=n),
                        content_hash=f"h{n}")  # fmt: skip


def _paper(n: int, now: datetime) -> dict[str, Any]:
    """A paper as the normalizer stores one."""
    paper = _paper_model(n, now).model_dump(
        mode="python", exclude={"id"}, exclude_none=True
    )  # as the normalizer writes it
    version = _version_model(n, now).model_dump(mode="python")
    return {"_id": f"pt-{n:08d}", **paper, "fingerprints": [f"fp-{n}"], "fingerprint_scheme": 3, "rev": 1,
            "version_count": 1, "last_versions": [version]}  # fmt: skip


def _version(n: int, now: datetime) -> dict[str, Any]:
    version = _version_model(n // 2, now).model_copy(
        update={"seq": 1 + n % 2, "kind": ("first_observed", "new_version")[n % 2]}
    )
    return {"_id": f"v-{n}", **version.model_dump(mode="python")}


def _waiting(event: PaperNormalized | PaperEnriched, n: int, now: datetime) -> dict[str, Any]:
    """A paper waiting in a sweep's queue, with the event it waits with."""
    return {
        "_id": event.paper.id,
        "event": event.model_dump(mode="json"),
        "priority": n % 3,
        "newest": now - timedelta(hours=n % 500),
        "since": now - timedelta(seconds=n),
        "content_hash": f"h{n}",
        "attempts": 0,
    }


def _summary_waiting(n: int, now: datetime) -> dict[str, Any]:
    return _waiting(PaperNormalized(kind="new", paper=_paper_model(n, now), version=_version_model(n, now)), n, now)


def _embedding_waiting(n: int, now: datetime) -> dict[str, Any]:
    event = PaperEnriched(kind="new", paper=_paper_model(n, now), version=_version_model(n, now),
                          summary=Summary(status="pending"))  # fmt: skip
    return _waiting(event, n, now)


def _summary(n: int, now: datetime) -> dict[str, Any]:
    summary = Summary(status="pending").model_dump(mode="python")
    return {"_id": f"key-{n}", **summary, "paper_ids": [f"pt-{n:08d}"], "content_hash": f"h{n}", "generated_at": now}


def _vector(n: int, now: datetime) -> dict[str, Any]:
    """A paper's outcome of the model; failures, so that 100,000 of them fit a bench's memory."""
    return PaperVector(paper_id=f"pt-{n:08d}", model=MODEL, content_hash=f"h{n}", state="failed", error="empty",
                       updated_at=now).document()  # fmt: skip


def _match(n: int, now: datetime) -> dict[str, Any]:
    return {
        "_id": f"m-{n}",
        "user_id": f"user-{n % USERS}",
        "follow_id": f"follow-{n % 997}",
        "paper_id": f"pt-{n:08d}",
        "matched_at": now - timedelta(minutes=n),
        "announced": True,
    }


def _delivery(n: int, now: datetime) -> dict[str, Any]:
    """A webhook delivery: most delivered, one in a hundred pending (due over the last hours)."""
    pending = n % 100 == 0
    return {
        "_id": f"d-{n}",
        "delivery_id": f"d-{n}",
        "user_id": f"user-{n % USERS}",
        "host": f"hooks-{n % HOSTS}.example",
        "url": f"https://hooks-{n % HOSTS}.example/in",
        "outcome": "pending" if pending else "delivered",
        "due_at": now - timedelta(seconds=n),
        "created_at": now - timedelta(seconds=n),
        "attempts": [],
    }


def _digest(n: int, now: datetime) -> dict[str, Any]:
    day = (now - timedelta(days=n // USERS)).date().isoformat()
    return {"_id": f"user-{n % USERS}:{day}", "user_id": f"user-{n % USERS}", "day": day} | (
        {} if n < USERS else {"sent_at": now}
    )


def _run(n: int, now: datetime) -> dict[str, Any]:
    return {
        "_id": f"run-{n}",
        "source": ("arxiv", "acl", "hf", "daily_arxiv", "arxiv_html")[n % 5],
        "state": "failed" if n % 7 == 0 else "finished",
        "started_at": now - timedelta(hours=n),
        "finished_at": now - timedelta(hours=n) + timedelta(minutes=5),
    }


def _announced(n: int, now: datetime) -> dict[str, Any]:
    """An arXiv paper of the announcement ledger: nearly all harvested."""
    day = (now - timedelta(days=n // 500)).date().isoformat()
    harvested = None if n % 1000 == 0 else now
    return {"_id": _arxiv(n), "day": day, "announced_at": now - timedelta(days=n // 500), "harvested_at": harvested}


def _first_page(n: int, now: datetime) -> dict[str, Any]:
    return {"_id": _arxiv(n), "queued_at": now, "outcome": None if n % 100 == 0 else "read"}


def _saved(n: int, now: datetime) -> dict[str, Any]:
    user = f"user-{n % USERS}"
    return {
        "_id": f"{user}:pt-{n:08d}",
        "user_id": user,
        "paper_id": f"pt-{n:08d}",
        "saved_at": now - timedelta(minutes=n),
        "tags": [],
    }


def _feedback(n: int, now: datetime) -> dict[str, Any]:
    user = f"user-{n % USERS}"
    return {"_id": f"{user}:pt-{n:08d}", "user_id": user, "paper_id": f"pt-{n:08d}", "label": "positive",
            "labelled_at": now - timedelta(minutes=n), "updated_at": now - timedelta(minutes=n)}  # fmt: skip


def _reader_model(n: int, now: datetime) -> dict[str, Any]:
    return {"_id": f"user-{n}", "model_key": MODEL, "pending": n % 50 == 0, "changed_at": now - timedelta(minutes=n)}


def _import_job(n: int, now: datetime) -> dict[str, Any]:
    return {"_id": f"job-{n}", "user_id": f"user-{n % USERS}", "state": "done", "created_at": now, "cursor": 0,
            "total": 100}  # fmt: skip


def _import_entry(n: int, now: datetime) -> dict[str, Any]:
    return {"_id": f"job-{n // 1000}:{n % 1000}", "job_id": f"job-{n // 1000}", "n": n % 1000,
            "user_id": f"user-{n % USERS}", "line": n, "label": f"key{n}", "title": f"Paper {n}"}  # fmt: skip


def _record(now: datetime) -> ParsedRecord:
    """A record of a paper held, and one of a paper new (found by neither id nor fingerprint)."""
    return ParsedRecord(source="arxiv", record_id="oai:arXiv.org:2500.00007", ids=PaperIds(arxiv="2500.00007"),
                        title="Paper 7 on retrieval-augmented generation")  # fmt: skip


def _new_record(now: datetime) -> ParsedRecord:
    ids = PaperIds(arxiv="2699.99999", dois=["10.1000/none"], acl="2099.none-long.1")
    return ParsedRecord(source="arxiv", record_id="oai:arXiv.org:2699.99999", ids=ids, title="A paper not held")


def _follow_matched(now: datetime) -> FollowMatched:
    return FollowMatched(
        user_id="user-7", follow_id="follow-7", follow_kind="keyword", paper_id="pt-00000007",
        reasons=[MatchReason(field="title", term="retrieval")], matched_at=now, paper_title="Paper 7",
    )  # fmt: skip


def _library(db: AsyncDatabase) -> ImportJobs:
    return ImportJobs(db, LibraryStore(db), 100, LibraryReaders(1, 100), runs_jobs=True)


def _models(db: AsyncDatabase) -> ReaderModels:
    return ReaderModels(db, MODEL, 384, debounce_s=30, timeout_s=60)


# fmt: off
HOT_QUERIES: tuple[HotQuery, ...] = (
    # harvester
    HotQuery("harvester", "first pages to read, each arxiv_html run", HARVEST_FIRST_PAGES,
             lambda db, now: FirstPageQueue(db).pending(50), _first_page),
    HotQuery("harvester", "the announcement gap, after each batch published", HARVEST_ANNOUNCED,
             lambda db, now: AnnouncedPapers(db).gap(now - timedelta(hours=36)), _announced),
    HotQuery("harvester", "a source's freshness, each run", HARVEST_RUNS,
             lambda db, now: HarvestStore(db).freshness("arxiv"), _run),
    # normalizer
    HotQuery("normalizer", "the papers a batch's records belong to, by id (one find per id field)", PAPERS,
             lambda db, now: PaperStore(db).candidates([_record(now)]), _paper),
    HotQuery("normalizer", "the papers a batch's new records belong to, by fingerprint", PAPERS,
             lambda db, now: PaperStore(db).candidates([_new_record(now)]), _paper),
    # summarizer
    HotQuery("summarizer", "the summary sweep's next papers, each sweep", SUMMARY_PENDING,
             lambda db, now: SummaryStore(db).waiting(32), _summary_waiting),
    HotQuery("summarizer", "the embedding sweep's next papers, each sweep", EMBEDDING_PENDING,
             lambda db, now: VectorStore(db).waiting(32), _embedding_waiting),
    HotQuery("summarizer", "a paper's last summary, each metadata update", SUMMARIES,
             lambda db, now: SummaryStore(db).latest_for_paper("pt-00000007"), _summary),
    HotQuery("summarizer", "vectors cached by content, each batch", PAPER_VECTORS,
             lambda db, now: VectorStore(db).of_contents(["h7", "h8"], MODEL), _vector),
    HotQuery("summarizer", "papers matched since the last sweep (readers' interest)", MATCHES,
             lambda db, now: ReaderInterest(db).asked_since(now - timedelta(minutes=2)), _match,
             reads_whole=frozenset({READER_PICKS.name})),  # one document per reader, each reader's picks wanted
    HotQuery("summarizer", "papers saved since the last sweep (readers' interest)", LIBRARY,
             lambda db, now: ReaderInterest(db).asked_since(now - timedelta(minutes=2)), _saved,
             reads_whole=frozenset({READER_PICKS.name})),
    # matcher
    HotQuery("matcher", "a match recorded once, each match", MATCHES,
             lambda db, now: MatchStore(db).record(_follow_matched(now)), _match),
    HotQuery("matcher", "the webhook queue's claim, each dispatch", WEBHOOK_DELIVERIES,
             lambda db, now: MatchStore(db).claim_due_delivery(now, timedelta(minutes=1), ["hooks-0.example"],
                                                               ["user-1"]), _delivery),
    HotQuery("matcher", "when the next delivery falls due, each idle turn", WEBHOOK_DELIVERIES,
             lambda db, now: MatchStore(db).next_due(now, ["hooks-0.example"], ["user-1"]), _delivery),
    HotQuery("matcher", "the digests not mailed, each digest run", DIGESTS,
             lambda db, now: MatchStore(db).unsent_digests((now - timedelta(days=3)).date().isoformat()), _digest),
    HotQuery("matcher", "a day's matches, each digest", MATCHES,
             lambda db, now: MatchStore(db).matches_between(now - timedelta(days=1), now), _match),
    # query: the catalogue's readers and the index's consumers
    HotQuery("query", "the paper holding an id, each paper page and API read", PAPERS,
             lambda db, now: Papers(db).paper(PaperKey("ids.arxiv", "2500.00007")), _paper),
    HotQuery("query", "a paper's versions, each paper page", PAPER_VERSIONS,
             lambda db, now: Papers(db).versions_of("pt-00000007"), _version),
    HotQuery("query", "versions counted by kind over a day, the overview", PAPER_VERSIONS,
             lambda db, now: Papers(db).count_versions("new_version", now - timedelta(days=1), now), _version),
    HotQuery("query", "the latest version's time, the overview and the health page", PAPER_VERSIONS,
             lambda db, now: Papers(db).latest_version_time(), _version),
    HotQuery("query", "vectors settled, each vectors job turn", PAPER_VECTORS,
             lambda db, now: PaperVectors(db).settled_count(MODEL, search=False), _vector),
    HotQuery("query", "a waiting paper's place in the summary queue, its page", SUMMARY_PENDING,
             lambda db, now: SummaryBacklog(db).place_of("pt-00000007"), _summary_waiting),
    # query: the readers' library and models
    HotQuery("query", "library imports left running, each poll (IMPORT_POLL_S)", LIBRARY_IMPORTS,
             lambda db, now: _library(db).resume(), _import_job),
    HotQuery("query", "an import's chunk of entries, each chunk", LIBRARY_IMPORT_ENTRIES,
             lambda db, now: _library(db).chunk_entries("job-1", 200, 300), _import_entry),
    HotQuery("query", "an import's papers by id, each chunk", PAPERS,
             lambda db, now: MongoFinder(db).holders([PaperKey("ids.arxiv", "2500.00007")]), _paper),
    HotQuery("query", "reader models due for training, each poll (FEED_RETRAIN_POLL_S)", READER_MODELS,
             lambda db, now: _models(db).stale_readers(now), _reader_model),
    HotQuery("query", "readers' marks on the day's papers, each picks run", FEEDBACK,
             lambda db, now: _models(db).marked_among(["pt-00000007", "pt-00000008"]), _feedback),
)
# fmt: on


async def ensure_indexes(db: AsyncDatabase) -> None:
    """Every index the services create at start (each service's lifespan calls these same methods)."""
    await HarvestStore(db).ensure_indexes()
    await AnnouncedPapers(db).ensure_indexes()
    await FirstPageQueue(db).ensure_indexes()
    await PaperStore(db).ensure_indexes()
    await SummaryStore(db).ensure_indexes()
    await VectorStore(db).ensure_indexes()
    await search_vectors(db).ensure_indexes()
    await MatchStore(db).ensure_indexes()
    await CatalogueRecords.of(db).ensure_indexes()
    await LibraryStore(db).ensure_indexes()
    await _library(db).ensure_indexes()
    await _models(db).ensure_indexes()


class Recorded(monitoring.CommandListener):
    """The commands a client sends while `recording`; give it to the client as an event listener."""

    def __init__(self) -> None:
        self.on = False
        self.commands: list[dict[str, Any]] = []

    @contextlib.contextmanager
    def recording(self) -> Iterator[list[dict[str, Any]]]:
        self.commands, self.on = [], True
        try:
            yield self.commands
        finally:
            self.on = False

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if self.on and (event.command_name in SELECTING or event.command_name in WRITES):
            self.commands.append(dict(event.command))

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def selections(command: dict[str, Any]) -> list[dict[str, Any]]:
    """The finds that select what a command reads or writes, each with its filter, sort and hint: what the planner
    is asked. An aggregation's selection is its leading `$match`; one without (a `$group` of every document) is a
    find of every document, which scans by design and is not in HOT_QUERIES."""
    name = next(iter(command))
    collection = command[name]
    if name in WRITES:
        return [
            {"find": collection, "filter": each.get("q", {})} | ({"hint": each["hint"]} if "hint" in each else {})
            for each in command[WRITES[name]]
        ]
    if name == "aggregate":
        head = (command.get("pipeline") or [{}])[0]
        return [{"find": collection, "filter": head.get("$match", {})}]
    find = {"find": collection, "filter": command.get(SELECTING[name] or "filter") or {}}
    return [find | {k: command[k] for k in ("sort", "hint", "limit") if k in command}]


def stages(explained: dict[str, Any]) -> list[str]:
    """Every stage of the winning plan (a real MongoDB's `queryPlan` under it too), each with its index's name."""
    winning = explained.get("queryPlanner", {}).get("winningPlan", {})
    found: list[str] = []
    todo = [winning.get("queryPlan", winning)]
    while todo:
        node = todo.pop()
        found.append(str(node.get("stage")) + (f" {node['indexName']}" if "indexName" in node else ""))
        todo += [node["inputStage"]] if "inputStage" in node else []
        todo += list(node.get("inputStages", []))
    return found


async def plan_of(db: AsyncDatabase, find: dict[str, Any]) -> list[str]:
    """The winning plan's stages of one selection, as the server explains it."""
    explained = await db.command({"explain": find, "verbosity": "queryPlanner"})
    return stages(explained)


def fills(query: HotQuery, count: int, now: datetime | None = None) -> Iterator[dict[str, Any]]:
    at = now or datetime.now(UTC)
    return (query.document(n, at) for n in range(count))
