"""Daily digests: each user's matches of a finished day built into a digest, stored in `digests`, and mailed by SMTP
when it is set up; one replica mails each digest, once."""

import asyncio
import logging
import smtplib
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any
from zoneinfo import ZoneInfo

from papertrail.runtime.mail import send_mail
from schemas.events import Follow
from services.matcher.delivery.digest import (
    URGENT_DAYS,
    build_digest,
    day_bounds,
    deadline_reminders,
    digest_text,
    render_html,
)
from services.matcher.metrics import DIGESTS
from services.matcher.settings import MatcherSettings
from services.matcher.store import MatchStore

log = logging.getLogger("papertrail.matcher.delivery")
# How long one replica holds the right to mail a digest; a replica that dies mid-send frees it this late.
MAIL_LEASE = timedelta(minutes=10)


class DigestMaker:
    """Build each user's digest of a finished day, store it in `digests`, and mail it when SMTP is set up."""

    def __init__(self, store: MatchStore, settings: MatcherSettings) -> None:
        self.store = store
        self.settings = settings
        self.zone = ZoneInfo(settings.digest_timezone)

    async def run_once(self, now: datetime | None = None, days_back: int = 2) -> list[str]:
        """Digest the last `days_back` finished days (idempotent); return the ids of digests stored or mailed."""
        now = now or datetime.now(UTC)
        today = now.astimezone(self.zone).date()
        done: list[str] = []
        venues = await self.store.venue_catalogue.current()
        venue_follows: dict[str, list[Follow]] = {}
        for follow in await self.store.all_follows(kind="venue"):
            venue_follows.setdefault(follow.user_id, []).append(follow)
        for back in range(days_back, 0, -1):
            day = today - timedelta(days=back)
            start, end = day_bounds(day, self.zone)
            by_user: dict[str, list[dict[str, Any]]] = {}
            for match in await self.store.matches_between(start, end):
                by_user.setdefault(match["user_id"], []).append(match)
            reminders = {
                user_id: deadline_reminders(follows, venues, end, self.zone)
                for user_id, follows in venue_follows.items()
            }
            # a reader with no paper that day still hears of a followed deadline in its last days
            for user_id, due in reminders.items():
                if any(d["days_left"] < URGENT_DAYS for d in due):
                    by_user.setdefault(user_id, [])
            for user_id, matches in by_user.items():
                if await self.store.digest(user_id, day.isoformat()) is None:
                    picks = (await self.store.picks_of(user_id))[: self.settings.digest_picks]
                    content = build_digest(
                        user_id, day, matches, self.settings.public_url, picks, reminders.get(user_id)
                    )
                    await self.store.save_digest(user_id, day.isoformat(), content, render_html(content), now)
                    DIGESTS.labels("stored").inc()
                    done.append(f"{user_id}:{day.isoformat()}")
        if self.settings.smtp_host:
            since = (today - timedelta(days=days_back)).isoformat()
            for digest in await self.store.unsent_digests(since):
                if await self._mail(digest, now):
                    done.append(digest["_id"])
        return done

    async def _mail(self, digest: dict[str, Any], now: datetime) -> bool:
        user = await self.store.user(digest["user_id"])
        address = (user or {}).get("email")
        if not address:
            return False
        if not await self.store.claim_digest_mail(digest["_id"], now, MAIL_LEASE):
            return False  # another replica is mailing it, or has
        sent = await self._send_digest(digest, address, now)
        if not sent:
            await self.store.release_digest_mail(digest["_id"])  # the next run tries again
        return sent

    async def _send_digest(self, digest: dict[str, Any], address: str, now: datetime) -> bool:
        message = EmailMessage()
        message["Subject"] = digest["digest"]["subject"]
        message["To"] = address
        message.set_content(digest_text(digest["digest"]))
        message.add_alternative(digest["html"], subtype="html")
        try:
            await asyncio.to_thread(send_mail, self.settings, message)
        except (OSError, smtplib.SMTPException) as error:
            DIGESTS.labels("mail_failed").inc()
            log.warning(
                "digest mail failed", extra={"digest": digest["_id"], "error": f"{type(error).__name__}: {error}"}
            )
            return False
        await self.store.digest_sent(digest["user_id"], digest["day"], address, now)
        DIGESTS.labels("mailed").inc()
        return True


async def run_digests(maker: DigestMaker, interval_s: float) -> None:
    """The background loop the matcher starts: digest the finished days, then wait `interval_s`."""
    while True:
        try:
            await maker.run_once()
        except Exception:
            log.exception("digest run failed; trying again at the next interval")
        await asyncio.sleep(interval_s)
