"""The normalizer's own Prometheus metrics: source records that are not papers, and papers withdrawn."""

from prometheus_client import Counter

SET_ASIDE = Counter(
    "papertrail_normalizer_records_set_aside_total",
    "Source records that parse but describe no paper, by reason (front_matter: an ACL volume's front matter).",
    ["reason"],
)
WITHDRAWN = Counter(
    "papertrail_normalizer_papers_withdrawn_total",
    "Papers removed from the store and announced on papers.withdrawn.v1, by reason.",
    ["reason"],
)
