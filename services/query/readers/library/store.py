"""The reader's record in MongoDB: library entries and feedback (owned here), and reads of the normalizer's papers.

Every document carries its reader's `user_id` and every read and write filters on it, so one reader's id never
reaches another's entries (papertrail/runtime/collections.py: READERS_RECORD).
"""

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pymongo import DESCENDING, ReturnDocument, UpdateOne
from pymongo.asynchronous.database import AsyncDatabase

from papertrail.runtime.collections import FEEDBACK, LIBRARY, PAPERS, READER_MODELS
from papertrail.runtime.mongo import ensure_index
from schemas.paper import Paper
from services.query.catalogue.interface import public_paper
from services.query.readers.library.citations import ShelfMarks, citation_key_ok
from services.query.readers.library.recommend import mark_stale
from services.query.readers.library.shelf import (
    EntryChange,
    Label,
    LibraryCursor,
    Mark,
    after,
    changed_fields,
    entry_id,
    library_filter,
    paper_card,
    updated_since_saved,
)


def citable(paper: dict[str, Any]) -> Paper:
    """A `papers` document as the schema's paper, which citations are made of (the normalizer's storage fields
    left out, as the API's paper is)."""
    return Paper.model_validate(public_paper(paper["_id"], paper))


PAPER_CARD_FIELDS = {
    "title": 1,
    "authors.name": 1,
    "year": 1,
    "venue": 1,
    "status": 1,
    "ids": 1,
    "current_version": 1,
    "versions.label": 1,
    "versions.date": 1,
}


class LibraryStore:
    def __init__(self, db: AsyncDatabase) -> None:
        self.db = db
        self.entries = db[LIBRARY.name]
        self.feedback = db[FEEDBACK.name]
        self.papers = db[PAPERS.name]
        self.models = db[READER_MODELS.name]  # marked stale when the reader's feedback changes

    async def ensure_indexes(self) -> None:
        # ascending keys walked backwards for the newest-first list: the local stack's MongoDB (secantus) drops the
        # boundary entry of a `$gte` on a descending key
        await ensure_index(self.entries, [("user_id", 1), ("saved_at", 1), ("_id", 1)])
        await ensure_index(self.entries, [("user_id", 1), ("tags", 1)])
        await ensure_index(self.entries, [("saved_at", 1)])  # the summarizer's sweep: papers saved since it last read
        await ensure_index(self.feedback, [("user_id", 1), ("paper_id", 1)])  # a reader's marks on a page's papers
        await ensure_index(self.feedback, [("user_id", 1), ("updated_at", DESCENDING)])

    # entries -------------------------------------------------------------------------------------------------
    async def entry(self, user_id: str, paper_id: str) -> dict[str, Any] | None:
        return await self.entries.find_one({"_id": entry_id(user_id, paper_id), "user_id": user_id})

    async def save(self, user_id: str, paper: dict[str, Any], change: EntryChange, now: datetime) -> dict[str, Any]:
        """Save the paper (its `papers` document) to the reader's library, or change its tags and note; the same
        save twice leaves the same entry (its times too). Saving is positive feedback."""
        paper_id = paper["_id"]
        stored = await self.entry(user_id, paper_id)
        fields = changed_fields(stored, change)
        if stored is None or fields:
            stored = await self.entries.find_one_and_update(
                {"_id": entry_id(user_id, paper_id)},
                {
                    "$set": {**fields, "title": paper.get("title", ""), "updated_at": now},
                    "$setOnInsert": {"user_id": user_id, "paper_id": paper_id, "saved_at": now},
                },
                upsert=True,
                return_document=ReturnDocument.AFTER,
            )
        await self.label(user_id, paper_id, "positive", now)
        assert stored is not None  # upserted
        return stored

    async def add_imported(
        self, user_id: str, paper_ids: Sequence[str], job_id: str, now: datetime, keys: dict[str, str] | None = None
    ) -> None:
        """Save the papers an import resolved, keeping the tags and notes of those already saved (so the same file
        again adds nothing); positive feedback for each. A paper new to the library remembers the import, and an
        entry without one keeps the file's citation key (`keys`, by paper), which its exports then use."""
        ids = list(dict.fromkeys(paper_ids))
        if not ids:
            return
        held = self.papers.find({"_id": {"$in": ids}}, {"title": 1})
        titles = {doc["_id"]: doc.get("title", "") async for doc in held}
        await self.entries.bulk_write(
            [
                UpdateOne(
                    {"_id": entry_id(user_id, paper_id)},
                    {
                        "$setOnInsert": {
                            "user_id": user_id,
                            "paper_id": paper_id,
                            "title": titles.get(paper_id, ""),
                            "tags": [],
                            "note": "",
                            "saved_at": now,
                            "updated_at": now,
                            "import_id": job_id,
                        }
                    },
                    upsert=True,
                )
                for paper_id in ids
            ],
            ordered=False,
        )
        kept = {paper_id: key for paper_id, key in (keys or {}).items() if paper_id in titles and citation_key_ok(key)}
        if kept:
            await self.entries.bulk_write(
                [
                    UpdateOne(
                        {"_id": entry_id(user_id, paper_id), "citation_key": {"$exists": False}},
                        {"$set": {"citation_key": key}},
                    )
                    for paper_id, key in kept.items()
                ],
                ordered=False,
            )
        labelled = await self.feedback.bulk_write(
            [UpdateOne(*self._feedback_update(user_id, p, self._label_fields("positive", now))) for p in ids],
            ordered=False,
        )
        if labelled.modified_count or labelled.upserted_count:
            await mark_stale(self.models, user_id, now)

    async def count_imported(self, user_id: str, job_id: str) -> int:
        """The papers an import added to the library (those it found there already not counted)."""
        return await self.entries.count_documents({"user_id": user_id, "import_id": job_id})

    async def remove(self, user_id: str, paper_id: str, now: datetime) -> bool:
        """Take the paper out of the library; its positive feedback goes with it. Whether it was there."""
        removed = await self.entries.delete_one({"_id": entry_id(user_id, paper_id), "user_id": user_id})
        unlabelled = await self.feedback.update_one(
            {"_id": entry_id(user_id, paper_id), "user_id": user_id, "label": "positive"},
            {"$set": {"label": None, "labelled_at": now, "updated_at": now}},
        )
        if unlabelled.modified_count:
            await mark_stale(self.models, user_id, now)
        return removed.deleted_count == 1

    async def entries_page(
        self, query: dict[str, Any], cursor: LibraryCursor | None, limit: int
    ) -> tuple[list[dict[str, Any]], int, LibraryCursor | None]:
        """One page of entries (newest saved first) with their papers, the total, and the next page's cursor."""
        total = await self.entries.count_documents(query)
        page_query = {"$and": [query, after(cursor)]} if cursor else query
        found = self.entries.find(page_query).sort([("saved_at", DESCENDING), ("_id", DESCENDING)]).limit(limit + 1)
        entries = await found.to_list(None)
        more = len(entries) > limit
        entries = entries[:limit]
        cards = await self.paper_cards([e["paper_id"] for e in entries])
        page = [
            {**e, "paper": card, "updated_to": updated_since_saved(card, e["saved_at"])}
            for e in entries
            for card in [cards.get(e["paper_id"])]
        ]
        next_cursor = LibraryCursor(entries[-1]["saved_at"], entries[-1]["_id"]) if more else None
        return page, total, next_cursor

    async def tags(self, user_id: str) -> list[tuple[str, int]]:
        """The reader's tags with how many entries carry each, most used first."""
        counted = await self.entries.aggregate(
            [
                {"$match": {"user_id": user_id}},
                {"$unwind": "$tags"},
                {"$group": {"_id": "$tags", "n": {"$sum": 1}}},
                {"$sort": {"n": -1, "_id": 1}},
            ]
        )
        return [(doc["_id"], doc["n"]) async for doc in counted]

    async def saved_paper_ids(self, user_id: str, tag: str | None = None) -> list[str]:
        """Every paper of the library (or of one tag), newest saved first."""
        query = library_filter(user_id, tag=tag)
        cursor = self.entries.find(query, {"paper_id": 1}).sort([("saved_at", DESCENDING), ("_id", DESCENDING)])
        return [doc["paper_id"] async for doc in cursor]

    async def shelf_marks(self, user_id: str, paper_ids: Sequence[str]) -> dict[str, ShelfMarks]:
        """The reader's tags and note on each of these saved papers."""
        query = {"user_id": user_id, "paper_id": {"$in": list(paper_ids)}}
        cursor = self.entries.find(query, {"paper_id": 1, "tags": 1, "note": 1, "citation_key": 1})
        return {
            doc["paper_id"]: ShelfMarks(tuple(doc.get("tags") or ()), doc.get("note") or "", doc.get("citation_key"))
            async for doc in cursor
        }

    async def apply(self, user_id: str, paper: dict[str, Any], mark: Mark, now: datetime) -> dict[str, Any]:
        """One click on a paper: 收藏 saves it (positive), 不相关 dismisses it (negative, and out of the library),
        已读 marks it read; `unread` and `remove` undo. The reader's marks on it after."""
        paper_id = paper["_id"]
        if mark == "save":
            await self.save(user_id, paper, EntryChange(), now)
        elif mark == "remove":
            await self.remove(user_id, paper_id, now)
        elif mark == "not_relevant":
            await self.remove(user_id, paper_id, now)
            await self.label(user_id, paper_id, "negative", now)
        else:
            await self.mark_read(user_id, paper_id, mark == "read", now)
        return (await self.marks(user_id, [paper_id]))[paper_id]

    # feedback ------------------------------------------------------------------------------------------------
    async def label(self, user_id: str, paper_id: str, label: Label | None, now: datetime) -> None:
        """Set the reader's verdict on a paper (saved = positive, not relevant = negative). The same verdict again
        keeps its time, so a repeated click does not count as a change (nor retrain the reader's model)."""
        changed = await self.feedback.update_one(
            *self._feedback_update(user_id, paper_id, self._label_fields(label, now))
        )
        if changed.modified_count or changed.upserted_id is not None:
            await mark_stale(self.models, user_id, now)

    async def mark_read(self, user_id: str, paper_id: str, read: bool, now: datetime) -> None:
        """Mark the paper read (or not); neither positive nor negative."""
        was_read = {"$ne": [{"$ifNull": ["$read_at", None]}, None]}
        same = {"$eq": [was_read, read]}
        fields = {
            "read_at": {"$cond": [same, "$read_at", now if read else None]},
            "updated_at": {"$cond": [same, "$updated_at", now]},
        }
        await self.feedback.update_one(*self._feedback_update(user_id, paper_id, fields))

    @staticmethod
    def _label_fields(label: Label | None, now: datetime) -> dict[str, Any]:
        same = {"$eq": [{"$ifNull": ["$label", None]}, label]}
        return {
            "label": label,
            "labelled_at": {"$cond": [same, "$labelled_at", now]},
            "updated_at": {"$cond": [same, "$updated_at", now]},
        }

    @staticmethod
    def _feedback_update(user_id: str, paper_id: str, fields: dict[str, Any]) -> tuple[dict[str, Any], list[Any], bool]:
        # one record per reader and paper, written by an update pipeline so a change can depend on what is stored
        stage = {"user_id": user_id, "paper_id": paper_id, **fields}
        return {"_id": entry_id(user_id, paper_id)}, [{"$set": stage}], True

    async def marks(self, user_id: str, paper_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The reader's marks on these papers: saved (in the library), label, read."""
        ids = list(dict.fromkeys(paper_ids))
        if not ids:
            return {}
        feedback = {
            doc["paper_id"]: doc async for doc in self.feedback.find({"user_id": user_id, "paper_id": {"$in": ids}})
        }
        saved = {
            doc["paper_id"]
            async for doc in self.entries.find({"user_id": user_id, "paper_id": {"$in": ids}}, {"paper_id": 1})
        }
        return {
            paper_id: {
                "saved": paper_id in saved,
                "label": (feedback.get(paper_id) or {}).get("label"),
                "read": bool((feedback.get(paper_id) or {}).get("read_at")),
            }
            for paper_id in ids
        }

    async def feedback_list(self, user_id: str, limit: int) -> list[dict[str, Any]]:
        cursor = self.feedback.find({"user_id": user_id}, {"_id": 0}).sort("updated_at", DESCENDING).limit(limit)
        return await cursor.to_list(None)

    # the normalizer's papers (read only) ---------------------------------------------------------------------
    async def paper_cards(self, paper_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        found = self.papers.find({"_id": {"$in": list(dict.fromkeys(paper_ids))}}, PAPER_CARD_FIELDS)
        return {doc["_id"]: paper_card(doc) async for doc in found}

    async def citable_papers(self, paper_ids: Sequence[str]) -> list[Paper]:
        """The papers of these ids as citations are made of them, in the order asked."""
        return [citable(doc) for doc in await self.papers_by_id(paper_ids)]

    async def papers_by_id(self, paper_ids: Sequence[str]) -> list[dict[str, Any]]:
        """The `papers` documents of these ids, in the order asked (ids no paper holds left out)."""
        found = {doc["_id"]: doc async for doc in self.papers.find({"_id": {"$in": list(dict.fromkeys(paper_ids))}})}
        return [found[i] for i in paper_ids if i in found]
