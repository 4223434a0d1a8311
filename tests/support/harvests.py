"""Recorded harvests the harvester's tests share: a chain of OAI-PMH pages, a recorded record, the requests a
replay server answered, the moments a fetcher's limiter let its requests go."""

import itertools
from typing import Any

from aiolimiter import AsyncLimiter

from services.harvester.http import PoliteFetcher
from services.harvester.sources.oai import parse_oai_page
from tests.support.paths import FIXTURES, SOURCES
from tests.support.replay import Replay

CHAIN = sorted((FIXTURES / "harvester/arxiv_chain").glob("page*.xml"))

CHAIN_IDS = [r.record_id for page in CHAIN for r in parse_oai_page(page.read_bytes()).records]

RECORDED = parse_oai_page((SOURCES / "arxiv_oai/arXivRaw/mikesaelim_GetRecordResponse.xml").read_bytes()).records[0]


def get_record_requests(replay: Replay) -> list[dict[str, Any]]:
    return [r for r in replay.requests() if r["path"] == "/oai" and r["query"].get("verb") == "GetRecord"]


class GrantsNoted(AsyncLimiter):
    """An AsyncLimiter that notes the moment of each grant: the event loop's time the limiter read when it found the
    capacity (its `_last_check`), the time its pace counts from. The loop's time read after the grant returns is later
    by however long the OS kept the process off a core in between (56 ms on a loaded machine: a gap of 0.944 s)."""

    def __init__(self, max_rate: float, time_period: float) -> None:
        super().__init__(max_rate, time_period)
        self.moments: list[float] = []
        self._found_at = 0.0

    def has_capacity(self, amount: float = 1) -> bool:
        found = super().has_capacity(amount)
        if found:
            self._found_at = self._last_check  # aiolimiter 1.x: the time its leak was computed at, just now
        return found

    async def acquire(self, amount: float = 1) -> None:
        await super().acquire(amount)
        self.moments.append(self._found_at)


def note_grants(fetcher: PoliteFetcher) -> GrantsNoted:
    """Give the fetcher a limiter of its own limiter's rate that notes when it lets each request go: the moments the
    pace is kept at, which a replay server's arrival times only approximate (a request may reach it late, the next
    one on time)."""
    assert fetcher.limiter is not None
    fetcher.limiter = noted = GrantsNoted(fetcher.limiter.max_rate, fetcher.limiter.time_period)
    return noted


def pace_gaps(moments: list[float]) -> list[float]:
    return [later - earlier for earlier, later in itertools.pairwise(moments)]
