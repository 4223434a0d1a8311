"""Searching papers: the search parameters as one model (the API's search route, the Atom search feed and the home
page's browser all take it), every constraint on a value in the model, so the OpenAPI document states what the
route enforces, and the search of the index they make, its values quoted, never pasted raw
(papertrail/domain/search_document.py builds the filter)."""

import re
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from pydantic import AfterValidator, AwareDatetime, BaseModel, BeforeValidator, Field

from papertrail.domain.author_institutions import ROR_ID_PATTERN
from papertrail.domain.search_document import SORT_FIELDS, DatedSort, PaperFilter, SortKey
from papertrail.domain.text import has_cjk
from papertrail.embedding.embedder import MINILM_INT8
from schemas.paper import ClaimTrack
from services.query.moments import in_utc

CATEGORY_PATTERN = r"^[A-Za-z\-]+(\.[A-Za-z\-]+)?$"  # cs.CL, math.GT, hep-th
SOURCE_PATTERN = r"^[a-z_]+$"
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


SearchMode = Literal["keyword", "hybrid", "semantic"]
# A search with weight on meaning matches the papers whose ranking score (Meilisearch's, 0..1: for meaning alone
# (1 + cosine) / 2 of the query's and the paper's vectors) is at least this; every paper is some distance from any
# text, so without it the count was the whole collection. Each model has its own (`meaning_min_score`); this one is
# the shipped MiniLM model's, 0.58 (a cosine of 0.16).
MEANING_MIN_SCORE = MINILM_INT8.meaning_min_score
# A search by meaning alone lists this many closest papers at most (fewer when fewer pass the closeness above): the
# floor alone let a Chinese query "find" 169 papers, most of them only loosely near, and the count read as matches.
MEANING_TOP_K = 50


@dataclass(slots=True)
class PaperQuery:
    q: str = ""
    filter: PaperFilter = field(default_factory=PaperFilter)
    sort: SortKey = "updated"
    page: int = 1
    size: int = 20
    semantic: float = 0.0  # 0: words only; 1: meaning only (the query text's vector against the papers')
    meaning_top_k: int = MEANING_TOP_K  # meaning only: how many of the closest papers are listed, at most

    @property
    def mode(self) -> SearchMode:
        """Which search answers: words alone without text to embed or with no weight on meaning."""
        if not self.q.strip() or self.semantic <= 0:
            return "keyword"
        return "semantic" if self.semantic >= 1 else "hybrid"

    def filters(self) -> list[str | list[str]]:
        return self.filter.clauses()

    def sort_by(self) -> list[str] | None:
        """Newest (or most cited) first by the chosen field; None for relevance. The index ranks by `sort` before the
        words (index.py RANKING_RULES), so a chosen time orders a query's matches, not only its ties."""
        return None if self.sort == "relevance" else [f"{SORT_FIELDS[self.sort]}:desc"]

    @property
    def matching(self) -> str | None:
        """Meilisearch's matchingStrategy: a query ordered by a time needs every word (else papers with only its
        first words, which relevance would rank below, would come first by date and be counted); relevance keeps
        Meilisearch's own (the last words dropped as needed, ranked below those with all). A query in Chinese needs
        every word too: Meilisearch cuts 多模态大模型幻觉 into words the reader never typed apart, and dropping the
        last ones answered 多模态 alone (and a feed, sorted by time, would list other papers than the page)."""
        q = self.q.strip()
        return "all" if q and (self.sort != "relevance" or has_cjk(q)) else None

    @property
    def closest(self) -> int | None:
        """A search by meaning alone lists the `meaning_top_k` closest papers (None: any other search)."""
        return self.meaning_top_k if self.mode == "semantic" else None


def by_meaning_instead(query: PaperQuery, found: int, searches_chinese: bool) -> PaperQuery | None:
    """The search by meaning that answers a search by words in Chinese (Japanese, Korean) that found nothing, on an
    index whose multilingual search vectors read it: most papers are English, and only those with an AI summary
    hold Chinese words. None: the words' answer stands."""
    if query.mode == "keyword" and found == 0 and searches_chinese and has_cjk(query.q):
        return replace(query, semantic=1.0)
    return None


# A search by words in Chinese that finds fewer papers than this (only papers with an AI summary hold Chinese words)
# lists, below them, up to MORE_BY_MEANING more that are closest in meaning: most papers are English only
FEW_BY_WORDS = 10
MORE_BY_MEANING = 10


def also_by_meaning(query: PaperQuery, found: int, searches_chinese: bool) -> PaperQuery | None:
    """The search by meaning whose closest papers follow the first page of a search by words in Chinese that found
    only a few (most papers hold no Chinese words, and those with a summary say a subject in one wording of many); None
    when the words' answer stands alone. Asked for enough to leave out the papers the words found."""
    if (
        query.mode == "keyword"
        and query.page == 1
        and 0 < found < FEW_BY_WORDS
        and searches_chinese
        and has_cjk(query.q)
    ):
        return replace(query, semantic=1.0, sort="relevance", size=found + MORE_BY_MEANING)
    return None


HAS_CODE = (
    "true: only papers with a code link (`links.code`: a source's own field, or a GitHub, GitLab … repository "
    "named in the abstract or comments); false: only papers without one"
)
AUTHOR_KEY_PATTERN = r"^[\w .'\-]{1,100}$"
VENUE_PATTERN = r"^[^\x00-\x1f\x7f]+$"  # printable: any venue name, quoted into the filter
TOPIC_ID_PATTERN = r"^[a-z0-9_\-]{1,64}$"


def _written_time(value: Any) -> Any:
    """A time as the document says one is written (an ISO date or RFC 3339 date-time): pydantic alone would also
    take a number of seconds (`until=0.5`), which the schema does not allow."""
    if isinstance(value, str) and not ISO_DATE.match(value):
        raise ValueError("must be a date (2026-05-01) or a date-time with its offset (2026-05-01T08:00:00Z)")
    return value


def _moment_in_utc(value: datetime | date) -> datetime | date:
    """A moment in UTC, refused when that falls outside the years 1-9999 (`in_utc`); a day as it is."""
    return in_utc(value) if isinstance(value, datetime) else value


# a day, or a moment with its offset: a time without one would be read in the server's zone
SearchTime = Annotated[
    AwareDatetime | date, BeforeValidator(_written_time), AfterValidator(_moment_in_utc)
]  # a day is a UTC day
# a moment with its offset, written as RFC 3339 (the feed's and the library's `since`), given in UTC
Moment = Annotated[AwareDatetime, BeforeValidator(_written_time), AfterValidator(in_utc)]
Categories = Annotated[
    list[Annotated[str, Field(pattern=CATEGORY_PATTERN)]], Field(description="categories (any of), e.g. cs.CL")
]
Status = Annotated[str | None, Field(pattern="^(preprint|published)$")]
Since = Annotated[SearchTime | None, Field(description="from this time, on the chosen sort's time")]


class PaperSearch(BaseModel):
    """What to look for: the free text and the filters, by GET /api/papers' names and limits. The Atom search feed
    takes them too, and so does the home page's browser, so a link made for one works on the other."""

    q: str = Field("", max_length=500, description="full-text query")
    semantic: float = Field(
        0.0,
        ge=0,
        le=1,
        description="weight of meaning against words for `q`: 0 words only (the default), 1 meaning only (the "
        "query's vector against the papers'), between: both, blended; the response's `mode` says which answered. A "
        "`q` holding Chinese (Japanese, Korean) characters is embedded by the multilingual model of the papers' "
        "search vectors (SEARCH_EMBEDDING_MODEL), so Chinese words find English papers",
    )
    category: Categories = []
    source: list[Annotated[str, Field(pattern=SOURCE_PATTERN)]] = Field([], description="sources (any of), e.g. arxiv")
    venue: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        pattern=VENUE_PATTERN,
        description="a venue the paper was accepted at (its claim or published record), by any catalogue name: "
        "ICML, 'International Conference on Machine Learning'; an unknown venue as the paper writes it",
        examples=["ICML"],
    )
    venue_year: int | None = Field(None, ge=1950, le=2100, description="the accepted claim's year", examples=[2026])
    ccf_rank: Literal["A", "B", "C"] | None = Field(
        None, description="the CCF rank of the venue the paper was accepted at (main and findings tracks)"
    )
    track: ClaimTrack | None = Field(None, description="the accepted claim's track: main, workshop, findings …")
    accepted: bool | None = Field(
        None,
        description="true: papers accepted somewhere (a claim in their comment, journal reference or DOI, or a "
        "published record); false: the others. A paper only submitted or under review is not accepted",
    )
    status: Status = None
    ai_related: bool | None = None
    has_revisions: bool | None = None
    has_code: bool | None = Field(None, description=HAS_CODE)
    topic: str | None = Field(None, pattern=TOPIC_ID_PATTERN, description="catalogue topic id")
    author: str | None = Field(
        None,
        pattern=AUTHOR_KEY_PATTERN,
        description="an author page's key: the full name as written ('li yinghui'), or family name and initial "
        "('li y': every author it may stand for)",
    )
    institution: str | None = Field(
        None,
        pattern=ROR_ID_PATTERN,
        description="a ROR id: papers one of whose authors is at that institution (GET /api/institutions lists them)",
        examples=["03cve4549"],
    )
    min_citations: int | None = Field(
        None,
        ge=0,
        le=1_000_000_000,
        description="only papers cited at least this often (by their last count; papers not counted yet are left out)",
        examples=[10],
    )
    since: Since = None
    until: SearchTime | None = Field(None, description="up to this time (a day is inclusive)")
    summarized_since: SearchTime | None = Field(
        None, description="only papers whose AI summary was written from this time"
    )

    def paper_query(self, sort: SortKey, page: int, size: int) -> PaperQuery:
        """This search, sorted and paged."""
        wanted = PaperFilter(
            categories=self.category,
            sources=self.source,
            venue=self.venue,
            venue_year=self.venue_year,
            ccf_rank=self.ccf_rank,
            track=self.track,
            accepted=self.accepted,
            status=self.status,
            ai_related=self.ai_related,
            has_revisions=self.has_revisions,
            has_code=self.has_code,
            topic_id=self.topic,
            author=self.author,
            institution=self.institution,
            min_citations=self.min_citations,
            summarized_since_ts=_epoch(self.summarized_since),
            dated_by=dated_by(sort),
            since_ts=_epoch(self.since),
            until_ts=_epoch(self.until, end=True),
        )
        return PaperQuery(q=self.q, filter=wanted, sort=sort, page=page, size=size, semantic=self.semantic)


def dated_by(sort: SortKey) -> DatedSort:
    """The time a search's date range applies to: the chosen one; first publication for the citation sorts (the most
    cited papers published in a range); the last version's for relevance."""
    if sort in ("updated", "ingested", "published"):
        return sort  # type: ignore[return-value]
    return "published" if sort in ("cited", "hot") else "updated"


class PaperListing(PaperSearch):
    """A page of a search: the search, one of three sorts, the page and its size (GET /api/papers, the home page)."""

    sort: SortKey | None = Field(
        None,
        description="relevance (the query's best matches first); newest first by a time: updated (the last "
        "version), ingested, published (first published); cited (the most cited first) or hot (the most citations "
        "per month since first publication first), papers not counted yet last; default: relevance with a query, "
        "updated without",
    )
    page: int = Field(1, ge=1, le=1000)
    size: int = Field(20, ge=1, le=100)

    @property
    def sorted_by(self) -> SortKey:
        """The sort chosen, or the default: relevance with a query, the last version's time without."""
        return self.sort or ("relevance" if self.q.strip() else "updated")

    def query(self) -> PaperQuery:
        return self.paper_query(self.sorted_by, self.page, self.size)

    def params(self, **changes: Any) -> dict[str, Any]:
        """The non-default parameters, with `changes` applied (None removes one); a changed filter resets the page."""
        values = self.model_dump(exclude_defaults=True, mode="json") | changes
        if "page" not in changes:
            values.pop("page", None)
        return {k: _text(v) for k, v in values.items() if v not in (None, "", [])}

    def url(self, path: str = "/", **changes: Any) -> str:
        """A link to `path` with these parameters (and `changes`), as the home page's browser makes them."""
        query = urlencode(self.params(**changes), doseq=True)
        return f"{path}?{query}" if query else path

    @property
    def filtered(self) -> bool:
        return bool(self.params(sort=None))


class SimilarSearch(BaseModel):
    """Which similar papers: how many, and the search's category, status and since filters (by their names there)."""

    size: int = Field(10, ge=1, le=50, description="how many similar papers")
    category: Categories = []
    status: Status = None
    since: Since = None

    def paper_filter(self) -> PaperFilter:
        return PaperFilter(categories=self.category, status=self.status, since_ts=_epoch(self.since))


def _text(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


LAST_SECOND = time(23, 59, 59)  # a day's end, whole (time.max's microseconds round up in year 9999's float)


def _epoch(value: datetime | date | None, end: bool = False) -> int | None:
    """Seconds since the epoch of a moment, or of a day's start (its end with `end`) in UTC. A day is taken as
    aware: a naive one's timestamp is computed in the server's zone, which fails for days in year 1 or 9999."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        value = datetime.combine(value, LAST_SECOND if end else time.min, tzinfo=UTC)
    return int(value.timestamp())
