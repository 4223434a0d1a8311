"""The source registry: every source the settings accept is registered once, built from the shared parts under its
own name, publishes only formats the event contract names and the normalizer reads."""

import typing
from typing import Any

import httpx
import pytest
from pymongo import AsyncMongoClient
from pymongo.asynchronous.database import AsyncDatabase

from schemas.events import RawFormat
from services.harvester.announced import AnnouncedPapers
from services.harvester.citation_queue import CitationQueue
from services.harvester.first_pages import FirstPageQueue
from services.harvester.scheduler import build_registered, source_parts
from services.harvester.settings import KNOWN_SOURCES, HarvesterSettings
from services.harvester.sources.arxiv_feed import ArxivAnnouncementSource
from services.harvester.sources.registry import SOURCES
from services.harvester.store import VenueCatalogueStore
from services.normalizer.parsers.registry import PARSERS


def test_the_settings_know_the_registered_sources_and_no_other() -> None:
    assert tuple(SOURCES) == KNOWN_SOURCES


@pytest.mark.parametrize("name", list(SOURCES))
def test_a_source_publishes_formats_the_contract_names_and_the_normalizer_reads(name: str) -> None:
    formats = SOURCES[name].formats
    assert set(formats) <= set(typing.get_args(RawFormat))
    assert [f for f in formats if f not in PARSERS] == []


async def test_every_source_is_built_from_the_shared_parts_under_its_name() -> None:
    # a client that never connects: building a source reads nothing
    db: AsyncDatabase[dict[str, Any]] = AsyncMongoClient("mongodb://127.0.0.1:9", connect=False)["registry"]
    settings = HarvesterSettings()
    async with httpx.AsyncClient() as client:
        parts = source_parts(
            settings,
            client,
            FirstPageQueue(db),
            CitationQueue(db),
            VenueCatalogueStore(db),
            AnnouncedPapers(db),
        )
        built = build_registered(list(SOURCES), parts)
    assert {name: source.name for name, (source, _) in built.items()} == {name: name for name in SOURCES}
    assert built["pmlr"][1] == settings.pmlr_interval_s and built["arxiv"][1] == settings.arxiv_interval_s
    watchers = [name for name, (source, _) in built.items() if isinstance(source, ArxivAnnouncementSource)]
    assert watchers == [name for name, spec in SOURCES.items() if spec.schedule == "announcements"] == ["arxiv_feed"]


def test_an_unknown_source_is_named() -> None:
    parts = source_parts(HarvesterSettings(), httpx.AsyncClient())
    with pytest.raises(ValueError, match="unknown source 'dblp' in SOURCES"):
        build_registered(["dblp"], parts)


@pytest.mark.parametrize("name", list(SOURCES))
def test_a_source_names_the_settings_it_reads(name: str) -> None:
    prefix = SOURCES[name].settings
    assert [field for field in HarvesterSettings.model_fields if field.upper().startswith(prefix)] != []
