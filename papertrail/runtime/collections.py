"""The MongoDB collections, each with the one service that writes it; others may read it (docs/architecture.md).
Every store opens its collections by these names, so who owns what is read here, not searched for."""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Collection:
    name: str
    owner: str  # the one service that writes it


# the normalizer
PAPERS = Collection("papers", "normalizer")
PAPER_VERSIONS = Collection("paper_versions", "normalizer")
SOURCE_RECORDS = Collection("source_records", "normalizer")
# the harvester
HARVEST_CHECKPOINTS = Collection("harvest_checkpoints", "harvester")
HARVEST_RUNS = Collection("harvest_runs", "harvester")
HARVEST_LEASES = Collection("harvest_leases", "harvester")
HARVEST_ANNOUNCED = Collection("harvest_announced", "harvester")
HARVEST_FIRST_PAGES = Collection("harvest_first_pages", "harvester")  # arXiv papers whose HTML page is to be read
HARVEST_CITATIONS = Collection("harvest_citations", "harvester")  # each paper's citation count: when to ask again
# ccf-deadlines' venues as last read (the ccf_deadlines source), over the shipped catalogue: deadlines, editions, rates
VENUE_CATALOGUE = Collection("venue_catalogue", "harvester")
# the summarizer
SUMMARIES = Collection("summaries", "summarizer")
SUMMARY_PENDING = Collection("summary_pending", "summarizer")
SUMMARY_BUDGET = Collection("summary_budget", "summarizer")
PAPER_VECTORS = Collection("paper_vectors", "summarizer")
SEARCH_VECTORS = Collection("search_vectors", "summarizer")  # each paper's second vector, of the search model
EMBEDDING_PENDING = Collection("embedding_pending", "summarizer")
EMBEDDING_BUDGET = Collection("embedding_budget", "summarizer")
PAPERS_ANNOUNCED = Collection("papers_announced", "summarizer")  # papers published on papers.new.v1, each once
TITLE_TRANSLATIONS = Collection("title_translations", "summarizer")  # the title path's Chinese titles, by title
# the models paper_vectors and search_vectors are made with (a document each)
EMBEDDING_MODEL = Collection("embedding_model", "summarizer")
# the matcher
MATCHES = Collection("matches", "matcher")
FOLLOW_BACKFILLS = Collection("follow_backfills", "matcher")
WITHDRAWN_PAPERS = Collection("withdrawn_papers", "matcher")  # papers withdrawn: a match of one is never kept
WEBHOOK_ENDPOINTS = Collection("webhook_endpoints", "matcher")
WEBHOOK_DELIVERIES = Collection("webhook_deliveries", "matcher")
DIGESTS = Collection("digests", "matcher")
# the query service
USERS = Collection("users", "query")
FOLLOWS = Collection("follows", "query")
SOURCE_RUNS = Collection("source_runs", "query")
CORRECTIONS = Collection("corrections", "query")
INDEX_STATE = Collection("index_state", "query")
RATE_LIMITS = Collection("rate_limits", "query")  # write counters per window, shared by every replica
SESSIONS = Collection("sessions", "query")  # signed-in web sessions (hashed ids), gone at their expiry
API_TOKENS = Collection("api_tokens", "query")  # a user's API tokens (hashed), with created / last-used times
EMAIL_TOKENS = Collection("email_tokens", "query")  # single-use links mailed to confirm an address or reset a password
JOB_LEASES = Collection("job_leases", "query")  # the worker role's background jobs, each run by one process
SITE_KEYS = Collection("site_keys", "query")  # a local run's own site secret (no SITE_SECRET), shared by its replicas

# the reader's record (per user)
LIBRARY = Collection("library", "query")  # saved papers with tags and notes
FEEDBACK = Collection("feedback", "query")  # saved (positive), not relevant (negative), read: per paper, with times
LIBRARY_IMPORTS = Collection("library_imports", "query")  # import jobs: the file, its progress and counts
LIBRARY_IMPORT_ENTRIES = Collection("library_import_entries", "query")  # each imported entry, then its verdict
READER_MODELS = Collection("reader_models", "query")  # each reader's ranking model, as floats
READER_PICKS = Collection("reader_picks", "query")  # each reader's top recent papers, which the matcher's digest reads
# Every document of these names its reader in `user_id`: deleting a user deletes them by it.
READERS_RECORD = (LIBRARY, FEEDBACK, LIBRARY_IMPORTS, LIBRARY_IMPORT_ENTRIES, READER_MODELS, READER_PICKS)

# Collections holding a user's own documents under "user_id": `papertrail users delete` removes every one of them, so
# a new per-user collection is one entry here. (Follows are deleted first, one by one, to announce each.)
USER_DATA: tuple[Collection, ...] = (SESSIONS, API_TOKENS, EMAIL_TOKENS, FOLLOWS, *READERS_RECORD)

ALL: tuple[Collection, ...] = tuple(value for value in list(globals().values()) if isinstance(value, Collection))
