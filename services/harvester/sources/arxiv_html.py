"""arXiv's first pages: for each queued arXiv paper (first_pages.py), its HTML rendering at <ARXIV_HTML_URL>/<id>, or,
when arXiv has none (404), its PDF at <ARXIV_PDF_URL>/<id>; read through the arXiv connection at arXiv's pace, capped,
and published as the page's author block (`arxiv_html_authors`) or the PDF's first-page head (`arxiv_pdf_first_page`).

A page that gives none is settled with its reason and nothing is published for it; the paper was published, and is
searchable, before its page was even looked for. A run that cannot reach arXiv fails and leaves the rest queued.
"""

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

from services.harvester.first_pages import FirstPageQueue, QueueingPublishing
from services.harvester.http import PoliteFetcher
from services.harvester.runner import Publishing
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage, SourceRecord
from services.harvester.sources.arxiv_html_page import PageRejected, author_block
from services.harvester.sources.arxiv_pdf_page import first_page_head
from services.harvester.sources.spec import SourceParts, SourceSpec, needed


class ArxivHtmlSource:
    name = "arxiv_html"

    def __init__(self, settings: HarvesterSettings, fetcher: PoliteFetcher, queue: FirstPageQueue) -> None:
        self.base_url = settings.arxiv_html_url.rstrip("/")
        self.batch = settings.arxiv_html_batch
        self.max_bytes = settings.arxiv_html_max_bytes
        self.pdf_url = settings.arxiv_pdf_url.rstrip("/")
        self.pdf_max_bytes = settings.arxiv_pdf_max_bytes
        self.fetcher = fetcher
        self.queue = queue

    async def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        """One page per queued paper, newest first; each is settled once the runner has published its page (a stop
        in between reads it again: the same record, which the normalizer finds already seen)."""
        read = int(checkpoint.get("read", 0))
        for arxiv_id in await self.queue.pending(self.batch):
            outcome, records = await self.read(arxiv_id)
            read += bool(records)
            yield SourcePage(records, {"read": read}, notes=[] if records else [f"{arxiv_id}: {outcome}"])
            await self.queue.settle(arxiv_id, outcome, dt.datetime.now(dt.UTC))

    async def read(self, arxiv_id: str) -> tuple[str, list[SourceRecord]]:
        """The outcome of looking for the paper's first page, and its record when there is one."""
        body = await self.fetcher.get_capped(f"{self.base_url}/{arxiv_id}", max_bytes=self.max_bytes)
        if body.missing:
            return await self.read_pdf(arxiv_id)
        if body.over_cap:
            return "too_large", []
        try:  # lxml holds the GIL for the whole parse: off the event loop, the harvester's other runs go on
            block = await asyncio.to_thread(author_block, body.content, max_bytes=self.max_bytes)
        except PageRejected as rejected:
            return rejected.reason, []
        return "read", [SourceRecord.of(arxiv_id, "arxiv_html_authors", block, None)]

    async def read_pdf(self, arxiv_id: str) -> tuple[str, list[SourceRecord]]:
        """A paper without an HTML rendering: its PDF's first page (outcomes `read_pdf`, `no_pdf` and the PDF's
        reasons)."""
        body = await self.fetcher.get_capped(f"{self.pdf_url}/{arxiv_id}", max_bytes=self.pdf_max_bytes)
        if body.missing:
            return "no_pdf", []
        if body.over_cap:
            return "too_large", []
        try:
            head = await asyncio.to_thread(first_page_head, body.content, max_bytes=self.pdf_max_bytes)
        except PageRejected as rejected:
            return rejected.reason, []
        return "read_pdf", [SourceRecord.of(arxiv_id, "arxiv_pdf_first_page", head, None)]


def _build(parts: SourceParts) -> ArxivHtmlSource:
    queue = needed(parts.first_pages, "arxiv_html reads the queue of first pages: give it the database's")
    return ArxivHtmlSource(parts.settings, parts.arxiv, queue)


def _queue_first_pages(out: Publishing, parts: SourceParts) -> Publishing:
    """Each arXiv paper published queues its first page."""
    return QueueingPublishing(out, needed(parts.first_pages, "arxiv_html queues first pages: give it the queue"))


SOURCE = SourceSpec(
    "arxiv_html",
    _build,
    lambda settings: settings.arxiv_html_interval_s,
    formats=("arxiv_html_authors", "arxiv_pdf_first_page"),
    settings="ARXIV_HTML_",
    publishing=_queue_first_pages,
)
