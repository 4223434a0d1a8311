"""The normalizer's own Prometheus metrics: source records that are not papers, papers withdrawn, and links dropped."""

from prometheus_client import Counter

SET_ASIDE = Counter(
    "papertrail_normalizer_records_set_aside_total",
    "Source records that parse but describe no paper, by reason (front_matter: an ACL volume's front matter; "
    "first_page_before_paper: a first page's author block for a paper the store does not hold; "
    "citations_before_paper: a citation count for a paper the store does not hold).",
    ["reason"],
)
WITHDRAWN = Counter(
    "papertrail_normalizer_papers_withdrawn_total",
    "Papers removed from the store and announced on papers.withdrawn.v1, by reason.",
    ["reason"],
)
LINKS_DROPPED = Counter(
    "papertrail_normalizer_links_dropped_total",
    "Links of source records dropped because they are no http(s) URL (a `javascript:` code link), by source and "
    "link kind; the record is stored without them.",
    ["source", "kind"],
)
