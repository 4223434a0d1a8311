"""`papertrail users create NAME` (prints the token once; only its hash is stored) and the operators'
`papertrail corrections list|close` (and the reports `corrections apply` reads and marks): readers' error reports,
which carry contact addresses, so no public API."""

import asyncio
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TypeVar

from papertrail.runtime.collections import FOLLOWS
from papertrail.runtime.kafka import kafka_name, make_broker
from papertrail.runtime.mongo import database, make_mongo_client
from papertrail.runtime.service import load_settings
from schemas import topics
from schemas.events import FollowChanged
from services.query.readers.accounts import follows
from services.query.readers.accounts.corrections import STATUSES, CorrectionReport
from services.query.readers.accounts.users import (
    MAX_PASSWORD,
    BadAccountInput,
    checked_password,
    hash_password,
    normalised_email,
)
from services.query.readers.repositories import ReaderRecords
from services.query.settings import QuerySettings

T = TypeVar("T")
REPORT_ID = re.compile(r"^[0-9a-f]{32}$")
LIST_LIMIT = 500  # newest first; close the handled ones and the rest come into view


def _with_readers(work: Callable[[ReaderRecords], Awaitable[T]], name: str) -> T:
    settings = load_settings(QuerySettings, name)

    async def run() -> T:
        client = make_mongo_client(settings)
        try:
            readers = ReaderRecords.of(database(client, settings))
            await readers.ensure_indexes()
            return await work(readers)
        finally:
            await client.close()

    return asyncio.run(run())


def create_user(name: str) -> tuple[str, str]:
    return _with_readers(lambda readers: readers.create_user(name), "users")


def set_password(name_or_email: str, email: str | None, password: str) -> int:
    """`papertrail users password NAME|EMAIL [--email ADDRESS]`: set a user's password (an operator's token user
    gets an account address with --email, so they can sign in on the pages); the exit code."""
    settings = load_settings(QuerySettings, "users")
    try:
        address = normalised_email(email) if email is not None else None
        checked_password(password, settings.password_min_length)
    except BadAccountInput as error:
        problem = {"email_invalid": f"{email!r} is not an e-mail address"}.get(
            str(error), f"a password needs {settings.password_min_length} to {MAX_PASSWORD} characters"
        )
        print(f"papertrail users password: {problem}")
        return 2

    async def work(readers: ReaderRecords) -> int:
        user = await readers.users.find_user(name_or_email)
        if user is None:
            print(f"papertrail users password: no user {name_or_email!r}")
            return 1
        if address and not await readers.users.set_account_email(user["_id"], address):
            print(f"papertrail users password: another account has {address}")
            return 1
        if not (address or user.get("account_email")):
            print("papertrail users password: the user has no account address: give one with --email")
            return 2
        await readers.users.set_password(user["_id"], await hash_password(password))
        print(f"password of {user['name']} set; they sign in as {address or user['account_email']}")
        return 0

    return _with_readers(work, "users")


def confirm_user(name_or_email: str) -> int:
    """`papertrail users confirm NAME|EMAIL`: confirm a user's account address by the operators' word (the way
    without a mail server, EMAIL_CONFIRMATION_WITHOUT_SMTP=operator); the exit code."""

    async def work(readers: ReaderRecords) -> int:
        user = await readers.users.find_user(name_or_email)
        if user is None:
            print(f"papertrail users confirm: no user {name_or_email!r}")
            return 1
        if not user.get("account_email"):
            print(f"papertrail users confirm: {user['name']} has no account address (set one: users password --email)")
            return 2
        await readers.users.confirm_email(user["_id"], user["account_email"], datetime.now(UTC))
        print(f"address {user['account_email']} of {user['name']} confirmed")
        return 0

    return _with_readers(work, "users")


def delete_user(name_or_email: str) -> int:
    """`papertrail users delete NAME|EMAIL`: the user and everything of theirs this service keeps, each follow's
    deletion announced on follows.changed.v1 as an unfollow is (so the matcher stops matching it); the exit code."""
    settings = load_settings(QuerySettings, "users")

    async def work(readers: ReaderRecords) -> int:
        user = await readers.users.find_user(name_or_email)
        if user is None:
            print(f"papertrail users delete: no user {name_or_email!r}")
            return 1
        broker = make_broker(settings, "query")
        await broker.connect()
        try:

            async def announce(change: FollowChanged) -> None:
                await broker.publish(
                    change, topic=kafka_name(settings, topics.FOLLOWS_CHANGED), key=change.user_id.encode()
                )

            announced = [follow for follow, _ in await readers.follows.list_follows(user["_id"])]
            for follow in announced:
                await follows.delete_follow(readers, announce, user["_id"], follow.id)
        finally:
            await broker.stop()
        removed = await readers.delete_user(user["_id"])
        removed[FOLLOWS.name] += len(announced)
        print(f"user {user['name']} ({user['_id']}) deleted: " + ", ".join(f"{n} {c}" for c, n in removed.items()))
        return 0

    return _with_readers(work, "users")


def corrections_command(action: str, report_id: str | None, status: str | None) -> int:
    """Run `corrections list` or `corrections close ID`; return the exit code."""
    if action == "list":
        if status is not None and status not in STATUSES:
            print(f"papertrail corrections: --status {status!r} is not one of {', '.join(STATUSES)}")
            return 2
        reports = _with_readers(lambda readers: readers.corrections.list_corrections(status, LIST_LIMIT), "corrections")
        for report in reports:
            print(_report_lines(report))
        shown = f"the newest {LIST_LIMIT}" if len(reports) == LIST_LIMIT else str(len(reports))
        print(f"{shown} error report(s)" + (f" with status {status}" if status else ""))
        return 0
    if report_id is None or not REPORT_ID.match(report_id):
        print(f"papertrail corrections close: {report_id!r} is not a report id (32 hex digits)")
        return 2
    closed = _with_readers(
        lambda readers: readers.corrections.close_correction(report_id, datetime.now(UTC)), "corrections"
    )
    if closed is None:
        print(f"papertrail corrections close: no report {report_id}")
        return 1
    print(f"report {closed.id} on {closed.paper_id} is {closed.status}")
    return 0


def correction_report(report_id: str) -> CorrectionReport | None:
    """The report of this id, or None (`corrections apply` reads what it corrects from it)."""
    return _with_readers(lambda readers: readers.corrections.get_correction(report_id), "corrections")


def mark_applied(report_id: str, applied: str) -> CorrectionReport | None:
    """Mark the report applied, with what was applied (the operators' list shows it)."""
    return _with_readers(
        lambda readers: readers.corrections.mark_applied(report_id, datetime.now(UTC), applied), "corrections"
    )


def _shown(text: str) -> str:
    """Readers' text as it may be printed on an operator's terminal: control characters (escape sequences
    that could rewrite the screen) are shown as \\x.. instead of being sent to it."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def _report_lines(r: CorrectionReport) -> str:
    """One report: a header line an operator can copy the id from, then the reader's message indented."""
    who = [f"contact={_shown(r.contact)}" if r.contact else "", f"user={r.user_id}" if r.user_id else ""]
    header = f"{r.id}  {r.status:<6}  {r.created_at:%Y-%m-%d %H:%M}Z  {_shown(r.paper_id)}  [{r.field}]"
    applied = [f"applied: {_shown(r.applied)}"] if r.applied else []
    return (
        " ".join([header, *filter(None, who), *applied])
        + "\n"
        + "\n".join(f"    {_shown(line)}" for line in r.message.splitlines())
    )
