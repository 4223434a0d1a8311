"""Merging records into canonical papers: new, revised, published, unchanged; names and keys."""

import dataclasses
from datetime import UTC, datetime, timedelta

from papertrail.domain.names import author_key, split_author_list, split_name
from papertrail.domain.text import title_key
from schemas.paper import PaperIds, SourceVersion
from services.normalizer.identity import canonical_id, merge, record_fingerprint
from services.normalizer.parsers.registry import parse_raw
from services.normalizer.records import ParsedRecord
from tests.support.sources import ACL_RED_FM, acl_records, parsed_arxiv, red_fm_preprint

NOW = datetime(2026, 11, 30, tzinfo=UTC)
AI = frozenset({"cs.CL", "cs.LG"})


def _record(**changes: object) -> ParsedRecord:
    return parsed_arxiv(NOW, **changes)


def test_first_observation_makes_a_new_paper() -> None:
    change = merge(None, _record(), content_hash="h1", now=NOW, ai_categories=AI, next_seq=1)
    assert change is not None and change.kind == "new"
    assert change.paper.id == "arxiv:2401.00001"
    assert change.paper.ai_related is True
    assert change.version.seq == 1 and change.version.kind == "first_observed"
    assert "title" in change.version.changed_fields


def test_same_record_again_changes_nothing() -> None:
    first = merge(None, _record(), content_hash="h1", now=NOW, ai_categories=AI, next_seq=1)
    assert first is not None
    again = merge(first.paper, _record(), content_hash="h1", now=NOW + timedelta(hours=1), ai_categories=AI, next_seq=2)
    assert again is None


def test_new_arxiv_version_is_a_revision_and_newest_wins() -> None:
    first = merge(None, _record(), content_hash="h1", now=NOW, ai_categories=AI, next_seq=1)
    assert first is not None
    v2 = _record(
        title="A Better Study of Things",
        versions=[*_record().versions, SourceVersion(source="arxiv", label="v2", date=NOW)],
    )
    change = merge(first.paper, v2, content_hash="h2", now=NOW, ai_categories=AI, next_seq=2)
    assert change is not None and change.kind == "revised"
    assert change.paper.title == "A Better Study of Things"
    assert change.paper.current_version == "v2"
    assert change.version.seq == 2 and set(change.version.changed_fields) >= {"title", "versions"}
    # what v2 changed, as it read before: the title only (the abstract, authors and categories stayed)
    assert change.version.before is not None
    assert change.version.before.model_dump(mode="json") == {"title": first.paper.title}
    assert first.version.before is None  # a first observation changed nothing that was there


def test_a_new_comment_records_the_empty_one_before_it() -> None:
    first = merge(None, _record(comments=None), content_hash="h1", now=NOW, ai_categories=AI, next_seq=1)
    assert first is not None
    v2 = _record(
        comments="Accepted at ICML 2026",
        versions=[*_record().versions, SourceVersion(source="arxiv", label="v2", date=NOW)],
    )
    change = merge(first.paper, v2, content_hash="h2", now=NOW, ai_categories=AI, next_seq=2)
    assert change is not None and change.version.before is not None
    assert change.version.before.model_dump(mode="json") == {"comments": ""}


def test_journal_ref_makes_it_published() -> None:
    first = merge(None, _record(), content_hash="h1", now=NOW, ai_categories=AI, next_seq=1)
    assert first is not None
    published = _record(journal_ref="Proc. ACL 2024", status="published")
    change = merge(first.paper, published, content_hash="h2", now=NOW, ai_categories=AI, next_seq=2)
    assert change is not None and change.kind == "published" and change.paper.status == "published"


def test_canonical_id_prefers_arxiv_then_acl_then_doi() -> None:
    assert canonical_id(PaperIds(arxiv="2401.1", acl="2024.acl-long.1", dois=["10.1/x"])) == "arxiv:2401.1"
    assert canonical_id(PaperIds(acl="2024.acl-long.1", dois=["10.1/x"])) == "acl:2024.acl-long.1"
    assert canonical_id(PaperIds(dois=["10.1/x"])) == "doi:10.1/x"


def test_same_title_different_first_author_has_a_different_fingerprint() -> None:
    a = _record()
    b = _record(authors=split_author_list("John Smith, Wei Zhang"))
    assert record_fingerprint(a) != record_fingerprint(b)
    assert record_fingerprint(a) == record_fingerprint(_record(title="A  study of THINGS"))


def test_a_title_written_in_latex_has_the_fingerprint_of_its_acl_version() -> None:
    preprint = parse_raw(red_fm_preprint())  # RED$^{\rm FM}$: …, "Pere-Lluís Huguet Cabot" (family "Cabot")
    published = parse_raw(acl_records(ACL_RED_FM)[0])  # RED<tex-math>^{\textrm{FM}}</tex-math>: …, "Huguet Cabot"
    assert record_fingerprint(preprint) == record_fingerprint(published)
    other_first_author = dataclasses.replace(preprint, authors=preprint.authors[1:])
    assert record_fingerprint(other_first_author) != record_fingerprint(published)


def test_latex_markup_folds_like_case_and_punctuation() -> None:
    key = "red fm a filtered and multilingual relation extraction dataset"
    for title in (
        r"RED$^{\rm FM}$: a Filtered and Multilingual Relation Extraction Dataset",
        r"RED^{\textrm{FM}}: a Filtered and Multilingual Relation Extraction Dataset",
        r"RED\(^{\mathrm{FM}}\): a Filtered and Multilingual Relation Extraction Dataset",
        "RED^FM: A FILTERED and multilingual relation-extraction dataset",
        "RED<sup>FM</sup>: a Filtered and Multilingual Relation Extraction Dataset",
    ):
        assert title_key(title) == key, title
    assert title_key(r"$\alpha$-Divergences") == title_key("α-divergences") == "α divergences"
    assert title_key(r"\textsc{Bert} and \emph{{GPT}}") == title_key("BERT and GPT")
    assert title_key(r"MUST$_{\mathrm{adaptive}}$") == "must adaptive"
    assert title_key("When a < b and c > d") == "when a b and c d"
    assert title_key("RED: a Filtered and Multilingual Relation Extraction Dataset") != key


def test_name_variants_share_a_key() -> None:
    assert author_key(*split_name("Zhang, Wei")) == author_key(*split_name("Wei Zhang")) == "zhang w"
    assert author_key(*split_name("W. Zhang")) == "zhang w"
    assert author_key(*split_name("José Álvarez")) == author_key(*split_name("Jose Alvarez")) == "alvarez j"
    assert split_name("Ludwig van Beethoven") == ("Ludwig", "van Beethoven")


def test_author_list_with_affiliations_and_latex_accents() -> None:
    authors = split_author_list('M. M\\"uller (ETH Zurich), B. Two, and C. Three (1)')
    assert [a.name for a in authors] == ["M. Müller", "B. Two", "C. Three"]
    assert authors[0].affiliations == ["ETH Zurich"]
    assert authors[2].affiliations == []


def test_first_published_comes_from_the_surest_basis_whichever_record_came_first() -> None:
    listed = datetime(2026, 5, 4, tzinfo=UTC)
    v1 = SourceVersion(source="arxiv", label="v1", date=datetime(2026, 5, 1, 17, tzinfo=UTC))
    by_month = _record(record_id="2605.00847", ids=PaperIds(arxiv="2605.00847"), versions=[])
    assert by_month.first_published == (datetime(2026, 5, 1, tzinfo=UTC), "id_month")
    first = merge(None, by_month, content_hash="h1", now=NOW, ai_categories=AI, next_seq=1)
    assert first is not None and (first.paper.published_at, first.paper.published_from) == by_month.first_published
    assert "published_from" in first.paper.model_dump(mode="json")
    # a listing day is surer than the id's month, though later
    listing = dataclasses.replace(by_month, listed_on=listed, abstract="We study things, as listed.")
    second = merge(first.paper, listing, content_hash="h2", now=NOW, ai_categories=AI, next_seq=2)
    assert second is not None and (second.paper.published_at, second.paper.published_from) == (listed, "listing")
    # a version's date is surest: it replaces the listing day (and is the unmarked basis); a listing never replaces it
    versioned = dataclasses.replace(by_month, versions=[v1])
    third = merge(second.paper, versioned, content_hash="h3", now=NOW, ai_categories=AI, next_seq=3)
    assert third is not None and (third.paper.published_at, third.paper.published_from) == (v1.date, None)
    assert "published_from" not in third.paper.model_dump(mode="json")  # written as papers were before
    relisted = dataclasses.replace(listing, listed_on=datetime(2026, 4, 1, tzinfo=UTC), abstract="Listed again.")
    fourth = merge(third.paper, relisted, content_hash="h4", now=NOW, ai_categories=AI, next_seq=4)
    assert fourth is None  # nothing changes: the version's date stays
