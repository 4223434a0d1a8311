"""The merge's fast path stores and emits what the plain path does, over real corpus records.

The fast path: the held paper copied shallowly (a merge assigns every field it changes anew), and links found in a
text, names' keys, fingerprints, listing days and venue claims each worked out once. The plain path, as the merge
ran before: every such cache cleared before each record is parsed and merged, and the held paper given to the merge
as a deep copy of its own. One batch of real records (`_real_records`), planned both ways: the papers, version
records and events (each as it would be stored or sent) must be the same. In one batch a paper listed again is
merged into the draft an earlier record made, whose event still holds that draft's paper: were a merge to change a
shared part in place, the earlier event would change with it.
"""

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from papertrail.domain.names import _display_and_key
from papertrail.domain.paper_ids import fingerprint
from papertrail.domain.venues.claims import _shipped_catalogue_claims, venue_claims
from schemas.paper import Paper
from services.normalizer import plan as planning
from services.normalizer.identity import merge
from services.normalizer.links import _found_links, found_links
from services.normalizer.parsers.arxiv_json import _listing_day
from services.normalizer.parsers.registry import parse_raw
from services.normalizer.plan import Plan, plan_batch
from services.normalizer.records import Incoming
from services.normalizer.settings import DEFAULT_AI_CATEGORIES
from tests.support.sources import acl_records, corpus_records, oai_records, with_anthology_doi

NOW = datetime(2026, 5, 31, 12, tzinfo=UTC)
AI = frozenset(DEFAULT_AI_CATEGORIES)
PAPERS = 150  # the first papers the month lists on more than one day (1,351 are), with every listing of each
ACL_RECORDS = 300  # the first of the Anthology fixture's records
ARXIV_PAGES = (
    "invenio_sample_arxiv_response_listrecords_physics.xml",
    "invenio_sample_arxiv_response.xml",
    "invenio_sample_arxiv_response_listrecords_cs.xml",
    "invenio_sample_arxiv_response_with_namespace.xml",
)
RAW_PAGES = ("mikesaelim_ListRecordsResponse.xml", "mikesaelim_GetRecordResponse.xml")
DC_PAGES = (
    "invenio_sample_oai_dc_response.xml",
    "invenio_sample_arxiv_response_utf8.xml",
    "atomiklabs_test_arxiv_data_listrecords_cs.xml",
)
CACHES = (_found_links, _display_and_key, fingerprint, _shipped_catalogue_claims, _listing_day)


def _clear_caches() -> None:
    for cached in CACHES:
        cached.cache_clear()


def _plain_merge(existing: Paper | None, record: Any, **options: Any) -> Any:
    _clear_caches()
    return merge(existing.model_copy(deep=True) if existing is not None else None, record, **options)


def _plain_parse(raw: Any) -> Any:
    _clear_caches()
    return parse_raw(raw)


def _listed_again() -> list[Any]:
    records = corpus_records()
    listings = Counter(raw.record_id for raw in records)
    papers = list(dict.fromkeys(raw.record_id for raw in records if listings[raw.record_id] > 1))[:PAPERS]
    chosen = set(papers)
    return [raw for raw in records if raw.record_id in chosen]


def _real_records() -> list[Any]:
    """The corpus' papers listed again; every arXiv OAI-PMH page of the fixtures, in each format (a few papers are in
    two); the ACL Anthology's first records, then each again with the DOI the Anthology registers for it (a change)."""
    pages = [("arXiv", name) for name in ARXIV_PAGES] + [("arXivRaw", name) for name in RAW_PAGES]
    pages += [("oai_dc", name) for name in DC_PAGES]
    acl = acl_records()[:ACL_RECORDS]
    return [
        *_listed_again(),
        *(raw for fmt, name in pages for raw in oai_records(f"{fmt}/{name}", fmt)),  # type: ignore[arg-type]
        *acl,
        *map(with_anthology_doi, acl),
    ]


def _planned(parse: Callable[[Any], Any]) -> Plan:
    items = [Incoming(raw, parse(raw)) for raw in _real_records()]
    return plan_batch(items, [], now=NOW, ai_categories=AI)


def _as_stored_and_sent(plan: Plan) -> tuple[list[Any], list[Any], list[str]]:
    papers = [(d.paper.model_dump(mode="python"), d.fingerprints) for d in plan.drafts if d.paper is not None]
    versions = [v.model_dump(mode="python") for d in plan.drafts for v in d.versions]
    events = [e.model_dump_json() for d in plan.drafts for e in d.events]
    return papers, versions, events


def test_the_fast_path_stores_and_emits_what_the_plain_path_does(monkeypatch: pytest.MonkeyPatch) -> None:
    _clear_caches()
    fast = _as_stored_and_sent(_planned(parse_raw))
    monkeypatch.setattr(planning, "merge", _plain_merge)
    plain = _as_stored_and_sent(_planned(_plain_parse))
    papers, versions, _ = plain
    assert len(versions) > len(papers)  # some papers were merged again: the path the shallow copy takes
    assert fast[0] == plain[0]
    assert fast[1] == plain[1]
    assert fast[2] == plain[2]


def test_a_caller_changing_what_a_cached_reading_gave_leaves_the_next_reading_alone() -> None:
    record = next(r for r in map(parse_raw, corpus_records()) if found_links(r.abstract, r.comments) and r.comments)
    found = found_links(record.abstract, record.comments)
    found.clear()
    assert found_links(record.abstract, record.comments)
    commented = next(r for r in map(parse_raw, corpus_records()) if venue_claims(r.comments, None, []))
    claims = venue_claims(commented.comments, None, [])
    claims.clear()
    assert venue_claims(commented.comments, None, [])
