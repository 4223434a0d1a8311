"""ccfddl/ccf-deadlines: the venue catalogue's conference files and acceptance rates, read from the repository's
archive (one request, conditional on the last ETag) on a schedule and kept in `venue_catalogue`, so a new edition's
deadline shows without a release; the shipped catalogue (papertrail/domain/venues/catalogue.json) is only the first
state.

It publishes no raw records: the venues are no papers, and the query service reads them from the collection. A bad
file is named in the run's status (`skipped`) and left out; its venue keeps what was held, and every other venue is
read. An archive that is no archive of the repository fails the run and changes nothing."""

import asyncio
import datetime as dt
import hashlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from papertrail.domain.venues.catalogue import Venue, load
from papertrail.domain.venues.ccfddl import build_venues, updated_venue
from services.harvester.http import PoliteFetcher
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage, SourceRunFailed
from services.harvester.sources.ccf_deadlines_archive import MalformedArchive, data_files
from services.harvester.store import VenueCatalogueStore


class CcfDeadlinesSource:
    name = "ccf_deadlines"

    def __init__(
        self,
        settings: HarvesterSettings,
        fetcher: PoliteFetcher,
        store: VenueCatalogueStore,
        clock: Callable[[], dt.datetime] | None = None,
        shipped: Callable[[], list[Venue]] | None = None,
    ) -> None:
        self.url = settings.ccf_deadlines_url
        self.max_bytes = settings.ccf_deadlines_max_bytes
        self.fetcher = fetcher
        self.store = store
        self.clock = clock or (lambda: dt.datetime.now(dt.UTC))
        self.shipped = shipped or (lambda: load().venues)  # the catalogue this release carries

    async def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        """One page: the archive read and its venues kept, or a note that it has not changed (ETag, sha256); a manual
        run (`from_date`) reads it again even so."""
        seen = {} if from_date else checkpoint
        headers = {"If-None-Match": seen["etag"]} if seen.get("etag") else None
        body = await self.fetcher.get_capped(self.url, max_bytes=self.max_bytes, headers=headers)
        if body.not_modified:
            yield SourcePage([], dict(checkpoint), notes=["unchanged (ETag)"])
            return
        if body.missing or body.over_cap:
            why = "no archive there (404)" if body.missing else f"over CCF_DEADLINES_MAX_BYTES ({self.max_bytes})"
            raise SourceRunFailed(f"ccf-deadlines {self.url}: {why}")
        digest = hashlib.sha256(body.content).hexdigest()
        state = {"etag": body.etag, "sha256": digest}
        if digest == seen.get("sha256"):
            yield SourcePage([], {**checkpoint, **state}, notes=["unchanged (sha256)"])
            return
        try:  # gzip, tar and YAML hold the GIL: off the event loop, the harvester's other runs go on
            archive = await asyncio.to_thread(data_files, body.content)
        except MalformedArchive as error:
            raise SourceRunFailed(f"ccf-deadlines {self.url}: {error}") from error
        reading = await asyncio.to_thread(build_venues, archive.files)
        changed = await self.keep(reading.venues, reading.files, archive.commit)
        yield SourcePage(
            [],
            {**state, "commit": archive.commit},
            notes=[f"{len(reading.venues)} venues read, {changed} changed (commit {archive.commit or 'not named'})"],
            skipped=archive.too_large + reading.errors,
        )

    async def keep(self, venues: list[Venue], files: dict[str, str], commit: str | None) -> int:
        """Each venue read, merged over the one held (stored, else shipped: `updated_venue`), stored when it changed;
        returns how many were."""
        stored = await self.store.held()
        shipped = {venue.key: venue for venue in self.shipped()}
        changed = []
        for venue in venues:
            held = stored.get(venue.key) or shipped.get(venue.key)
            updated = updated_venue(held, venue)
            if updated != held:
                changed.append((updated, files[venue.key]))
        await self.store.save(changed, commit, self.clock())
        return len(changed)
