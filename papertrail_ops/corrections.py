"""`papertrail corrections apply ID --author N …`: an operator applies a reader's report on a paper's institutions.
The report is the query service's (its readers' records); the paper is the normalizer's, which stores the author's
corrected institutions as a metadata correction of its own and announces it on papers.normalized.v1, like any change,
so the summary, the index and the follows all see it; every later merge keeps it. Here because it joins the two
services' operator code, which neither service may import from the other."""

import asyncio
from datetime import UTC, datetime

from papertrail.domain.author_institutions import is_ror_id
from papertrail.domain.institutions.catalogue import read_catalogue
from papertrail.runtime.kafka import kafka_name, make_broker
from papertrail.runtime.mongo import database, make_mongo_client
from papertrail.runtime.service import load_settings
from schemas import topics
from schemas.events import PaperNormalized
from schemas.paper import AuthorInstitution
from services.normalizer.corrections import CorrectionRefused, apply_institutions
from services.normalizer.settings import NormalizerSettings
from services.normalizer.store import PaperStore
from services.query.readers.accounts.cli import REPORT_ID, correction_report, mark_applied


def institution_of(
    affiliation: str | None, ror: str | None, name: str | None, name_zh: str | None, country: str | None
) -> AuthorInstitution:
    """The institution the operator names: a ROR record (its id; its name, Chinese label and country as the shipped
    catalogue holds them, unless given) with the words as written (the record's name when none), or words matched
    to no record."""
    if ror is not None:
        if not is_ror_id(ror):
            raise CorrectionRefused(f"--ror {ror!r} is no ROR id (like 03cve4549)")
        record = read_catalogue().institutions.get(ror) if not name else None
        if not name and record is None:
            raise CorrectionRefused(f"the ROR catalogue holds no {ror}: give its --name (and --name-zh, --country)")
        if record is not None:
            name, name_zh, country = record.name, name_zh or record.name_zh, country or record.country
        assert name is not None
        return AuthorInstitution(affiliation=affiliation or name, ror=ror, name=name, name_zh=name_zh, country=country)
    if not affiliation:
        raise CorrectionRefused("name the institution: --ror ID --name NAME [--name-zh …], or --affiliation WORDS")
    return AuthorInstitution(affiliation=affiliation)


async def _apply(paper_id: str, position: int, institution: AuthorInstitution) -> PaperNormalized:
    settings = load_settings(NormalizerSettings, "corrections")
    client = make_mongo_client(settings)
    try:
        event = await apply_institutions(
            PaperStore(database(client, settings)), paper_id, position, [institution], datetime.now(UTC)
        )
    finally:
        await client.close()
    broker = make_broker(settings, "normalizer")
    await broker.connect()
    try:
        await broker.publish(event, topic=kafka_name(settings, topics.PAPERS_NORMALIZED), key=paper_id.encode())
    finally:
        await broker.stop()
    return event


def apply_command(report_id: str | None, position: int | None, **named: str | None) -> int:
    """Apply an open report on `institutions`: author `position` (1-based) is at the institution named; the exit
    code."""
    if report_id is None or not REPORT_ID.match(report_id):
        print(f"papertrail corrections apply: {report_id!r} is not a report id (32 hex digits)")
        return 2
    report = correction_report(report_id)
    if report is None:
        print(f"papertrail corrections apply: no report {report_id}")
        return 1
    if report.field != "institutions" or report.status != "open":
        print(f"papertrail corrections apply: report {report_id} is {report.status}, on {report.field}: only an "
              "open report on institutions is applied (close others with `corrections close`)")  # fmt: skip
        return 2
    try:
        if position is None:
            raise CorrectionRefused("--author N: which author (1 for the first) the institution is of")
        institution = institution_of(**named)
        event = asyncio.run(_apply(report.paper_id, position, institution))
    except CorrectionRefused as refused:
        print(f"papertrail corrections apply: {refused}")
        return 1
    author = event.paper.authors[position - 1].name
    what = f"author {position} ({author}): {institution.name or institution.affiliation}"
    what += f" ({institution.ror})" if institution.ror else " (as written)"
    mark_applied(report_id, what)
    print(f"report {report_id} applied to {report.paper_id} as record #{event.version.seq}: {what}")
    return 0
