"""A paper's citations in its search document: the count as given, and its citations per month since first
publication as of the moment the document is written (an injected clock), which alone never rewrites a document."""

from datetime import UTC, datetime, timedelta

from papertrail.domain.search_document import citations_per_month, hotness_update, paper_fields
from schemas.paper import Citations
from services.query.catalogue.indexer.writes import DIGEST, HeldDocument, index_writes
from tests.support.corpus import PAPER
from tests.support.events import enriched

NOW = datetime(2026, 12, 7, tzinfo=UTC)
COUNTED = PAPER.model_copy(
    update={
        "published_at": NOW - timedelta(days=365.25),
        "citations": Citations(count=120, source="semantic_scholar", as_of=NOW - timedelta(days=1)),
    }
)


def test_citations_per_month_count_from_first_publication_a_young_paper_counted_a_month_old() -> None:
    assert citations_per_month(COUNTED, NOW) == 10.0  # 120 in a year
    young = COUNTED.model_copy(update={"published_at": NOW - timedelta(days=3)})
    assert citations_per_month(young, NOW) == round(120 / (30 / (365.25 / 12)), 3)
    assert citations_per_month(COUNTED.model_copy(update={"citations": None}), NOW) is None
    assert citations_per_month(COUNTED.model_copy(update={"published_at": None}), NOW) is None


def test_the_document_carries_the_count_with_its_source_and_date() -> None:
    fields = paper_fields(COUNTED)
    assert fields["citation_count"] == 120
    assert fields["citations"] == {"count": 120, "source": "semantic_scholar", "as_of": "2026-12-06T00:00:00Z"}
    assert (paper_fields(PAPER)["citation_count"], paper_fields(PAPER)["citations"]) == (None, None)


def test_citations_per_month_are_written_as_of_the_clock_and_time_alone_writes_nothing() -> None:
    event = enriched(COUNTED)
    (document,) = index_writes([event], [{}], {}, {}, True, now=NOW)
    assert document is not None and document["citations_per_month"] == 10.0
    held = {COUNTED.id: HeldDocument(event.version.seq, document[DIGEST])}
    later = NOW + timedelta(days=365.25)
    (same,) = index_writes([event], [{}], held, {}, True, now=later)
    assert same is None or set(same) == {"id", "_vectors"}  # its vector at most, none of its fields
    recounted = enriched(
        COUNTED.model_copy(update={"citations": Citations(count=240, source="semantic_scholar", as_of=later)})
    )
    (rewritten,) = index_writes([recounted], [{}], held, {}, True, now=later)
    assert rewritten is not None and rewritten["citations_per_month"] == 10.0  # 240 in two years


def test_a_held_rate_is_brought_to_the_day_only_when_it_differs() -> None:
    fields = paper_fields(COUNTED)
    held = {"id": "d1", **{k: fields[k] for k in ("citation_count", "published_ts")}, "citations_per_month": 10.0}
    a_year_on = NOW + timedelta(days=365.25)
    assert hotness_update(held, a_year_on) == {"id": "d1", "citations_per_month": 5.0}  # 120 in two years
    assert hotness_update(held | {"citations_per_month": 5.0}, a_year_on) is None
    assert hotness_update(held | {"citation_count": None}, a_year_on) is None
    assert hotness_update({k: v for k, v in held.items() if k != "published_ts"}, a_year_on) is None
