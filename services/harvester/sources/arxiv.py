"""arXiv OAI-PMH: ListRecords per set, incremental by datestamp, resumptionToken paging; GetRecord of one paper."""

import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

from schemas.events import RawFormat
from services.harvester.http import PoliteFetcher
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage, SourceRecord, SourceRunFailed
from services.harvester.sources.oai import ARXIV_OAI_PREFIX, MalformedResponse, parse_oai_page
from services.harvester.sources.spec import SourceSpec

OVERLAP = dt.timedelta(days=1)  # day-granular datestamps: re-read the last day, duplicates are harmless


def next_window_start(response_date: str | None, today: dt.date) -> str:
    """The next run's `from`: the day the repository answered, minus one day of overlap."""
    answered = dt.date.fromisoformat(response_date[:10]) if response_date else today
    return (answered - OVERLAP).isoformat()


class ArxivOaiSource:
    name = "arxiv"

    def __init__(self, settings: HarvesterSettings, fetcher: PoliteFetcher) -> None:
        self.settings = settings
        self.fetcher = fetcher
        self.format: RawFormat = settings.arxiv_metadata_prefix  # type: ignore[assignment]

    def _default_from(self) -> str:
        if self.settings.arxiv_start_date:
            return self.settings.arxiv_start_date
        return (dt.datetime.now(dt.UTC).date() - OVERLAP).isoformat()

    async def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        sets: dict[str, Any] = {k: dict(v) for k, v in checkpoint.get("sets", {}).items()}
        for set_spec in self.settings.arxiv_sets:
            state = sets.setdefault(set_spec, {})
            window_from = from_date or state.get("from") or self._default_from()
            token = None if from_date else state.get("resumption_token")
            restarted = False
            while True:
                params = {"verb": "ListRecords"}
                if token:
                    params["resumptionToken"] = token  # OAI-PMH: the token is sent alone with the verb
                else:
                    params |= {
                        "metadataPrefix": self.settings.arxiv_metadata_prefix,
                        "set": set_spec,
                        "from": window_from,
                    }
                    if until_date:
                        params["until"] = until_date
                response = await self.fetcher.get(self.settings.arxiv_oai_url, params)
                try:
                    page = parse_oai_page(response.content)
                except MalformedResponse as exc:
                    raise SourceRunFailed(f"arXiv OAI set {set_spec}: {exc}") from exc

                if page.error_code == "noRecordsMatch":
                    page_records: list[SourceRecord] = []
                elif page.error_code == "badResumptionToken" and token and not restarted:
                    token, restarted = None, True  # expired token: restart the window from the checkpoint
                    continue
                elif page.error_code:
                    raise SourceRunFailed(f"arXiv OAI error {page.error_code}: {page.error_message}")
                else:
                    page_records = [
                        SourceRecord(r.record_id, self.format, r.content, r.sha256, r.datestamp) for r in page.records
                    ]

                token = page.resumption_token
                if token:
                    state.update({"from": window_from, "resumption_token": token})
                else:
                    state.update(
                        {
                            "from": next_window_start(page.response_date, dt.datetime.now(dt.UTC).date()),
                            "resumption_token": None,
                        }
                    )
                yield SourcePage(
                    records=page_records,
                    checkpoint={"sets": {k: dict(v) for k, v in sets.items()}},
                    window_from=window_from,
                    window_until=until_date,
                    complete_list_size=page.complete_list_size,
                )
                if not token:
                    break


class ArxivRecordFetcher:
    """One paper's arXiv record by id (OAI-PMH GetRecord), as ListRecords would have served it.

    Give it the arXiv source's own fetcher: its requests then share that source's pace (one per 3 s, one
    connection, 503 Retry-After honoured) with the ListRecords pages.
    """

    def __init__(self, settings: HarvesterSettings, fetcher: PoliteFetcher) -> None:
        self.url = settings.arxiv_oai_url
        self.metadata_prefix = settings.arxiv_metadata_prefix
        self.format: RawFormat = settings.arxiv_metadata_prefix  # type: ignore[assignment]
        self.fetcher = fetcher

    async def get(self, arxiv_id: str) -> SourceRecord | None:
        """The record, published as arXiv's; None when arXiv has no such paper (idDoesNotExist) or deleted it."""
        params = {
            "verb": "GetRecord",
            "metadataPrefix": self.metadata_prefix,
            "identifier": ARXIV_OAI_PREFIX + arxiv_id,
        }
        response = await self.fetcher.get(self.url, params)
        try:
            page = parse_oai_page(response.content)
        except MalformedResponse as exc:
            raise SourceRunFailed(f"arXiv GetRecord {arxiv_id}: {exc}") from exc
        if page.error_code == "idDoesNotExist" or (page.deleted and not page.records):
            return None
        if page.error_code:
            raise SourceRunFailed(f"arXiv GetRecord {arxiv_id}: OAI error {page.error_code}: {page.error_message}")
        found = [r for r in page.records if r.record_id == arxiv_id]
        if not found:  # another paper's record must never be merged into this one
            raise SourceRunFailed(f"arXiv GetRecord {arxiv_id}: answered with {[r.record_id for r in page.records]}")
        record = found[0]
        source = ArxivOaiSource.name
        return SourceRecord(record.record_id, self.format, record.content, record.sha256, record.datestamp, source)


class ArxivIdsSource:
    """Papers fetched by hand (`papertrail harvest arxiv --ids`): each id's record by GetRecord, a page per id, as
    ListRecords would have served it; an id arXiv does not know is noted, not an error. It keeps no checkpoint."""

    name = "arxiv_ids"

    def __init__(self, arxiv_ids: list[str], records: ArxivRecordFetcher) -> None:
        self.arxiv_ids = arxiv_ids
        self.records = records

    async def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        for arxiv_id in self.arxiv_ids:
            record = await self.records.get(arxiv_id)
            notes = [] if record else [f"arXiv has no paper {arxiv_id} (or it was deleted)"]
            yield SourcePage([record] if record else [], {}, notes=notes)


SOURCE = SourceSpec(
    "arxiv",
    lambda parts: ArxivOaiSource(parts.settings, parts.arxiv),
    lambda settings: settings.arxiv_interval_s,
    formats=("arXivRaw", "arXiv", "oai_dc"),
    settings="ARXIV_",
)
