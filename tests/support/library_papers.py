"""Real papers for the library tests: recorded source files run through the normalizer's own parsers and merge, as
the pipeline stores them. Pure (no servers)."""

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from functools import cache
from typing import Any

from schemas.events import RawRecord
from schemas.paper import Paper, PaperIds
from services.normalizer.identity import contradicts, merge, paper_fingerprint, record_fingerprint
from services.normalizer.parsers.registry import parse_raw
from services.query.catalogue.reads.paper_lookup import PaperKey
from services.query.library.imports import LookupKey, TitleAuthorKey
from tests.support.sources import (
    ACL_RED_FM,
    acl_records,
    corpus_records,
    oai_records,
    red_fm_preprint,
    with_anthology_doi,
)

SEEN = datetime(2026, 11, 30, tzinfo=UTC)


def stored_papers(records: Iterable[RawRecord]) -> list[Paper]:
    """The papers the normalizer would hold after these records, in the order first seen (a record sharing an id with
    a held paper joins it; front matter is set aside)."""
    papers: dict[str, Paper] = {}
    held_by: dict[str, str] = {}
    for raw in records:
        parsed = parse_raw(raw)
        if parsed.is_front_matter:
            continue
        existing = next((papers[held_by[i]] for i in _ids(parsed.ids) if i in held_by), None)
        twin = papers.get(held_by.get(record_fingerprint(parsed), ""))
        if existing is None and twin is not None and not contradicts(twin.ids, parsed.ids):
            existing = twin  # no shared id, but the same title and first author (the normalizer's rule)
        change = merge(existing, parsed, content_hash=raw.sha256, now=SEEN, ai_categories=frozenset(), next_seq=1)
        if change is None:
            continue
        papers[change.paper.id] = change.paper
        held_by |= dict.fromkeys([*_ids(change.paper.ids), paper_fingerprint(change.paper)], change.paper.id)
    return list(papers.values())


def _ids(ids: PaperIds) -> list[str]:
    return [*([f"arxiv:{ids.arxiv}"] if ids.arxiv else []), *([f"acl:{ids.acl}"] if ids.acl else []), *ids.dois]


@cache
def acl_2024() -> tuple[Paper, ...]:
    """ACL 2024's papers (every volume), each with the DOI the Anthology assigns it."""
    return tuple(stored_papers(with_anthology_doi(r) for r in acl_records()))


@cache
def arxiv_oai() -> tuple[Paper, ...]:
    """arXiv papers from OAI-PMH pages: cs and physics listings, some published (journal references, DOIs), some with
    old-style ids (hep-th/…)."""
    records = [
        *oai_records("arXiv/invenio_sample_arxiv_response_listrecords_cs.xml", "arXiv"),
        *oai_records("arXiv/invenio_sample_arxiv_response_listrecords_physics.xml", "arXiv"),
        *oai_records("arXivRaw/mikesaelim_ListRecordsResponse.xml", "arXivRaw"),
    ]
    return tuple(stored_papers(records))


@cache
def corpus_days(days: int = 2) -> tuple[Paper, ...]:
    """The May 2026 arXiv listings' papers of the first days."""
    firsts = sorted({r.datestamp or "" for r in corpus_records()})[:days]
    return tuple(stored_papers(r for r in corpus_records() if r.datestamp in firsts))


@cache
def red_fm() -> Paper:
    """One work from two sources: the ACL paper RED^FM joined by its arXiv preprint (ids acl and arxiv)."""
    return stored_papers([*acl_records(ACL_RED_FM), red_fm_preprint()])[0]


class MemoryFinder:
    """The papers' holders of each lookup key, answered from memory as the service answers from `papers`: every id a
    paper holds, and its fingerprint."""

    def __init__(self, papers: Iterable[Paper], *, by_title_only: bool = False) -> None:
        self.by_title_only = by_title_only
        self.asked: list[list[LookupKey]] = []
        self.index: dict[LookupKey, list[dict[str, Any]]] = {}
        for paper in papers:
            document = {"_id": paper.id, "status": paper.status, "first_seen": paper.first_seen}
            keys: list[LookupKey] = [PaperKey("ids.dois", doi) for doi in paper.ids.dois]
            keys += [PaperKey("ids.arxiv", paper.ids.arxiv)] if paper.ids.arxiv else []
            keys += [PaperKey("ids.acl", paper.ids.acl)] if paper.ids.acl else []
            for key in [*keys, TitleAuthorKey(paper_fingerprint(paper))]:
                self.index.setdefault(key, []).append(document)

    async def holders(self, keys: Sequence[LookupKey]) -> dict[LookupKey, list[dict[str, Any]]]:
        """`by_title_only`: as if the entries' ids named papers not held, so only title + first author can find them."""
        self.asked.append(list(keys))
        wanted = [k for k in keys if isinstance(k, TitleAuthorKey) or not self.by_title_only]
        return {key: self.index[key] for key in wanted if key in self.index}
