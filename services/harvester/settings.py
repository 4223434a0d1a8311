"""Harvester settings: base URLs, schedules and politeness per source."""

import re

from pydantic import Field, SecretStr, field_validator

from papertrail.runtime.settings import InfraSettings

KNOWN_SOURCES = (
    "arxiv",
    "arxiv_feed",
    "acl",
    "hf",
    "pmlr",
    "openreview",
    "daily_arxiv",
    "arxiv_html",
    "semantic_scholar",
    "ccf_deadlines",
)
COLLECTION_ID = re.compile(r"\d{4}\.[A-Za-z0-9-]+")  # an ACL Anthology collection: 2024.acl
VOLUME_FILE = re.compile(r"v\d+/[\w.-]+\.bib")  # a PMLR volume's file: v267/icml25.bib
# an OpenReview venue (group) id: ICLR.cc/2025/Conference, NeurIPS.cc/2025/Workshop/RegML, TMLR
VENUE_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)*")
# a category of arXiv's taxonomy as the feed URL names it: cs, cs.AI, hep-ph, q-bio.NC, astro-ph.GA
CATEGORY = re.compile(r"[a-z]+(-[a-z]+)?(\.[A-Za-z]+(-[A-Za-z]+)?)?")


def every_one(value: list[str], form: re.Pattern[str], what: str) -> list[str]:
    """The list when each of its names has the form, else the error naming the ones that do not."""
    bad = [name for name in value if not form.fullmatch(name)]
    if bad:
        raise ValueError(f"{bad} are not {what}")
    return value


class HarvesterSettings(InfraSettings):
    http_port: int = Field(8001, ge=1, le=65535, description="port of /metrics, /healthz, /readyz")
    sources: list[str] = Field(
        ["arxiv", "daily_arxiv", "arxiv_html", "ccf_deadlines"],
        description="sources to run on their schedules: arxiv, arxiv_feed (the announcement watcher), acl, hf, pmlr, "
        "openreview (the accepted papers of OPENREVIEW_VENUES), daily_arxiv (daily-arXiv-ai-enhanced's Chinese "
        "summaries), arxiv_html (the first page of each arXiv paper published: its authors' affiliations), "
        "semantic_scholar (citation counts; off unless named), ccf_deadlines (the venue catalogue's editions, "
        "deadlines and acceptance rates)",
    )

    arxiv_oai_url: str = Field("https://oaipmh.arxiv.org/oai", description="arXiv OAI-PMH base URL")
    arxiv_metadata_prefix: str = Field("arXivRaw", description="OAI metadataPrefix: arXivRaw, arXiv or oai_dc")
    arxiv_sets: list[str] = Field(["cs"], description="OAI sets to harvest")
    arxiv_start_date: str | None = Field(
        None, pattern=r"^\d{4}-\d{2}-\d{2}$", description="first `from` date when there is no checkpoint yet"
    )
    arxiv_interval_s: float = Field(3600, gt=0, description="seconds between arXiv runs")
    arxiv_min_request_interval_s: float = Field(3.0, ge=0, description="arXiv asks for one request per 3 s")

    arxiv_feed_url: str = Field(
        "https://rss.arxiv.org/atom", description="arXiv's Atom feeds, read at <url>/<category>"
    )
    arxiv_feed_categories: list[str] = Field(
        ["cs"], min_length=1, description='categories whose announcement is watched, e.g. ["cs"] or ["cs.AI", "cs.CL"]'
    )
    arxiv_feed_lead_s: float = Field(
        300, ge=0, le=3600, description="start watching this long before 20:00 US Eastern on announcement days"
    )
    arxiv_feed_watch_s: float = Field(
        5 * 3600,
        gt=0,
        le=12 * 3600,
        description="stop watching this long after 20:00 US Eastern when no new batch came (a holiday); arXiv's "
        "docs say the feeds are rebuilt at midnight EST, 5 h after 20:00 EDT",
    )
    arxiv_feed_poll_s: float = Field(
        60, ge=0, le=3600, description="pause between two rounds over the categories still waiting"
    )
    arxiv_feed_gap_s: float = Field(
        12 * 3600,
        gt=0,
        description="an announced paper whose OAI-PMH record has not come this long after is a gap (OAI-PMH serves a "
        "day's records about 2 h after the announcement)",
    )

    acl_anthology_url: str = Field(
        "https://raw.githubusercontent.com/acl-org/acl-anthology/master",
        description="ACL Anthology repository root; files are read from <url>/data/xml/<collection>.xml",
    )
    acl_volumes: list[str] = Field(
        ["2025.acl", "2025.findings"], description='collection files to read, e.g. ["2024.acl", "2024.findings"]'
    )
    acl_interval_s: float = Field(24 * 3600, gt=0, description="seconds between ACL Anthology runs")
    acl_min_request_interval_s: float = Field(1.0, ge=0, description="pause between two anthology requests")

    pmlr_url: str = Field(
        "https://raw.githubusercontent.com/mlresearch",
        description="root of PMLR's volume repositories; a volume file is read at <url>/<volume>/<branch>/<file>",
    )
    pmlr_branch: str = Field("gh-pages", description="branch of the volume repositories the files are read from")
    pmlr_volumes: list[str] = Field(
        ["v267/icml25.bib"],
        description='PMLR volume files as <volume>/<file>, e.g. ["v267/icml25.bib"] (ICML 2025); AISTATS, COLT, '
        "CoRL volumes alike",
    )
    pmlr_interval_s: float = Field(24 * 3600, gt=0, description="seconds between PMLR runs")
    pmlr_min_request_interval_s: float = Field(1.0, ge=0, description="pause between two PMLR requests")

    openreview_api_url: str = Field(
        "https://api2.openreview.net",
        description="OpenReview API v2; a venue's accepted papers are read at <url>/notes?content.venueid=<venue>",
    )
    openreview_venues: list[str] = Field(
        ["ICLR.cc/2025/Conference"],
        min_length=1,
        description='OpenReview venue ids whose accepted papers are read, e.g. ["ICLR.cc/2025/Conference", '
        '"NeurIPS.cc/2025/Conference", "NeurIPS.cc/2025/Workshop/RegML"]',
    )
    openreview_page_limit: int = Field(
        1000, ge=1, le=1000, description="notes asked for per request (the API answers at most 1000)"
    )
    openreview_interval_s: float = Field(24 * 3600, gt=0, description="seconds between OpenReview runs")
    openreview_min_request_interval_s: float = Field(2.0, ge=0, description="pause between two OpenReview requests")

    hf_api_url: str = Field("https://huggingface.co", description="Hugging Face base URL (…/api/daily_papers)")
    hf_days: int = Field(2, ge=0, le=60, description="read today's list and the previous HF_DAYS days'")
    hf_interval_s: float = Field(3 * 3600, gt=0, description="seconds between Hugging Face daily papers runs")
    hf_min_request_interval_s: float = Field(1.0, ge=0, description="pause between two Hugging Face requests")
    hf_fetch_arxiv: bool = Field(
        True,
        description="fetch each new pick's arXiv record (OAI-PMH GetRecord at arXiv's pace) for its categories and "
        "versions",
    )

    daily_arxiv_url: str = Field(
        "https://raw.githubusercontent.com/dw-dengwei/daily-arXiv-ai-enhanced/data",
        description="daily-arXiv-ai-enhanced's `data` branch; a day's file is read at "
        "<url>/data/<date>_AI_enhanced_Chinese.jsonl",
    )
    daily_arxiv_days: int = Field(
        2, ge=0, le=60, description="read today's daily-arXiv-ai-enhanced file and the previous DAILY_ARXIV_DAYS days'"
    )
    daily_arxiv_interval_s: float = Field(
        6 * 3600, gt=0, description="seconds between daily-arXiv-ai-enhanced runs (it publishes once a day)"
    )
    daily_arxiv_min_request_interval_s: float = Field(
        2.0, ge=0, description="pause between two daily-arXiv-ai-enhanced requests"
    )

    arxiv_html_url: str = Field(
        "https://arxiv.org/html",
        description="arXiv's HTML renderings; a paper's first page (its author block) is read at <url>/<arXiv id>, "
        "through the arXiv connection at its pace (ARXIV_MIN_REQUEST_INTERVAL_S)",
    )
    arxiv_pdf_url: str = Field(
        "https://arxiv.org/pdf",
        description="arXiv's PDFs; a paper without an HTML rendering has its first page read from <url>/<arXiv id>",
    )
    arxiv_pdf_max_bytes: int = Field(
        20 * 1024 * 1024,
        ge=1024,
        description="a PDF larger than this is not read (counted as too_large); arXiv accepts submissions to 50 MB",
    )
    arxiv_html_interval_s: float = Field(
        600, gt=0, description="seconds between runs of arxiv_html (each reads the pages queued since the last)"
    )
    arxiv_html_batch: int = Field(
        100,
        ge=1,
        le=5000,
        description="first pages one arxiv_html run reads at most (at 3 s each, 6 s with a PDF: 5-10 minutes, well "
        "inside the SourceStale alert's three intervals)",
    )
    arxiv_html_max_bytes: int = Field(
        8 * 1024 * 1024,
        ge=1024,
        description="a first page larger than this is not read (counted as too_large); arXiv's are a few MB at most",
    )

    ccf_deadlines_url: str = Field(
        "https://codeload.github.com/ccfddl/ccf-deadlines/tar.gz/refs/heads/main",
        description="the ccfddl/ccf-deadlines repository as a tar.gz archive (GitHub's, one top folder): its "
        "conference/ and accept_rates/ files are read, asked again only when its ETag changed",
    )
    ccf_deadlines_interval_s: float = Field(
        12 * 3600, gt=0, description="seconds between ccf-deadlines runs (one request each, about 7 MB when changed)"
    )
    ccf_deadlines_max_bytes: int = Field(
        64 * 1024 * 1024, ge=1024, description="an archive larger than this is not read (the run fails, naming it)"
    )
    s2_api_url: str = Field(
        "https://api.semanticscholar.org/graph/v1",
        description="Semantic Scholar's Academic Graph API; the semantic_scholar source asks <url>/paper/batch for the "
        "citation counts of the papers due (citation schedule: docs/operations.md)",
    )
    s2_api_key: SecretStr | None = Field(
        None,
        description="Semantic Scholar API key (sent as x-api-key); without one the source shares the API's "
        "unauthenticated pool, which answers 429 more often",
    )
    s2_batch: int = Field(100, ge=1, le=500, description="papers asked per batch request (the API takes 500 at most)")
    s2_batches_per_run: int = Field(
        20, ge=1, le=1000, description="batch requests one semantic_scholar run makes at most"
    )
    s2_interval_s: float = Field(3600, gt=0, description="seconds between runs of semantic_scholar")
    s2_min_request_interval_s: float = Field(
        1.0, ge=0, description="pause between two Semantic Scholar requests (the API's published limit: 1 per second)"
    )
    s2_max_pause_s: float = Field(
        600, gt=0, description="the longest pause between batches a run of 429 answers slows the source down to"
    )

    lease_ttl_s: float = Field(
        300, gt=0, description="a source's run lease expires this long after its holder stops renewing it"
    )
    import_batch_size: int = Field(1000, ge=1, le=100_000, description="records per batch of `papertrail import`")

    http_timeout_s: float = Field(60, gt=0, description="timeout of one HTTP request to a source")
    http_retries: int = Field(5, ge=0, description="retries of a 5xx / timeout before the run fails")
    retry_after_max_s: float = Field(600, gt=0, description="longest Retry-After the harvester will honour")
    user_agent: str = Field("PaperTrail/0.1 (research paper tracker)", description="User-Agent sent to sources")

    @field_validator("sources")
    @classmethod
    def _known_sources(cls, value: list[str]) -> list[str]:
        unknown = [name for name in value if name not in KNOWN_SOURCES]
        if unknown:
            raise ValueError(f"unknown source(s) {unknown}; known: {list(KNOWN_SOURCES)}")
        return value

    @field_validator("arxiv_feed_categories")
    @classmethod
    def _categories(cls, value: list[str]) -> list[str]:
        return every_one(value, CATEGORY, "arXiv categories such as cs or cs.AI")

    @field_validator(
        "arxiv_oai_url",
        "arxiv_feed_url",
        "acl_anthology_url",
        "hf_api_url",
        "pmlr_url",
        "openreview_api_url",
        "daily_arxiv_url",
        "arxiv_html_url",
        "arxiv_pdf_url",
        "ccf_deadlines_url",
        "s2_api_url",
    )
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/")

    @field_validator("acl_volumes")
    @classmethod
    def _collection_ids(cls, value: list[str]) -> list[str]:
        return every_one(value, COLLECTION_ID, "anthology collection ids such as 2024.acl")

    @field_validator("pmlr_volumes")
    @classmethod
    def _volume_files(cls, value: list[str]) -> list[str]:
        return every_one(value, VOLUME_FILE, "PMLR volume files such as v267/icml25.bib")

    @field_validator("openreview_venues")
    @classmethod
    def _venue_ids(cls, value: list[str]) -> list[str]:
        return every_one(value, VENUE_ID, "OpenReview venue ids such as ICLR.cc/2025/Conference")
