"""Corpus listings through a running normalizer process over real Kafka and MongoDB: every arXiv id listed makes
exactly one paper, a replay adds no paper, version or event, and two instances in one consumer group store what one
does.

Three corpus days, not one: a paper listed again and a paper revised are what these behaviours are about, and no
single day holds either. Friday 2026-05-01 (203 listings), Saturday 2026-05-02, which lists 188 of Friday's papers
again, and Monday 2026-05-04, which lists one of Friday's again with a category added (a revision). The whole month
through the same path is a measurement: bench/corpus_pipeline.py."""

import json
import uuid
from collections import Counter
from collections.abc import Iterator

import pytest
from pymongo import MongoClient

from schemas.events import RawRecord
from tests.support.corpus_run import OneRun, through_one, through_two
from tests.support.servers import Servers
from tests.support.sources import corpus_records

pytestmark = pytest.mark.integration
DAYS = ("2026-05-01", "2026-05-02", "2026-05-04")


@pytest.fixture(scope="module")
def listings() -> list[RawRecord]:
    return [r for r in corpus_records() if r.datestamp in DAYS]


@pytest.fixture(scope="module")
def mongo(servers: Servers) -> Iterator[MongoClient]:
    client: MongoClient = MongoClient(servers.mongodb_url, tz_aware=True)
    yield client
    client.close()


@pytest.fixture(scope="module")
async def one_instance(
    servers: Servers, listings: list[RawRecord], mongo: MongoClient, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, OneRun]:
    database = f"normalizer_corpus_{uuid.uuid4().hex[:8]}"
    run = await through_one(servers, mongo, database, tmp_path_factory.mktemp("normalizer-one"), [listings])
    return database, run


def listed_again(listings: list[RawRecord]) -> tuple[set[str], set[str]]:
    """From the listings themselves: the arXiv ids listed more than once, and those of them whose categories
    changed between two of their listings (revised)."""
    categories: dict[str, list[tuple[str, ...]]] = {}
    for record in listings:
        categories.setdefault(record.record_id, []).append(tuple(json.loads(record.content)["categories"]))
    again = {i for i, seen in categories.items() if len(seen) > 1}
    return again, {i for i in again if len(set(categories[i])) > 1}


def test_the_days_hold_papers_listed_again_and_revised(listings: list[RawRecord]) -> None:
    again, revised = listed_again(listings)
    assert len(again) > 100 and revised  # what the days were chosen for (docstring)


def test_each_arxiv_id_makes_one_paper_and_each_change_one_version(
    one_instance: tuple[str, OneRun], listings: list[RawRecord]
) -> None:
    (stored,) = one_instance[1].parts
    ids = {r.record_id for r in listings}
    assert stored.papers == len(stored.history) == len(ids)
    assert set(stored.history) == {f"arxiv:{i}" for i in ids}
    assert stored.events == stored.versions
    for paper_id, history in stored.history.items():
        assert [seq for seq, _, _ in history] == list(range(1, len(history) + 1)), paper_id
        assert history[0][1] == "first_observed"
    _, revised = listed_again(listings)
    assert {f"arxiv:{i}" for i in revised} <= {p for p, h in stored.history.items() if len(h) > 1}


def test_replaying_the_listings_adds_no_paper_no_version_no_event(one_instance: tuple[str, OneRun]) -> None:
    run = one_instance[1]
    (first,) = run.parts
    assert (run.replay.papers, run.replay.versions, run.replay.events) == (first.papers, first.versions, 0)
    assert run.replay.history == first.history


async def test_two_instances_in_one_group_store_what_one_does(
    servers: Servers, listings: list[RawRecord], mongo: MongoClient, one_instance: tuple[str, OneRun],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:  # fmt: skip
    (expected,) = one_instance[1].parts
    database = f"normalizer_pair_{uuid.uuid4().hex[:8]}"
    pair, _ = await through_two(servers, mongo, database, tmp_path_factory.mktemp("normalizer-two"), listings)
    assert expected.versions > expected.papers  # the days hold revisions, not only first observations
    assert pair.papers == expected.papers
    assert set(pair.history) == set(expected.history)
    assert Counter(len(h) for h in pair.history.values()) == Counter(len(h) for h in expected.history.values())
    assert pair.history == expected.history  # same records, same order per paper: the same version records
    assert pair.events >= pair.versions  # at least once (a rebalance may repeat one)


def test_every_paper_is_first_published_on_the_day_it_was_first_listed(
    one_instance: tuple[str, OneRun], listings: list[RawRecord], mongo: MongoClient
) -> None:
    first_listed: dict[str, str] = {}
    for record in listings:  # the days in order: a paper's first listing is its first record
        first_listed.setdefault(record.record_id, str(record.datestamp))
    papers = mongo[one_instance[0]].papers.find({}, {"ids.arxiv": 1, "published_at": 1, "published_from": 1})
    dated = {p["ids"]["arxiv"]: (p.get("published_at"), p.get("published_from")) for p in papers}
    assert len(dated) == len(first_listed)
    assert {basis for _, basis in dated.values()} == {"listing"}
    assert all(at is not None and str(at)[:10] == first_listed[i] for i, (at, _) in dated.items())
