"""ACL Anthology: the configured collection files, each skipped when unchanged (ETag or sha256)."""

import hashlib
from collections.abc import AsyncIterator
from typing import Any

from services.harvester.http import PoliteFetcher
from services.harvester.settings import HarvesterSettings
from services.harvester.sources import SourcePage, SourceRunFailed
from services.harvester.sources.anthology import MalformedVolumeFile, split_collection
from services.harvester.sources.spec import SourceSpec

PAGE_SIZE = 500  # records per published batch; a file's checkpoint moves only after its last batch


class AclAnthologySource:
    name = "acl"

    def __init__(self, settings: HarvesterSettings, fetcher: PoliteFetcher) -> None:
        self.base_url = settings.acl_anthology_url.rstrip("/")
        self.collections = settings.acl_volumes
        self.fetcher = fetcher

    async def pages(
        self, checkpoint: dict[str, Any], *, from_date: str | None = None, until_date: str | None = None
    ) -> AsyncIterator[SourcePage]:
        """One collection file after another; a manual window (`from_date`) re-reads them even if unchanged."""
        files: dict[str, dict[str, Any]] = {k: dict(v) for k, v in checkpoint.get("files", {}).items()}
        for collection in self.collections:
            seen = {} if from_date else files.get(collection, {})
            headers = {"If-None-Match": seen["etag"]} if seen.get("etag") else None
            response = await self.fetcher.get(f"{self.base_url}/data/xml/{collection}.xml", headers=headers)
            if response.status_code == 304:
                yield SourcePage([], {"files": files}, notes=[f"{collection}: unchanged (ETag)"])
                continue
            digest = hashlib.sha256(response.content).hexdigest()
            state = {"etag": response.headers.get("ETag"), "sha256": digest}
            if digest == seen.get("sha256"):
                files[collection] = state
                yield SourcePage([], {"files": files}, notes=[f"{collection}: unchanged (sha256)"])
                continue
            try:
                records = split_collection(response.content)
            except MalformedVolumeFile as exc:
                raise SourceRunFailed(f"ACL {collection}: {exc}") from exc
            for start in range(0, len(records), PAGE_SIZE):
                last = start + PAGE_SIZE >= len(records)
                if last:
                    files[collection] = state
                yield SourcePage(
                    records=records[start : start + PAGE_SIZE],
                    checkpoint={"files": {k: dict(v) for k, v in files.items()}},
                    complete_list_size=len(records),
                )


SOURCE = SourceSpec(
    "acl",
    lambda parts: AclAnthologySource(parts.settings, parts.fetcher(parts.settings.acl_min_request_interval_s)),
    lambda settings: settings.acl_interval_s,
    formats=("acl_xml",),
    settings="ACL_",
)
