"""Papers as the API and the pages show them: one page of a search in the hits' documented shape, one paper with its
history and summary, an author's papers, and the paper any of its ids names."""

from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, Field

from papertrail.domain.author_institutions import institution_counts
from papertrail.domain.names import display_name_key, initials_only
from papertrail.domain.search_document import INSTITUTION_FACET, PaperFilter, paper_fields
from schemas.paper import Citations, Paper, VenueClaim
from services.query.catalogue.changes import version_changes
from services.query.catalogue.index import NoVectors, PaperIndex
from services.query.catalogue.reads.paper_lookup import paper_key
from services.query.catalogue.reads.search import (
    MORE_BY_MEANING,
    PaperQuery,
    SimilarSearch,
    also_by_meaning,
    by_meaning_instead,
    few_by_words,
)
from services.query.catalogue.repositories import CatalogueRecords


class PaperHit(BaseModel):
    paper_id: str = Field(description="canonical paper id")
    title: str = ""
    title_zh: str | None = None
    authors: list[str] = []
    authors_detail: list[dict[str, Any]] = []
    abstract: str = ""
    categories: list[str] = []
    sources: list[str] = []
    ids: dict[str, Any] = {}
    venue: str | None = None
    year: int | None = None
    status: str = "preprint"
    ai_related: bool = False
    tldr_zh: str | None = None
    tldr_en: str | None = None
    summary_status: str | None = None
    current_version: str | None = None
    version_seq: int | None = None
    version_kind: str | None = Field(None, description="what the latest record is: first_observed, new_version, …")
    has_revisions: bool = False
    links: dict[str, str] = Field(
        default_factory=dict,
        description="named links: abs, pdf, anthology, doi, hf, video; code, dataset, model, demo (a Hugging Face "
        "space) and project (page), from a source's own field or found in the abstract or comments",
    )
    comments: str | None = None
    journal_ref: str | None = None
    venue_claims: list[VenueClaim] = Field(
        default_factory=list,
        description="venues the paper says it was accepted at (`status: accepted`) or only submitted to "
        "(`submitted`: never an acceptance), read from its comment, journal reference or DOI (`source`)",
        examples=[
            [
                {
                    "venue": "ICML",
                    "venue_key": "AI/icml",
                    "year": 2026,
                    "status": "accepted",
                    "track": "main",
                    "presentation": "spotlight",
                    "ccf_rank": "A",
                    "source": "comment",
                    "text": "ICML 2026 [Spotlight]",
                }
            ]
        ],
    )
    accepted: bool = Field(False, description="accepted somewhere: an accepted claim, or a published record")
    topic_ids: list[str] = []
    institution_ids: list[str] = Field(
        default_factory=list,
        description="the ROR ids of the authors' institutions, in author order (each author's own, with the "
        "affiliation as written, in `authors_detail[].institutions`)",
        examples=[["03cve4549", "03vs3wt56"]],
    )
    shown_institutions: list[dict[str, Any]] = Field(
        default_factory=list,
        description="the paper's institutions as a card shows them, each once in author order: `name` (ROR's, or "
        "the affiliation as written when unmatched), `name_zh`, `ror` (null when unmatched); the AI summary's "
        "names (no `ror`) when no author has a matched institution",
        examples=[
            [
                {
                    "name": "Tsinghua University",
                    "name_zh": "清华大学",
                    "ror": "03cve4549",
                    "affiliation": "Tsinghua University, Tsinghua University",
                }
            ]
        ],
    )
    community: dict[str, Any] | None = None
    citations: Citations | None = Field(
        None,
        description="how often the paper is cited: `count`, the citation index that counted (`source`) and when it "
        "answered with that count (`as_of`); null while not counted",
    )
    citation_count: int | None = Field(None, description="the count alone (what `sort=cited` and `min_citations` read)")
    citations_per_month: float | None = Field(
        None,
        description="citations per month since first publication (a paper younger than a month counted a month old), "
        "as of when its document was last written: what `sort=hot` orders by",
    )
    updated_ts: int | None = None
    ingested_ts: int | None = None
    published_ts: int | None = None


class SimilarHit(PaperHit):
    score: float = Field(description="closeness in meaning, 0..1 (Meilisearch's ranking score of the two vectors)")


# Search lists return what a hit shows; the summary's long sections and the history stay on the paper page.
LIST_FIELDS = list(PaperHit.model_fields)
# What a hit holds when its document lacks a field (topic_ids before the paper's first topic hit, say), so every
# hit has the documented shape without validating each one through the model.
HIT_DEFAULTS = {name: field.get_default(call_default_factory=True) for name, field in PaperHit.model_fields.items()}


async def find_papers(index: PaperIndex, query: PaperQuery) -> dict[str, Any]:
    """One page of papers in the search response's shape: what the API returns, the home page shows and the Atom
    search feed lists. Chinese words that no paper holds are searched again by meaning (`by_meaning_instead`); those
    that only a few papers hold are followed by the papers closest in meaning to those few (`more_by_meaning`, their
    text embedded here while none has its vector yet), or to the words when that cannot be done."""
    found = await index.search(query, attributes=LIST_FIELDS)
    instead = by_meaning_instead(query, found.total, index.searches_chinese)
    if instead is not None:
        try:
            found = await index.search(instead, attributes=LIST_FIELDS)
        except NoVectors:  # the words' answer stands: a search by words never fails for want of a vector
            instead = None
    more: list[dict[str, Any]] = []
    if instead is None and few_by_words(query, found.total):
        # the papers most like those the words found: closer to the subject than the query text's own vector
        ids = [hit["paper_id"] for hit in found.hits]
        more = await index.like_these(ids, query.filter, MORE_BY_MEANING, LIST_FIELDS)
    if not more and (also := also_by_meaning(query, found.total, index.searches_chinese)) is not None:
        try:
            near = await index.search(also, attributes=LIST_FIELDS)
        except NoVectors:  # the words' answer stands alone
            near = None
        by_words = {hit["paper_id"] for hit in found.hits}
        more = [hit for hit in near.hits if hit["paper_id"] not in by_words][:MORE_BY_MEANING] if near else []
    for hit in [*found.hits, *more]:
        for name, default in HIT_DEFAULTS.items():
            hit.setdefault(name, default)
    facets = dict(found.facets)
    institutions, institution_names = institution_counts(facets.pop(INSTITUTION_FACET, {}))
    if institutions:
        facets["institution"] = institutions
    return {
        "total": found.total,
        "page": query.page,
        "size": query.size,
        "sort": query.sort,
        "mode": found.mode,
        "by_meaning_instead": instead is not None,
        "closest": found.closest,
        "min_score": found.min_score,
        "hits": found.hits,
        "more_by_meaning": more,
        "facets": facets,
        "institution_names": institution_names,
    }


async def similar_papers(
    index: PaperIndex, catalogue: CatalogueRecords, paper_id: str, search: SimilarSearch, model_key: str
) -> dict[str, Any]:
    """The papers closest in meaning to a paper, each with its score, and where the paper's own vector stands: none
    are listed while it is `pending` (not embedded yet) or `failed` (its text cannot be embedded)."""
    state = await catalogue.vectors.vector_state(paper_id, model_key)
    hits = []
    if state == "embedded":
        hits = await index.similar(paper_id, search.paper_filter(), search.size, LIST_FIELDS)
    for hit in hits:
        hit["score"] = round(hit.pop("_rankingScore", 0.0), 4)
        for name, default in HIT_DEFAULTS.items():
            hit.setdefault(name, default)
    return {"paper_id": paper_id, "vector": state, "model": model_key, "hits": hits}


def paper_url(paper_id: str, under: str = "/papers/") -> str:
    """The address of a paper (its page, or under another route), the id percent-encoded but for its ':' and '/'."""
    return under + quote(paper_id, safe="/:")


def held_record(paper_id: str, stored: dict[str, Any]) -> Paper:
    """The canonical paper as the schema publishes it, without the normalizer's storage fields (fingerprints,
    write ids, version records pending their own collection)."""
    fields = {name: value for name, value in stored.items() if name in Paper.model_fields}
    return Paper.model_validate({**fields, "id": paper_id})


def public_paper(paper_id: str, stored: dict[str, Any]) -> dict[str, Any]:
    return held_record(paper_id, stored).model_dump(mode="json")


def canonical_hit(paper: Paper) -> dict[str, Any]:
    """What a paper shows from its canonical record alone (no summary, no topics): its fields while the search index
    does not hold it yet, so the answer is the paper itself and never an empty shell."""
    return HIT_DEFAULTS | paper_fields(paper)


async def paper_detail(paper: dict[str, Any], index: PaperIndex, catalogue: CatalogueRecords) -> dict[str, Any]:
    """A held paper (its `papers` document) with its search document, version history and summary; a paper the
    index does not hold yet (it is on its way, or was parked) answers from its canonical record and says so."""
    paper_id = paper.pop("_id")
    record = held_record(paper_id, paper)
    document = await index.get(paper_id)
    canonical = record.model_dump(mode="json")
    history = await catalogue.papers.versions_of(paper_id)
    summary = document.get("summary") if document is not None else None
    waiting = summary is None or summary.get("status") == "pending" or bool(summary.get("publisher"))
    return {
        **(document if document is not None else canonical_hit(record)),
        "searchable": document is not None,
        "paper": canonical,
        "history": history,
        "changes": version_changes(canonical, history),
        "summary": summary,
        "summary_queue_place": await catalogue.summary_backlog.place_of(paper_id) if waiting else None,
        "topic_reasons": document.get("topic_reasons", {}) if document is not None else {},
    }


SAME_INITIAL_READ = 1000  # papers read for the authors a family name and initial may stand for


async def author_papers(index: PaperIndex, key: str, page: int, size: int) -> dict[str, Any]:
    """An author's papers, newest first: those signed with the full name of `key` as written ("li yinghui"), with
    the names they appear under. A name of initials only ("li y", as pages were keyed before full names, or
    "Y.k. Li") may stand for several people: its page also lists the authors sharing its family name and initial
    (`candidates`), each with its page key and number of papers. An old initial key that no paper signs as such and
    that stands for one name only answers as that name's page (its `key` says which)."""
    found = await _author_page(index, key, page, size)
    if not found["total"] and len(found["candidates"]) == 1:
        return await _author_page(index, found["candidates"][0]["key"], page, size)
    return found


async def _author_page(index: PaperIndex, key: str, page: int, size: int) -> dict[str, Any]:
    wanted = PaperFilter(author_name=key)
    results = await index.search(PaperQuery(filter=wanted, sort="published", page=page, size=size))
    own = [a for hit in results.hits for a in hit.get("authors_detail", []) if _name_key(a) == key]
    names = sorted({a["name"] for a in own})
    # a page of an old "family initial" key may hold no paper signed so: the key itself is the initial key then
    initial_key = (own[0].get("key") or key) if own else key
    ambiguous = all(initials_only(name) for name in names)
    candidates = await same_initial(index, initial_key, key) if ambiguous else []
    return {
        "key": key,
        "names": names,
        "total": results.total,
        "hits": results.hits,
        "initial_key": initial_key,
        "initials_only": ambiguous,
        "candidates": candidates,
    }


async def same_initial(index: PaperIndex, initial_key: str, but: str) -> list[dict[str, Any]]:
    """The authors (by full name) whose family name and initial are `initial_key`, `but` that name: most papers
    first, among the latest SAME_INITIAL_READ papers of that key."""
    wanted = PaperQuery(filter=PaperFilter(author_key=initial_key), sort="published", size=SAME_INITIAL_READ)
    found = await index.search(wanted, ["paper_id", "authors_detail"])
    papers: dict[str, set[str]] = {}
    names: dict[str, dict[str, int]] = {}
    for hit in found.hits:
        for author in hit.get("authors_detail", []):
            name_key = _name_key(author)
            if author.get("key") == initial_key and name_key and name_key != but:
                papers.setdefault(name_key, set()).add(hit["paper_id"])
                spelled = names.setdefault(name_key, {})
                spelled[author["name"]] = spelled.get(author["name"], 0) + 1
    return sorted(
        (
            {"key": k, "name": max(names[k], key=lambda n: (names[k][n], n)), "papers": len(ids)}
            for k, ids in papers.items()
        ),
        key=lambda c: (-c["papers"], c["key"]),
    )


def _name_key(author: dict[str, Any]) -> str:
    return display_name_key(author.get("name") or "")


async def held_paper(catalogue: CatalogueRecords, paper_id: str) -> dict[str, Any] | None:
    """The paper (its `papers` document) holding the id in any of its forms, or None; NotAPaperId names what is
    wrong with text that is no paper id."""
    return await catalogue.papers.paper(paper_key(paper_id))
