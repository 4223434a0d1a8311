"""Client-side long poll: an empty fetch that came back sooner than the consumer's fetch_max_wait_ms waits out the
rest (at most MAX_PAUSE_S) before the next fetch to that broker; a fetch that brought fewer than the consumer's
fetch_min_bytes sooner than fetch_max_wait_ms waits out the rest of it.

Apache Kafka holds an empty fetch on the broker for up to fetch.max.wait.ms, so an idle consumer sends a couple
of fetches a second. The local stand-in broker (noida-db) answers at once, and every idle consumer then spun at
~1,800 fetches/s: one full core per service, which also slowed every request the query API served (its p50
went from ~4 ms to ~20 ms). On a broker that does wait, an empty answer arrives after the wait and nothing
changes; a record that arrives during a pause waits at most MAX_PAUSE_S.

The second rule is the broker's fetch.min.bytes, which noida-db ignores: a consumer that asks for it (the query
service, so that Meilisearch gets few large indexing tasks rather than many small ones) gets batches gathered
over fetch_max_wait_ms. The records already fetched are handed over at once; only the next fetch waits. On a
broker that honours fetch.min.bytes a smaller answer only comes after the wait, so nothing changes there either.
"""

import asyncio
import time
from typing import Any

from aiokafka import TopicPartition
from aiokafka.consumer.fetcher import Fetcher

# Kafka's own default fetch.max.wait.ms: at 0.1 s an idle pipeline of five services took a fifth of a core
MAX_PAUSE_S = 0.5
_unpaced = Fetcher._proc_fetch_request


async def _paced_fetch(self: Fetcher, assignment: Any, node_id: int, request: Any) -> bool:
    started = time.monotonic()
    has_new_records: bool = await _unpaced(self, assignment, node_id, request)
    wait_s = self._fetch_max_wait_ms / 1000
    if not has_new_records:
        rest = min(MAX_PAUSE_S, wait_s) - (time.monotonic() - started)
    elif self._fetch_min_bytes > 1 and _fetched_bytes(self, request) < self._fetch_min_bytes:
        rest = wait_s - (time.monotonic() - started)
    else:
        rest = 0
    if rest > 0:
        try:
            await asyncio.sleep(rest)  # the fetcher's routine sends no new fetch to this broker meanwhile
        except asyncio.CancelledError:
            pass  # the consumer stopped or lost the partitions: aiokafka's own fetch ends quietly the same way
    return has_new_records


def _fetched_bytes(fetcher: Fetcher, request: Any) -> int:
    """Bytes of the record batches the fetch just buffered for the partitions it asked for."""
    total = 0
    for topic, partitions in request.topics:
        for partition, *_ in partitions:
            result = fetcher._records.get(TopicPartition(topic, partition))
            records = getattr(getattr(result, "_partition_records", None), "_records", None)
            if records is not None:
                total += records.size_in_bytes()
    return total


def install() -> None:
    """Pace every aiokafka consumer in this process; safe to call more than once."""
    Fetcher._proc_fetch_request = _paced_fetch  # type: ignore[method-assign]


def installed() -> bool:
    return Fetcher._proc_fetch_request is _paced_fetch  # type: ignore[comparison-overlap]
