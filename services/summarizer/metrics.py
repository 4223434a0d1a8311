"""The summarizer's Prometheus metrics: model calls, tokens, cost, latency, cache hits, failures, backlog."""

from prometheus_client import Counter, Gauge, Histogram

MODEL_CALLS = Counter(
    "papertrail_summarizer_calls_total",
    "Chat-completions requests sent, by outcome: ok, rate_limited, server_error, timeout, connection, rejected.",
    ["outcome"],
)
TOKENS = Counter("papertrail_summarizer_tokens_total", "Tokens the endpoint reported, by direction.", ["direction"])
COST = Counter(
    "papertrail_summarizer_cost_estimated_total",
    "Estimated spend from token counts and the PRICE_*_PER_1K settings (the endpoint's currency).",
)
CALL_SECONDS = Histogram(
    "papertrail_summarizer_call_seconds",
    "Latency of one chat-completions request.",
    buckets=(0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300),
)
CACHE_HITS = Counter("papertrail_summarizer_cache_hits_total", "Summaries reused from the cache: no call made.")
FAILURES = Counter(
    "papertrail_summarizer_failures_total",
    "Things that went wrong, by kind: rate_limited, server_error, timeout, connection, rejected, invalid_json, "
    "schema, checks (an answer failed a summary check), refusal, unavailable (gave up: pending), budget (spent: "
    "pending).",
    ["kind"],
)
CHECK_FAILURES = Counter(
    "papertrail_summarizer_check_failures_total",
    "Answers that failed a summary check (services/summarizer/checks.py), by check: cjk_share, tldr_copy, numbers, "
    "keywords; a repaired answer that fails again counts again.",
    ["check"],
)
COMMUNITY_SUMMARIES = Counter(
    "papertrail_summarizer_community_summaries_total",
    "Community summaries (daily-arXiv-ai-enhanced's, carried on papers) looked at for a paper without one of ours, by "
    "outcome: shown, or the first check it failed (cjk_share, tldr_copy, numbers), then not shown.",
    ["outcome"],
)
SUMMARIES = Counter(
    "papertrail_summarizer_summaries_total", "Summaries attached to papers, by status: ok, pending, failed.", ["status"]
)
PENDING = Gauge("papertrail_summarizer_pending_papers", "Papers waiting for a summary (the sweep's backlog).")
BACKLOG = Gauge(
    "papertrail_summarizer_pending_papers_by_priority",
    "Papers waiting for a summary by the sweep's order: readers (matched, saved, picked), community (Hugging Face "
    "picks), newest (the rest).",
    ["priority"],
)
EMBEDDING_PENDING = Gauge(
    "papertrail_summarizer_embedding_pending_papers", "Papers waiting for their vector (the embedding sweep's backlog)."
)
PAPER_VECTORS = Counter(
    "papertrail_summarizer_paper_vectors_total",
    "Papers' vector states as events carried them or the sweep settled them: cached (the same text and model "
    "embedded before), pending (left to the sweep), embedded, failed (by the sweep).",
    ["state"],
)
SEARCH_VECTORS = Counter(
    "papertrail_summarizer_search_vectors_total",
    "Papers' search vectors (SEARCH_EMBEDDING_MODEL, `search_vectors`) by state, as for paper vectors: cached, "
    "pending, embedded, failed.",
    ["state"],
)
TITLES = Counter(
    "papertrail_summarizer_titles_total",
    "The title path's Chinese titles (no summary endpoint; TITLES_BASE_URL), by outcome: written (the local model's "
    "answer kept), cached (a title translated before), invalid (an answer that is no Chinese title, kept as such), "
    "rejected (the endpoint refused the request), unavailable (endpoint down: the papers wait for the next sweep).",
    ["outcome"],
)
TITLE_SECONDS = Histogram(
    "papertrail_summarizer_title_seconds",
    "Latency of one title request to the local model.",
    buckets=(0.5, 1, 2, 5, 10, 20, 30, 60, 120),
)
