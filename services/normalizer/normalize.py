"""Applying one parsed record to the store: merge with optimistic retries, recover an unemitted change."""

from dataclasses import dataclass
from datetime import UTC, datetime

from papertrail.kafka import UnprocessableMessage
from schemas.events import NormalizedKind, PaperNormalized
from services.normalizer.identity import merge, record_fingerprint
from services.normalizer.records import ParsedRecord
from services.normalizer.store import PaperStore

_KIND_OF_VERSION: dict[str, NormalizedKind] = {
    "first_observed": "new",
    "new_version": "revised",
    "published": "published",
    "metadata_correction": "updated",
}


@dataclass(slots=True)
class Outcome:
    paper_id: str
    event: PaperNormalized | None  # None: the record changed nothing


async def apply_record(
    record: ParsedRecord,
    papers: PaperStore,
    *,
    content_hash: str,
    harvested_at: datetime | None,
    ai_categories: frozenset[str],
    attempts: int,
) -> Outcome:
    """Merge the record into its paper and store the change; retry when another instance won the race."""
    for _ in range(attempts):
        stored = await papers.find_for(record)
        change = merge(
            stored.paper if stored else None,
            record,
            content_hash=content_hash,
            now=datetime.now(UTC),
            ai_categories=ai_categories,
            next_seq=(stored.version_count if stored else 0) + 1,
        )
        if change is None:
            assert stored is not None  # merge into nothing always changes something
            last = stored.last_version
            if last is not None and last.content_hash == content_hash:
                # An earlier delivery stored this change and stopped before emitting it: finish its work.
                await papers.record_version(last)
                event = PaperNormalized(
                    kind=_KIND_OF_VERSION[last.kind], paper=stored.paper, version=last, harvested_at=harvested_at
                )
                return Outcome(stored.paper.id, event)
            return Outcome(stored.paper.id, None)
        if await papers.save(change, stored, record_fingerprint(record)):
            event = PaperNormalized(
                kind=change.kind, paper=change.paper, version=change.version, harvested_at=harvested_at
            )
            return Outcome(change.paper.id, event)
    raise UnprocessableMessage(f"the paper kept changing during {attempts} merge attempts")
