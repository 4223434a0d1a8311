"""OpenReview: the accepted papers of the configured venues (API v2 `/notes?content.venueid=<venue>`), each venue
read page by page (`limit`, `offset`) and skipped when its accepted notes are unchanged (sha256)."""

import hashlib
from collections.abc import AsyncIterator
from typing import Any

from services.harvester.http import PoliteFetcher
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage, SourceRecord, SourceRunFailed, digested_pages
from services.harvester.sources.openreview_notes import MalformedNotesPage, split_notes
from services.harvester.sources.spec import SourceSpec

MAX_PAGES = 50  # API pages per venue: 50,000 notes, ten times NeurIPS' accepted papers; more is a query gone wrong


class OpenReviewSource:
    name = "openreview"

    def __init__(self, settings: HarvesterSettings, fetcher: PoliteFetcher) -> None:
        self.url = settings.openreview_api_url.rstrip("/") + "/notes"
        self.venues = settings.openreview_venues
        self.limit = settings.openreview_page_limit
        self.fetcher = fetcher

    async def _accepted(self, venue: str) -> tuple[list[SourceRecord], list[str]]:
        """Every accepted note of the venue, page after page until one comes back short, and the notes left out."""
        records: list[SourceRecord] = []
        skipped: list[str] = []
        for page in range(MAX_PAGES):
            offset = page * self.limit
            params = {"content.venueid": venue, "limit": str(self.limit), "offset": str(offset)}
            response = await self.fetcher.get(self.url, params)
            try:
                found, left_out, held = split_notes(response.content, venue)
            except MalformedNotesPage as exc:
                raise SourceRunFailed(f"OpenReview {venue} (offset {offset}): {exc}") from exc
            records += found
            skipped += left_out
            if held < self.limit:
                return records, skipped
        raise SourceRunFailed(f"OpenReview {venue}: more than {MAX_PAGES} pages of {self.limit} notes")

    async def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        """One venue after another; a manual window (`from_date`) re-reads them even if unchanged."""
        venues: dict[str, dict[str, Any]] = {k: dict(v) for k, v in checkpoint.get("venues", {}).items()}
        for venue in self.venues:
            records, skipped = await self._accepted(venue)
            digest = hashlib.sha256("".join(r.sha256 for r in records).encode()).hexdigest()
            if not from_date and digest == venues.get(venue, {}).get("sha256"):
                yield SourcePage([], {"venues": venues}, notes=[f"{venue}: unchanged (sha256)"])
                continue
            for page in digested_pages(
                records, [], digests=venues, key="venues", part=venue, digest=digest, skipped=skipped
            ):
                yield page


SOURCE = SourceSpec(
    "openreview",
    lambda parts: OpenReviewSource(parts.settings, parts.fetcher(parts.settings.openreview_min_request_interval_s)),
    lambda settings: settings.openreview_interval_s,
    formats=("openreview_note",),
    settings="OPENREVIEW_",
)
