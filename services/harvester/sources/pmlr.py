"""PMLR: the configured volumes' BibTeX files (ICML, AISTATS, COLT, CoRL, …), each skipped when unchanged (sha256)."""

import hashlib
from collections.abc import AsyncIterator
from typing import Any

from services.harvester.http import PoliteFetcher
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage, SourceRunFailed, digested_pages
from services.harvester.sources.pmlr_bib import MalformedVolumeBib, split_volume
from services.harvester.sources.spec import SourceSpec


class PmlrSource:
    name = "pmlr"

    def __init__(self, settings: HarvesterSettings, fetcher: PoliteFetcher) -> None:
        self.base_url = settings.pmlr_url.rstrip("/")
        self.volumes = settings.pmlr_volumes
        self.branch = settings.pmlr_branch
        self.fetcher = fetcher

    async def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        """One volume file after another (`v267/icml25.bib` read at <url>/v267/<branch>/icml25.bib); a manual window
        (`from_date`) re-reads them even if unchanged."""
        files: dict[str, dict[str, Any]] = {k: dict(v) for k, v in checkpoint.get("files", {}).items()}
        for volume in self.volumes:
            repository, _, path = volume.partition("/")
            response = await self.fetcher.get(f"{self.base_url}/{repository}/{self.branch}/{path}")
            digest = hashlib.sha256(response.content).hexdigest()
            if not from_date and digest == files.get(volume, {}).get("sha256"):
                yield SourcePage([], {"files": files}, notes=[f"{volume}: unchanged (sha256)"])
                continue
            try:
                records, notes = split_volume(response.content.decode("utf-8"))
            except (MalformedVolumeBib, UnicodeDecodeError) as exc:
                raise SourceRunFailed(f"PMLR {volume}: {exc}") from exc
            for page in digested_pages(records, notes, digests=files, key="files", part=volume, digest=digest):
                yield page


SOURCE = SourceSpec(
    "pmlr",
    lambda parts: PmlrSource(parts.settings, parts.fetcher(parts.settings.pmlr_min_request_interval_s)),
    lambda settings: settings.pmlr_interval_s,
    formats=("pmlr_bibtex",),
    settings="PMLR_",
)
