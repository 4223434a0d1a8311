"""Parser for one item of Hugging Face's daily papers list (`/api/daily_papers?date=`). Pure function.

The item names an arXiv paper (its id is the arXiv id, so it joins the arXiv paper) and adds the
community pick: the list date (the raw record's datestamp), upvotes, who submitted it and for which
organization. Two layouts are handled: 2024 items keep the pick inside `paper`, 2025 items add
`submittedBy`, `paper.submittedOnDailyBy` and `organization` objects.
"""

from typing import Any

from papertrail.domain.names import make_author
from papertrail.domain.text import readable
from schemas.events import RawRecord
from schemas.paper import CommunityPick, PaperIds
from services.normalizer.parsers.arxiv_oai import arxiv_id, arxiv_links
from services.normalizer.records import ParsedRecord, UnparseableRecord, json_content

HF_PAPERS = "https://huggingface.co/papers"


def _name(value: Any) -> str | None:
    """A user or organization object (or plain string) → its handle."""
    if isinstance(value, dict):
        return value.get("name") or value.get("user") or value.get("fullname")
    return value if isinstance(value, str) and value else None


def parse_hf_daily(raw: RawRecord) -> ParsedRecord:
    item = json_content(raw.content, "daily papers item")
    paper = item.get("paper") if isinstance(item, dict) else None
    if not isinstance(paper, dict):
        raise UnparseableRecord("daily papers item without a `paper` object")
    identifier = arxiv_id(str(paper.get("id") or raw.record_id))
    title_raw = paper.get("title") or item.get("title") or ""
    abstract_raw = paper.get("summary") or item.get("summary") or ""
    title = readable(title_raw)
    if not title:
        raise UnparseableRecord(f"HF {identifier}: empty title")
    authors = []
    for author in paper.get("authors") or []:
        if author.get("hidden") or not author.get("name"):
            continue
        source_ids = {"hf": author["_id"]} if author.get("_id") else {}
        if isinstance(author.get("user"), dict) and author["user"].get("user"):
            source_ids["hf_user"] = author["user"]["user"]
        authors.append(make_author(author["name"], source_ids=source_ids))
    published = str(paper.get("publishedAt") or "")
    list_date = raw.datestamp or str(item.get("publishedAt") or paper.get("submittedOnDailyAt") or "")[:10]
    if not list_date:
        raise UnparseableRecord(f"HF {identifier}: no list date (datestamp)")
    community = CommunityPick(
        date=list_date,
        upvotes=int(paper.get("upvotes") or 0),
        submitter=_name(item.get("submittedBy")) or _name(paper.get("submittedOnDailyBy")),
        organization=_name(item.get("organization")) or _name(paper.get("organization")),
    )
    links = arxiv_links(identifier) | {"hf": f"{HF_PAPERS}/{identifier}"}
    if paper.get("githubRepo"):
        links["code"] = paper["githubRepo"]
    if paper.get("projectPage"):
        links["project"] = paper["projectPage"]
    return ParsedRecord(
        source="hf",
        record_id=identifier,
        ids=PaperIds(arxiv=identifier),
        title=title,
        abstract=readable(abstract_raw),
        authors=authors,
        links=links,
        year=int(published[:4]) if published[:4].isdigit() else None,
        community=community,
        original={"title": title_raw, "abstract": abstract_raw},
    )
