"""Client-side long poll: an empty fetch that came back sooner than the consumer's fetch_max_wait_ms waits out the
rest (at most MAX_PAUSE_S) before the next fetch to that broker.

Apache Kafka holds an empty fetch on the broker for up to fetch.max.wait.ms, so an idle consumer sends a couple
of fetches a second. The local stand-in broker (noida-db) answers at once, and every idle consumer then spun at
~1,800 fetches/s: one full core per service, which also slowed every request the query API served (its p50
went from ~4 ms to ~20 ms). On a broker that does wait, an empty answer arrives after the wait and nothing
changes; a record that arrives during a pause waits at most MAX_PAUSE_S.
"""

import asyncio
import time
from typing import Any

from aiokafka.consumer.fetcher import Fetcher

MAX_PAUSE_S = 0.1
_unpaced = Fetcher._proc_fetch_request


async def _paced_fetch(self: Fetcher, assignment: Any, node_id: int, request: Any) -> bool:
    started = time.monotonic()
    has_new_records: bool = await _unpaced(self, assignment, node_id, request)
    if not has_new_records:
        rest = min(MAX_PAUSE_S, self._fetch_max_wait_ms / 1000) - (time.monotonic() - started)
        if rest > 0:
            await asyncio.sleep(rest)  # the fetcher's routine sends no new fetch to this broker meanwhile
    return has_new_records


def install() -> None:
    """Pace every aiokafka consumer in this process; safe to call more than once."""
    Fetcher._proc_fetch_request = _paced_fetch  # type: ignore[method-assign]


def installed() -> bool:
    return Fetcher._proc_fetch_request is _paced_fetch  # type: ignore[comparison-overlap]
