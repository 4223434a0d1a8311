"""The ledger of announced papers over a real MongoDB: announced ids wait for their OAI-PMH record, and those
overdue make the gap; publishing goes first, so nothing is recorded that the broker did not take."""

import datetime as dt

import pytest
from prometheus_client import REGISTRY
from pymongo.asynchronous.database import AsyncDatabase

from services.harvester.announced import AnnouncedPapers, LedgeredPublishing, is_new_submission, split_by_origin
from services.harvester.sources.arxiv_feed import feed_records
from services.harvester.sources.atom_feed import parse_feed
from services.harvester.sources.oai import parse_oai_page
from tests.support.fakes import Published
from tests.support.paths import FIXTURES, SOURCES
from tests.support.sources import raw_record

pytestmark = pytest.mark.integration

ANNOUNCED = dt.datetime(2026, 3, 3, 1, 0, tzinfo=dt.UTC)


def _announced() -> list:
    feed = parse_feed((FIXTURES / "harvester/arxiv_feed/cs_tonight.xml").read_bytes(), "cs")
    records = [raw_record("arxiv", r.record_id, r.format, r.content, r.datestamp) for r in feed_records(feed)]
    return [r.model_copy(update={"harvested_at": ANNOUNCED}) for r in records]


def _harvested(*ids: str) -> list:
    page = parse_oai_page((SOURCES / "arxiv_oai/arXivRaw/mikesaelim_ListRecordsResponse.xml").read_bytes())
    return [
        raw_record("arxiv", r.record_id, "arXivRaw", r.content, r.datestamp) for r in page.records if r.record_id in ids
    ]


def test_records_split_into_announced_and_harvested() -> None:
    announced, harvested = split_by_origin([*_announced(), *_harvested("0704.0471", "0704.0716")])
    assert sorted(r.record_id for r in announced) == ["0704.0471", "0704.1109", "0704.1114"]
    assert harvested == ["0704.0471", "0704.0716"]


async def test_an_announced_paper_oai_never_brings_is_a_gap_once_overdue(scratch_db: AsyncDatabase) -> None:
    ledger = AnnouncedPapers(scratch_db)
    await ledger.ensure_indexes()
    now = [ANNOUNCED + dt.timedelta(minutes=1)]
    out = Published()
    publishing = LedgeredPublishing(out, ledger, dt.timedelta(hours=12), clock=lambda: now[0])

    await publishing.publish_raw([(r, f"arxiv:{r.record_id}") for r in _announced()])
    assert len(out.raw) == 3 and await ledger.gap(now[0]) == ["0704.0471", "0704.1109", "0704.1114"]
    assert REGISTRY.get_sample_value("papertrail_announce_gap_papers") == 0  # not overdue yet

    now[0] = ANNOUNCED + dt.timedelta(hours=2)  # OAI-PMH serves two of them (and one never announced)
    await publishing.publish_raw(
        [(r, f"arxiv:{r.record_id}") for r in _harvested("0704.0471", "0704.1109", "0704.0716")]
    )
    assert await ledger.gap(now[0]) == ["0704.1114"]

    now[0] = ANNOUNCED + dt.timedelta(hours=13)  # an hourly run with nothing new refreshes the gauge
    await publishing.publish_raw([])
    assert REGISTRY.get_sample_value("papertrail_announce_gap_papers") == 1

    # announced again (a replace) keeps its first sighting; harvested at last closes the gap
    await publishing.publish_raw([(r, "k") for r in _announced() if r.record_id == "0704.1114"])
    assert await ledger.gap(ANNOUNCED + dt.timedelta(seconds=1)) == ["0704.1114"]
    await publishing.publish_raw([(r, "k") for r in _harvested("0704.1114")])
    assert await ledger.gap(now[0]) == [] and REGISTRY.get_sample_value("papertrail_announce_gap_papers") == 0
    assert await scratch_db["harvest_announced"].count_documents({}) == 3  # the unannounced id is not kept


async def test_nothing_is_recorded_when_the_broker_refused_the_batch(scratch_db: AsyncDatabase) -> None:
    class Refusing(Published):
        async def publish_raw(self, records: list) -> None:
            raise ConnectionError("broker away")

    ledger = AnnouncedPapers(scratch_db)
    publishing = LedgeredPublishing(Refusing(), ledger, dt.timedelta(hours=12))
    with pytest.raises(ConnectionError):
        await publishing.publish_raw([(r, "k") for r in _announced()])
    assert await ledger.gap(ANNOUNCED + dt.timedelta(days=1)) == []


def _dated(arxiv_id: str, datestamp: str):
    """A real arXivRaw record under another id and date: the ledger reads a record's id and datestamp alone."""
    (record,) = _harvested("0704.0471")
    return record.model_copy(update={"record_id": arxiv_id, "datestamp": datestamp})


@pytest.mark.parametrize(
    ("arxiv_id", "datestamp", "new"),
    [
        ("2402.12345", "2024-02-26", True),
        ("2401.12345", "2024-02-01", True),  # sent on the last days of January
        ("2312.12345", "2024-02-26", False),  # an older paper re-dated by a revision
        ("hep-th/9901001", "2024-02-26", False),
        ("2402.12345", "not a date", False),
    ],
)
def test_a_new_submission_is_one_whose_id_is_of_its_month(arxiv_id: str, datestamp: str, new: bool) -> None:
    assert is_new_submission(arxiv_id, datestamp) is new


async def test_a_new_paper_oai_dates_on_a_watched_day_that_no_feed_listed_is_counted(
    scratch_db: AsyncDatabase,
) -> None:
    ledger = AnnouncedPapers(scratch_db)
    await ledger.ensure_indexes()
    publishing = LedgeredPublishing(Published(), ledger, dt.timedelta(hours=12), clock=lambda: ANNOUNCED)
    await publishing.publish_raw([(r, "k") for r in _announced()])  # the feed's day: 2024-02-25
    before = REGISTRY.get_sample_value("papertrail_announce_unannounced_papers_total") or 0

    batch = [
        _dated("2402.11111", "2024-02-26"),  # dated by UTC the day after the announcement: missed by the feed
        _dated("2402.22222", "2024-02-25"),  # missed, dated the announcement's own day
        _dated("2402.33333", "2024-02-28"),  # a day the watcher did not see announced
        _dated("2312.44444", "2024-02-26"),  # an older paper re-dated
        *_harvested("0704.0471"),  # listed by the feed
    ]
    await publishing.publish_raw([(r, "k") for r in batch])
    assert REGISTRY.get_sample_value("papertrail_announce_unannounced_papers_total") == before + 2
    kept = {d["_id"] async for d in scratch_db["harvest_announced"].find({"unannounced": True})}
    assert kept == {"2402.11111", "2402.22222"}
    assert await ledger.gap(ANNOUNCED + dt.timedelta(days=1)) == ["0704.1109", "0704.1114"]  # not gaps

    await publishing.publish_raw([(r, "k") for r in batch[:2]])  # OAI-PMH serves them again: counted once
    assert REGISTRY.get_sample_value("papertrail_announce_unannounced_papers_total") == before + 2
