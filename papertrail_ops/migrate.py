"""`papertrail migrate`: every service's pending numbered migrations (papertrail/runtime/migrations.py), in number
order, against the deployment's MongoDB and Kafka; `--list` shows each with when it was applied; `--again N` runs an
applied one again (they are idempotent: after a rolling update, say, when older replicas wrote meanwhile)."""

import asyncio
from collections.abc import Callable

from papertrail.runtime.kafka import make_broker
from papertrail.runtime.migrations import Migration, MigrationContext, MigrationRecord, Migrations, publishing_on
from papertrail.runtime.mongo import database, make_mongo_client
from papertrail.runtime.service import load_settings
from papertrail.runtime.settings import InfraSettings
from services.normalizer.migrations import MIGRATIONS as NORMALIZER
from services.query.migrations import MIGRATIONS as QUERY
from services.summarizer.migrations import MIGRATIONS as SUMMARIZER

# Every service's migrations, one numbering (the next is 10).
MIGRATIONS = Migrations([*NORMALIZER, *QUERY, *SUMMARIZER])


def run(again: int | None, listing: bool, say: Callable[[str], None] = print) -> int:
    """The command; its exit code."""
    settings = load_settings(InfraSettings, "migrate")
    if again is not None and MIGRATIONS.numbered(again) is None:
        say(f"papertrail migrate: no migration {again}; there are {', '.join(str(m.number) for m in MIGRATIONS)}")
        return 2
    return asyncio.run(_run(settings, again, listing, say))


async def _run(settings: InfraSettings, again: int | None, listing: bool, say: Callable[[str], None]) -> int:
    mongo = make_mongo_client(settings, "migrate")
    broker = make_broker(settings, "migrate")  # connected only when a migration announces something
    try:
        db = database(mongo, settings)
        record = MigrationRecord(db)
        if listing:
            applied = await record.applied()
            for m in MIGRATIONS:
                when = applied[m.number].isoformat(timespec="seconds") if m.number in applied else "pending"
                say(f"{m.number:>3}  {m.service:<10}  {m.name}: {when}")
            return 0
        context = MigrationContext(db, publishing_on(broker, settings))
        chosen: list[Migration] = [m for m in MIGRATIONS if m.number == again]
        ran = (
            [(m, await record.run(m, context, again=True)) for m in chosen]
            if chosen
            else await record.run_pending(MIGRATIONS, context)
        )
        for m, outcome in ran:
            say(f"migration {m.number} ({m.service}: {m.name}): {outcome}")
        if not ran:
            say("no migration pending")
        return 0
    finally:
        await broker.stop()
        await mongo.close()
