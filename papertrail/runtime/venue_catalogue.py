"""The venue catalogue as it stands, for the services that show or use it (the query service's pages and API, the
matcher's digest reminders): the shipped catalogue with the harvester's newer readings of ccf-deadlines
(`venue_catalogue`, which only the harvester writes) over it."""

import logging
import time
from collections.abc import Callable

from pydantic import ValidationError
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.domain.venues.catalogue import Venue, current_venues, default_index, venue_of_document
from papertrail.runtime.collections import VENUE_CATALOGUE

log = logging.getLogger("papertrail.venues")


class VenueCatalogue:
    """The venue catalogue as it stands: the shipped one (conferences and journals) with the harvester's newer
    readings of ccf-deadlines (`venue_catalogue`) over it, read again at most every CACHE_S seconds (the harvester
    refreshes it a few times a day; a page must not read 350 documents each time)."""

    CACHE_S = 300.0

    def __init__(self, db: AsyncDatabase, clock: Callable[[], float] = time.monotonic) -> None:
        self.documents = db[VENUE_CATALOGUE.name]
        self.clock = clock
        self._venues: list[Venue] | None = None
        self._read_at = 0.0

    async def current(self) -> list[Venue]:
        if self._venues is None or self.clock() - self._read_at > self.CACHE_S:
            harvested = []
            async for document in self.documents.find({}):
                try:
                    harvested.append(venue_of_document(document))
                except (KeyError, ValidationError) as error:  # a newer harvester's form: the shipped record stays
                    log.warning("venue not read", extra={"venue": document.get("_id"), "error": str(error)})
            self._venues = current_venues(list(default_index().venues.values()), harvested)
            self._read_at = self.clock()
        return self._venues
