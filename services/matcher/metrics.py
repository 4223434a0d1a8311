"""The matcher's Prometheus metrics: papers matched, matches by follow kind, latency, webhooks, follows."""

from prometheus_client import Counter, Gauge, Histogram

PAPERS_MATCHED = Counter(
    "papertrail_matcher_papers_total", "Enriched papers matched against every follow (rate() = papers matched/s)."
)
MATCHES = Counter(
    "papertrail_matcher_matches_total",
    "Matches newly stored, by follow kind and path (live, backfill).",
    ["kind", "path"],
)
MATCH_SECONDS = Histogram(
    "papertrail_matcher_match_seconds",
    "Time to find every follow one paper satisfies (automaton scan and evaluation).",
    buckets=(0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5),
)
MATCH_LAG_SECONDS = Histogram(
    "papertrail_matcher_match_lag_seconds",
    "From the harvest of a paper's raw record to its matches being announced.",
    buckets=(0.1, 0.5, 1, 5, 15, 60, 300, 1800, 3600, 21600),
)
WEBHOOK_DELIVERIES = Counter(
    "papertrail_matcher_webhook_deliveries_total",
    "Webhook tries by outcome: delivered, retry (due again later), failed, skipped_disabled (the host disabled).",
    ["outcome"],
)
FOLLOWS = Gauge("papertrail_matcher_follows", "Active follows in the matcher's index, by kind.", ["kind"])
DIGESTS = Counter(
    "papertrail_matcher_digests_total", "Daily digests by outcome: stored, mailed, mail_failed.", ["outcome"]
)
