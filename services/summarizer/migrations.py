"""The summarizer's numbered migrations (papertrail/runtime/migrations.py): vectors an older release stored. Run once by
`papertrail migrate`, or at the service's start, before a vector is read or written, while pending."""

from papertrail.runtime.migrations import Migration, MigrationContext, Migrations
from services.summarizer.store import convert_vectors_to_float32


async def vectors_as_float32(context: MigrationContext) -> str:
    """paper_vectors' arrays of doubles (before PaperVector) rewritten as BSON binary float32 (store.py)."""
    return f"{await convert_vectors_to_float32(context.db)} vectors converted to binary float32"


MIGRATIONS = Migrations([Migration(5, "paper vectors as binary float32", "summarizer", vectors_as_float32)])
