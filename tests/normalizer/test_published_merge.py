"""A preprint and its published records merged into one paper (issue 24 §3): the PMLR entry and an OpenReview
venue's accepted note join the arXiv preprint by title and first author, a DBLP record by a shared id; the paper is
published at the catalogue's venue, its history holds the venue record as "published", the DOI added. Same title,
other authors: two papers."""

import json
from datetime import UTC, datetime

from papertrail.domain.venues.accepted import accepted_claims, accepted_venues
from schemas.paper import Paper
from services.harvester.sources.openreview_notes import split_notes
from services.harvester.sources.pmlr_bib import split_volume
from services.normalizer.identity import merge
from services.normalizer.parsers.registry import parse_raw
from services.normalizer.plan import Draft, plan_batch
from services.normalizer.records import Incoming
from tests.support.paths import SOURCES
from tests.support.sources import acl_records, raw_record

NOW = datetime(2026, 11, 30, tzinfo=UTC)
AI = frozenset({"cs.LG", "cs.CL"})
PMLR = {r.record_id: r for r in split_volume((SOURCES / "pmlr/icml25-head.bib").read_text(encoding="utf-8"))[0]}


def _preprint(arxiv_id: str, title: str, authors: list[str]) -> Incoming:
    """An arXiv preprint as a listing line (the corpus format): its title and authors as the venue record has them."""
    line = {"id": arxiv_id, "categories": ["cs.LG"], "authors": authors, "title": title, "summary": "Preprint."}
    raw = raw_record("corpus", arxiv_id, "corpus_json", json.dumps(line), datestamp="2024-11-27")
    return Incoming(raw, parse_raw(raw))


def _pmlr(record_id: str) -> Incoming:
    record = PMLR[record_id]
    raw = raw_record("pmlr", record.record_id, record.format, record.content, record.datestamp)
    return Incoming(raw, parse_raw(raw))


def _openreview() -> Incoming:
    """The recorded accepted note of the NeurIPS 2025 RegML workshop, split as the harvester splits the answer."""
    answer = (SOURCES / "openreview/pdoom-live_ai_risk_note.json").read_bytes()
    [record], _, _ = split_notes(answer, "NeurIPS.cc/2025/Workshop/RegML")
    raw = raw_record("openreview", record.record_id, record.format, record.content, record.datestamp)
    return Incoming(raw, parse_raw(raw))


def _dblp(name: str) -> Incoming:
    content = (SOURCES / "dblp" / name).read_text(encoding="utf-8")
    raw = raw_record("dblp", "record", "dblp_xml", content)
    return Incoming(raw, parse_raw(raw))


def _papers(drafts: list[Draft]) -> list[Paper]:
    return [d.paper for d in drafts if d.paper is not None]


STAR = "Star Attention: Efficient LLM Inference over Long Sequences"


def test_the_pmlr_record_makes_the_preprint_published_at_icml_2025() -> None:
    preprint = _preprint("2411.17116", STAR, ["Shantanu Acharya", "Fei Jia", "Boris Ginsburg"])
    plan = plan_batch([preprint, _pmlr("v267/acharya25a")], [], now=NOW, ai_categories=AI)
    [draft] = plan.drafts
    paper = draft.paper
    assert paper is not None and paper.id == "arxiv:2411.17116"
    assert paper.status == "published" and paper.venue == "ICML 2025" and paper.year == 2025
    assert paper.ids.pmlr == "v267/acharya25a" and paper.ids.openreview == "QY7Au9nZwp"
    assert paper.sources == ["arxiv", "pmlr"]
    assert paper.links["code"] == "https://github.com/NVIDIA/Star-Attention"
    assert [(v.seq, v.kind, v.source) for v in draft.versions] == [
        (1, "first_observed", "arxiv"),
        (2, "published", "pmlr"),
    ]
    assert [e.kind for e in draft.events] == ["new", "published"]
    [venue] = accepted_venues(paper)
    assert (venue.venue_key, venue.year, venue.track, venue.ccf_rank, venue.evidence) == (
        "AI/icml",
        2025,
        "main",
        "A",
        "proceedings",
    )


def test_the_published_record_first_then_the_preprint_is_one_paper_too() -> None:
    preprint = _preprint("2411.17116", STAR, ["Shantanu Acharya", "Fei Jia", "Boris Ginsburg"])
    plan = plan_batch([_pmlr("v267/acharya25a"), preprint], [], now=NOW, ai_categories=AI)
    [paper] = _papers(plan.drafts)
    assert paper.id == "openreview:QY7Au9nZwp"  # the first record's strongest id names the paper
    assert paper.ids.arxiv == "2411.17116" and paper.status == "published" and paper.venue == "ICML 2025"


EMERGENCY = "Emergency Response Measures for Catastrophic Risk"
EMERGENCY_AUTHORS = ["James Zhang", "Miles Kodama", "Zongze Wu", "Michael Chen", "Yue Zhu", "Geng Hong"]


def test_the_openreview_decision_makes_the_preprint_published_at_the_neurips_workshop() -> None:
    preprint = _preprint("2511.05526", EMERGENCY, EMERGENCY_AUTHORS)
    plan = plan_batch([preprint, _openreview()], [], now=NOW, ai_categories=AI)
    [draft] = plan.drafts
    paper = draft.paper
    assert paper is not None and paper.id == "arxiv:2511.05526"
    assert paper.status == "published" and paper.venue == "NeurIPS 2025 Workshop on RegML (Poster)"
    assert paper.year == 2025 and paper.ids.openreview == "4aMedv0ONH"
    assert paper.sources == ["arxiv", "openreview"]
    assert paper.links["openreview"] == "https://openreview.net/forum?id=4aMedv0ONH"
    assert [(v.seq, v.kind, v.source) for v in draft.versions] == [
        (1, "first_observed", "arxiv"),
        (2, "published", "openreview"),
    ]
    assert [e.kind for e in draft.events] == ["new", "published"]
    [venue] = accepted_venues(paper)
    assert (venue.venue_key, venue.year, venue.track, venue.ccf_rank, venue.evidence) == (
        "AI/nips",
        2025,
        "workshop",
        "A",
        "proceedings",
    )
    [claim] = accepted_claims(paper)
    assert (claim.presentation, claim.workshop) == ("poster", "Workshop on RegML")


def test_the_openreview_note_first_then_the_preprint_is_one_paper_too() -> None:
    preprint = _preprint("2511.05526", EMERGENCY, EMERGENCY_AUTHORS)
    plan = plan_batch([_openreview(), preprint, _openreview()], [], now=NOW, ai_categories=AI)
    [draft] = plan.drafts
    assert draft.paper is not None and draft.paper.id == "openreview:4aMedv0ONH"
    assert draft.paper.ids.arxiv == "2511.05526" and draft.paper.status == "published"
    assert len(draft.versions) == 2  # the same note again changes nothing


def test_a_preprint_titled_otherwise_stays_apart_from_the_openreview_note() -> None:
    """arXiv's title of the same work says "Catastrophic AI Risk": no shared id, another fingerprint, two papers (the
    merge rule would rather miss a join than make a wrong one)."""
    preprint = _preprint("2511.05526", "Emergency Response Measures for Catastrophic AI Risk", EMERGENCY_AUTHORS)
    papers = _papers(plan_batch([preprint, _openreview()], [], now=NOW, ai_categories=AI).drafts)
    assert sorted(p.status for p in papers) == ["preprint", "published"]


def test_same_title_other_first_author_stays_apart() -> None:
    other = _preprint("2411.99999", STAR, ["Jane Doe", "Fei Jia", "Boris Ginsburg"])
    plan = plan_batch([other, _pmlr("v267/acharya25a")], [], now=NOW, ai_categories=AI)
    papers = _papers(plan.drafts)
    assert len(papers) == 2
    preprint = next(p for p in papers if p.ids.arxiv)
    assert preprint.status == "preprint" and preprint.venue is None and preprint.ids.pmlr is None


def test_two_published_records_of_one_title_with_other_ids_never_merge() -> None:
    first = _pmlr("v267/acharya25a")
    second = _pmlr("v267/acharya25b")
    second.record.title, second.record.authors = first.record.title, first.record.authors
    plan = plan_batch([first, second], [], now=NOW, ai_categories=AI)
    assert len(plan.drafts) == 2  # two PMLR entries, two OpenReview forums: two works


def test_a_dblp_record_joins_the_acl_paper_by_its_doi_and_adds_its_key() -> None:
    acl_like = _dblp("openreview-py_ChangSRM23.xml")
    preprint = _preprint(
        "2210.05043",
        "Multi-CLS BERT: An Efficient Alternative to Traditional Ensembling",
        ["Haw-Shiuan Chang", "Ruei-Yao Sun", "Kathryn Ricci", "Andrew McCallum"],
    )
    plan = plan_batch([preprint, acl_like], [], now=NOW, ai_categories=AI)
    [draft] = plan.drafts
    paper = draft.paper
    assert paper is not None and paper.status == "published" and paper.venue == "ACL 2023"
    assert paper.ids.dois == ["10.18653/v1/2023.acl-long.48"] and paper.ids.dblp == "conf/acl/ChangSRM23"
    assert paper.abstract == "Preprint."  # DBLP has no abstract: the preprint's stays
    assert draft.versions[-1].kind == "published" and "ids" in draft.versions[-1].changed_fields


def test_a_corr_record_joins_its_arxiv_paper_by_id_and_publishes_nothing() -> None:
    preprint = _preprint(
        "2508.04024",
        "Identity Theft in AI Conference Peer Review",
        ["Nihar B. Shah", "Melisa Bok", "Xukun Liu", "Andrew McCallum"],
    )
    plan = plan_batch([preprint, _dblp("openreview-py_abs-2508-04024.xml")], [], now=NOW, ai_categories=AI)
    [paper] = _papers(plan.drafts)
    assert paper.id == "arxiv:2508.04024" and paper.status == "preprint" and paper.venue is None
    assert "dblp" in paper.sources


def test_delivering_the_published_record_again_changes_nothing() -> None:
    preprint = _preprint("2411.17116", STAR, ["Shantanu Acharya", "Fei Jia", "Boris Ginsburg"])
    plan = plan_batch([preprint, _pmlr("v267/acharya25a"), _pmlr("v267/acharya25a")], [], now=NOW, ai_categories=AI)
    [draft] = plan.drafts
    assert len(draft.versions) == 2 and len(draft.items) == 3


def _acl(acl_id: str, volume_file: str = "2024.acl-long-10-11.xml") -> Incoming:
    [raw] = [r for r in acl_records(SOURCES / "acl" / volume_file) if r.record_id == acl_id]
    return Incoming(raw, parse_raw(raw))


def test_an_acl_record_brings_its_volume_and_doi_to_the_preprint_it_joins() -> None:
    acl = _acl("2024.acl-long.11")
    preprint = _preprint(
        "2309.08627",  # the paper's arXiv id; the line is written from the ACL record's title and authors
        "Evaluating Dynamic Topic Models",
        ["Charu Karakkaparambil James", "Mayank Nagda", "Nooshin Haji Ghassemi", "Marius Kloft", "Sophie Fellenz"],
    )
    [draft] = plan_batch([preprint, acl], [], now=NOW, ai_categories=AI).drafts
    paper = draft.paper
    assert paper is not None and paper.id == "arxiv:2309.08627" and paper.status == "published"
    assert paper.published_in is not None and paper.published_in.pages == "160-176"
    assert paper.published_in == acl.record.published_in
    assert paper.ids.dois == ["10.18653/v1/2024.acl-long.11"]
    assert draft.versions[-1].kind == "published" and "published_in" in draft.versions[-1].changed_fields


def test_a_paper_stored_before_its_volume_was_kept_gets_it_when_its_record_comes_again() -> None:
    """A paper an older release stored from its ACL record has no `published_in`; the record read again (a re-harvest
    after READING 5) gives it, as a metadata update, and changes nothing once it is there."""
    acl = _acl("2024.acl-long.10", "2024.acl.xml")
    first = merge(None, acl.record, content_hash="h", now=NOW, ai_categories=AI, next_seq=1)
    assert first is not None and first.paper.published_in is not None
    stored = first.paper.model_copy(update={"published_in": None})  # as the release before it stored the paper
    again = merge(stored, acl.record, content_hash="h", now=NOW, ai_categories=AI, next_seq=2)
    assert again is not None and again.kind == "updated"
    assert again.version.changed_fields == ["published_in"] and again.paper.published_in == first.paper.published_in
    assert merge(again.paper, acl.record, content_hash="h", now=NOW, ai_categories=AI, next_seq=3) is None
