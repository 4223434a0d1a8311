"""Recorded harvests the harvester's tests share: a chain of OAI-PMH pages, a recorded record, the requests a
replay server answered."""

from typing import Any

from services.harvester.sources.oai import parse_oai_page
from tests.support.paths import FIXTURES, SOURCES
from tests.support.replay import Replay

CHAIN = sorted((FIXTURES / "harvester/arxiv_chain").glob("page*.xml"))

CHAIN_IDS = [r.record_id for page in CHAIN for r in parse_oai_page(page.read_bytes()).records]

RECORDED = parse_oai_page((SOURCES / "arxiv_oai/arXivRaw/mikesaelim_GetRecordResponse.xml").read_bytes()).records[0]


def get_record_requests(replay: Replay) -> list[dict[str, Any]]:
    return [r for r in replay.requests() if r["path"] == "/oai" and r["query"].get("verb") == "GetRecord"]
