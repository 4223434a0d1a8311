"""Retagging: every indexed paper's catalogue topics derived again when the catalogue differs from the one that
tagged them (a new release's topics.toml); every indexed paper's stored vector (and search vector) attached again
when the model differs from the one whose vectors the index holds; and every paper's full-name author keys
(`author_names`, the author pages' keys) written when the index's were made by another scheme, or before there were
any."""

import logging
import time

import stamina

from papertrail.domain.names import NAME_KEY_SCHEME
from papertrail.domain.search_document import EMBEDDER, SEARCH_EMBEDDER, author_names, with_vector
from services.query.catalogue.index import PaperIndex
from services.query.catalogue.indexer.topic_tags import TopicTagger
from services.query.catalogue.repositories import CatalogueRecords

log = logging.getLogger("papertrail.query")
RETAG_FIELDS = ["id", "paper_id", "title", "abstract", "categories", "topic_ids", "topic_reasons"]


async def retag(index: PaperIndex, tagger: TopicTagger, page_size: int = 1000) -> int:
    """Recompute every paper's catalogue topics and rewrite those that differ (only their topic fields); return how
    many changed. Papers indexed meanwhile are tagged by the same catalogue, so the two writers agree, except for a
    paper whose text changes in the few milliseconds between reading its page and writing it: it keeps the old
    text's topics until its next version."""
    changed = 0
    async for page in index.pages(RETAG_FIELDS, page_size):
        updates = []
        for held in page:
            reasons = tagger.tags(
                held["paper_id"], held.get("title", ""), held.get("abstract", ""), held.get("categories", [])
            )
            if reasons != held.get("topic_reasons", {}) or sorted(reasons) != held.get("topic_ids", []):
                updates.append({"id": held["id"], "topic_ids": sorted(reasons), "topic_reasons": reasons})
        if updates:
            await index.upsert(updates)
            changed += len(updates)
    return changed


@stamina.retry(on=Exception, attempts=None, timeout=None, wait_max=60)
async def retag_on_catalogue_change(index: PaperIndex, catalogue: CatalogueRecords, tagger: TopicTagger) -> None:
    """Retag the index when its papers were tagged by another catalogue than `tagger`'s; retried until it succeeds,
    since a paper retagged twice comes out the same."""
    if await catalogue.index_state.tagged_catalogue(index.name) == tagger.digest:
        return
    started = time.perf_counter()
    changed = await retag(index, tagger)
    await catalogue.index_state.save_tagged_catalogue(index.name, tagger.digest)
    seconds = round(time.perf_counter() - started, 1)
    log.info("papers retagged for the topic catalogue", extra={"changed": changed, "seconds": seconds})


async def attach_vectors(
    index: PaperIndex, catalogue: CatalogueRecords, model_key: str, page_size: int = 1000, search: bool = False
) -> int:
    """Give every indexed paper its stored vector of `model_key` (or none), without embedding anything: how the index
    gets its vectors after a model change or when it was built before vectors; returns how many papers have one.
    `search`: the search vectors (`search_vectors`, the index's second embedder) instead."""
    read = catalogue.vectors.search_vectors_of if search else catalogue.vectors.vectors_of
    embedder = SEARCH_EMBEDDER if search else EMBEDDER
    attached = 0
    async for page in index.pages(["id", "paper_id"], page_size):
        vectors = await read([held["paper_id"] for held in page], model_key)
        await index.upsert([with_vector({"id": held["id"]}, vectors.get(held["paper_id"]), embedder) for held in page])
        attached += len(vectors)
    return attached


@stamina.retry(on=Exception, attempts=None, timeout=None, wait_max=60)
async def attach_vectors_on_model_change(index: PaperIndex, catalogue: CatalogueRecords, model_key: str) -> None:
    """Attach the stored vectors when the index's documents hold another model's (or none); retried until it
    succeeds, since attaching twice comes out the same. Papers indexed meanwhile get theirs from the indexer."""
    if await catalogue.index_state.vectors_model(index.name) == model_key:
        return
    started = time.perf_counter()
    attached = await attach_vectors(index, catalogue, model_key)
    await catalogue.index_state.save_vectors_model(index.name, model_key)
    seconds = round(time.perf_counter() - started, 1)
    log.info("stored vectors attached to the index", extra={"papers": attached, "seconds": seconds})


@stamina.retry(on=Exception, attempts=None, timeout=None, wait_max=60)
async def attach_search_vectors_on_model_change(
    index: PaperIndex, catalogue: CatalogueRecords, search_model_key: str
) -> None:
    """Attach the stored search vectors when the index's documents hold another search model's (or none), as
    `attach_vectors_on_model_change` does for the papers' vectors; with the search vectors off (`none`), only record
    it (the index dropped the embedder and its vectors), so turning them on again attaches them all."""
    if await catalogue.index_state.search_vectors_model(index.name) == search_model_key:
        return
    started = time.perf_counter()
    attached = await attach_vectors(index, catalogue, search_model_key, search=True) if index.search_dimensions else 0
    await catalogue.index_state.save_search_vectors_model(index.name, search_model_key)
    seconds = round(time.perf_counter() - started, 1)
    log.info("stored search vectors attached to the index", extra={"papers": attached, "seconds": seconds})


async def name_authors(index: PaperIndex, page_size: int = 1000) -> int:
    """Give every indexed paper its authors' full-name keys, read from the names it holds (no paper is read); return
    how many documents changed."""
    changed = 0
    async for page in index.pages(["id", "authors", "author_names"], page_size):
        updates = [
            {"id": held["id"], "author_names": keys}
            for held in page
            if (keys := author_names(held.get("authors") or [])) != held.get("author_names")
        ]
        if updates:
            await index.upsert(updates)
            changed += len(updates)
    return changed


@stamina.retry(on=Exception, attempts=None, timeout=None, wait_max=60)
async def name_authors_on_scheme_change(index: PaperIndex, catalogue: CatalogueRecords) -> None:
    """Write the full-name author keys when the index's documents were keyed by another scheme (or none: indexed
    before author pages told full names apart); retried until it succeeds, since writing them twice comes out the
    same. Papers indexed meanwhile get theirs from the indexer."""
    if await catalogue.index_state.author_names_scheme(index.name) == NAME_KEY_SCHEME:
        return
    started = time.perf_counter()
    changed = await name_authors(index)
    await catalogue.index_state.save_author_names_scheme(index.name, NAME_KEY_SCHEME)
    seconds = round(time.perf_counter() - started, 1)
    log.info("author name keys written to the index", extra={"changed": changed, "seconds": seconds})
