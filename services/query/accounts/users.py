"""Web accounts: sign-up and sign-in with an e-mail address and a password (argon2 through pwdlib), the address
confirmed and a forgotten password reset through single-use links mailed by SMTP, and operators' password setting."""

import asyncio
import logging
import smtplib
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any, Literal

from email_validator import EmailNotValidError, validate_email
from pwdlib import PasswordHash

from papertrail.runtime.mail import send_mail
from papertrail.runtime.wording import SITE_NAME, BothLanguages
from services.query.accounts.rates import Rate
from services.query.accounts.repositories import ReaderRecords
from services.query.settings import QuerySettings

log = logging.getLogger("papertrail.query.accounts")
passwords = PasswordHash.recommended()  # argon2id with pwdlib's parameters
# Checked against when no account has the address, so a sign-in takes as long whether the address exists or not.
NO_ACCOUNT_HASH = passwords.hash("no account has this address")
MAX_PASSWORD = 256
CONFIRM, RESET = "confirm", "reset"
# What became of an account mail: sent; held back, because this address was sent this kind of mail as often as
# LIMIT_MAIL_PER_ACCOUNT allows in this window (the link sent before still works; pages answer as for sent, so they
# tell nobody how often the address was asked for); not sent because no SMTP server is configured (SMTP_HOST unset);
# or tried and refused by the server. Pages never say "sent" for the last two.
MailOutcome = Literal["sent", "held", "unmailed", "failed"]


class BadAccountInput(ValueError):
    """An address or password that cannot be used; the message says why (a code the pages word: web/labels.py)."""


def normalised_email(text: str) -> str:
    """The address as accounts are keyed: trimmed, checked for form (not deliverability), case-folded whole."""
    try:
        checked = validate_email(text.strip(), check_deliverability=False)
    except EmailNotValidError as error:
        raise BadAccountInput("email_invalid") from error
    return checked.normalized.casefold()


def checked_password(password: str, min_length: int) -> str:
    if len(password) < min_length:
        raise BadAccountInput("password_too_short")
    if len(password) > MAX_PASSWORD:
        raise BadAccountInput("password_too_long")
    return password


async def hash_password(password: str) -> str:
    return await asyncio.to_thread(passwords.hash, password)  # ~0.1 s of CPU: not on the event loop


async def signed_in(readers: ReaderRecords, email: str, password: str) -> dict[str, Any] | None:
    """The account these credentials open, or None; as slow for an unknown address as for a wrong password."""
    user = await readers.users.user_by_email(email)
    stored = (user or {}).get("password_hash")
    matches = await asyncio.to_thread(passwords.verify, password, stored or NO_ACCOUNT_HASH)
    return user if matches and stored else None


def account_mail(purpose: str, link: str, hours: float) -> tuple[str, str]:
    """Subject and text of a mail (Chinese, then English) with its single-use link."""
    subject, body = BothLanguages(" / "), BothLanguages("\n")
    valid = f"{hours:g}"
    if purpose == CONFIRM:
        return f"{SITE_NAME}:" + subject.gettext("Confirm your address"), body.gettext(
            "Open this link to confirm your address (valid for %(hours)s hours, once):\n%(link)s\n",
            hours=valid,
            link=link,
        )
    if purpose == RESET:
        return f"{SITE_NAME}:" + subject.gettext("Reset your password"), body.gettext(
            "Open this link to set a new password (valid for %(hours)s hours, once):\n%(link)s\n"
            "If you did not ask for this, ignore this mail.\n",
            hours=valid,
            link=link,
        )
    return f"{SITE_NAME}:" + subject.gettext("This address has an account"), body.gettext(
        "Someone signed up to PaperTrail with this address, which already has an account. Forgot the password? "
        "Reset it here:\n%(link)s\n",
        link=link,
    )


def awaits_operator(settings: QuerySettings, user: dict[str, Any]) -> bool:
    """Whether this account may not sign in yet: no mail can confirm its address (no SMTP server) and the operators
    chose to confirm addresses themselves (EMAIL_CONFIRMATION_WITHOUT_SMTP=operator, `papertrail users confirm`)."""
    return (
        not settings.smtp_host
        and settings.email_confirmation_without_smtp == "operator"
        and bool(user.get("account_email"))
        and not user.get("email_confirmed_at")
    )


async def mail_link(
    readers: ReaderRecords, settings: QuerySettings, user: dict[str, Any], purpose: str, address: str | None = None
) -> MailOutcome:
    """Mail the account's address (or, for a token user's first reset, `address`) a new single-use link (confirm
    or reset), unless it was sent as many of these as its limit allows in this window; what became of the mail."""
    email = address or user["account_email"]
    if await held_back(readers, settings, email, purpose):
        return "held"
    expires = datetime.now(UTC) + timedelta(hours=settings.email_token_hours)
    token = await readers.email_tokens.issue_email_token(user["_id"], purpose, email, expires)
    return await _send(settings, email, purpose, f"{settings.public_url.rstrip('/')}/{purpose}?token={token}")


async def held_back(readers: ReaderRecords, settings: QuerySettings, email: str, purpose: str) -> bool:
    """Count a mail of this purpose to this address; whether it is past LIMIT_MAIL_PER_ACCOUNT and is not to be sent.
    The address is never refused: whoever asks (its owner, or anyone naming it) gets the same answer, and the address
    gets at most that many mails of each kind a window, whose links go on working until they expire."""
    rate = Rate.parse(settings.limit_mail_per_account)
    window = await readers.write_counts.past_rate("mail_per_account", rate, f"{purpose}:{email}", datetime.now(UTC))
    return window is not None


async def _send(settings: QuerySettings, address: str, purpose: str, link: str) -> MailOutcome:
    if not settings.smtp_host:
        log.warning("account mail not sent: SMTP_HOST is not set", extra={"purpose": purpose})
        return "unmailed"
    subject, text = account_mail(purpose, link, settings.email_token_hours)
    message = EmailMessage()
    message["Subject"], message["To"] = subject, address
    message.set_content(text)
    try:
        await asyncio.to_thread(send_mail, settings, message)
    except (OSError, smtplib.SMTPException) as error:
        log.warning("account mail failed", extra={"purpose": purpose, "error": f"{type(error).__name__}: {error}"})
        return "failed"
    return "sent"


async def sign_up(readers: ReaderRecords, settings: QuerySettings, email: str, password: str) -> MailOutcome:
    """Make the account and mail its confirmation link. An address that has an account gets a mail saying so (with
    the reset link) instead: the page answers alike either way, so sign-up never tells who has an account."""
    user_id = await readers.users.create_account(email, await hash_password(password))
    if user_id is not None:
        user = await readers.users.user_by_id(user_id)
        assert user is not None
        return await mail_link(readers, settings, user, CONFIRM)
    if await held_back(readers, settings, email, "taken"):
        return "held"
    return await _send(settings, email, "taken", f"{settings.public_url.rstrip('/')}/forgot")


async def request_reset(readers: ReaderRecords, settings: QuerySettings, email: str) -> MailOutcome:
    """Mail a reset link if an account has the address (or an operator's token user has it as digest address);
    nothing otherwise. The outcome tells only whether mail can be sent here at all (the page answers alike whether
    the address has an account: a refused mail is logged, not shown)."""
    if not settings.smtp_host:
        return "unmailed"
    user = await readers.users.user_by_email(email) or await readers.users.token_user_by_digest_email(email)
    if user is not None:
        await mail_link(readers, settings, user, RESET, address=email)
    return "sent"


async def confirm_email(readers: ReaderRecords, token: str) -> bool:
    """Spend a confirmation link: the account's address is confirmed (if it is still the one mailed)."""
    used = await readers.email_tokens.use_email_token(token, CONFIRM)
    if used is None:
        return False
    return await readers.users.confirm_email(used["user_id"], used["email"], datetime.now(UTC))


async def reset_password(readers: ReaderRecords, token: str, password: str) -> bool:
    """Spend a reset link: the new password is set, every session and API token of the account ends (whoever held
    one: someone who claimed the address before its owner confirmed it, say), and the address counts as confirmed
    (the link reached it)."""
    used = await readers.email_tokens.use_email_token(token, RESET)
    if used is None:
        return False
    await readers.users.set_password(used["user_id"], await hash_password(password))
    await readers.users.claim_account_email(used["user_id"], used["email"])
    await readers.sessions.drop_sessions(used["user_id"])
    await readers.tokens.revoke_tokens(used["user_id"])
    await readers.users.confirm_email(used["user_id"], used["email"], datetime.now(UTC))
    return True
