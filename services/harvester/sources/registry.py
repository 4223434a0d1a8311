"""Every source the harvester can run, by name: each source module's `SOURCE`, one line each, in the order their
publishing wrappers nest (the announcement ledger inside the first-page queue)."""

from services.harvester.sources import (
    acl,
    arxiv,
    arxiv_feed,
    arxiv_html,
    ccf_deadlines,
    daily_arxiv,
    hf,
    openreview,
    pmlr,
    semantic_scholar,
)
from services.harvester.sources.spec import SourceSpec

SOURCES: dict[str, SourceSpec] = {
    spec.name: spec
    for spec in (
        arxiv.SOURCE,
        arxiv_feed.SOURCE,
        acl.SOURCE,
        hf.SOURCE,
        pmlr.SOURCE,
        openreview.SOURCE,
        daily_arxiv.SOURCE,
        arxiv_html.SOURCE,
        semantic_scholar.SOURCE,
        ccf_deadlines.SOURCE,
    )
}
