"""The one limit on writes, shared by every replica: `WriteLimit(name, by=...)`, a FastAPI dependency of every
limited route (API and pages), counts the write in MongoDB (services/query/readers/accounts/rates.py: fixed windows, one
atomic upsert each) and refuses past the `limit_<name>` setting with 429 and Retry-After. A new limited route is one
`dependencies=[Depends(WriteLimit("imports", by="user"))]` and its `limit_imports` setting (a page that must keep what
the reader typed calls it in its handler once the form is read: the 纠错 form). Failed sign-ins have
their own rule (`SignInFailures`), so that nobody can lock an account's owner out by failing to sign in to it."""

from datetime import UTC, datetime
from typing import Literal

from fastapi import Request

from services.query.deps import resources_of, session_user
from services.query.readers.accounts.rates import GRACE, Rate, Window, over, window


class WriteLimited(Exception):
    """A write past its limit: answered 429 with Retry-After (seconds until the window ends)."""

    def __init__(self, limit: str, retry_after: int) -> None:
        super().__init__(f"too many requests ({limit}): try again in {retry_after} s")
        self.limit = limit
        self.retry_after = retry_after


def client_address(request: Request) -> str:
    """The client's address: the peer's, or the X-Forwarded-For one when the peer is a TRUSTED_PROXIES proxy
    (uvicorn's proxy headers middleware has put it in place by then)."""
    return request.client.host if request.client else "unknown"


async def writer(request: Request) -> str:
    """Who a per-user limit counts: the user of the bearer token or of the session, else the client's address."""
    readers = resources_of(request).readers
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    user = await readers.tokens.user_for_token(token.strip()) if scheme.lower() == "bearer" and token.strip() else None
    user = user or await session_user(request)
    return f"user:{user['_id']}" if user else "address:" + client_address(request)


class WriteLimit:
    """A FastAPI dependency: count this write against `limit_<name>` per client address or per user."""

    def __init__(self, name: str, by: Literal["client", "user"]) -> None:
        self.name = name
        self.by = by

    async def __call__(self, request: Request) -> None:
        subject = await writer(request) if self.by == "user" else "address:" + client_address(request)
        await self.count(request, subject)

    async def count(self, request: Request, subject: str) -> None:
        """Count one write of `subject` (also for limits keyed by what a form names, such as the account signed
        in to); WriteLimited past the limit."""
        resources = resources_of(request)
        rate = Rate.parse(getattr(resources.settings, f"limit_{self.name}"))
        now = datetime.now(UTC)
        current = window(self.name, rate, subject, now)
        if over(await resources.readers.write_counts.count_write(current.key, current.ends_at + GRACE), rate):
            raise WriteLimited(self.name, current.retry_after(now))


class SignInFailures:
    """Failed password sign-ins to one account, counted per account and per (account, client address). Past
    `limit_login_per_account` failures in a window the account refuses (WriteLimited) only the addresses that have
    themselves failed to sign in to it in that window: its owner, signing in from another address, is not refused by
    someone else's guesses, and a guesser gets one try per fresh address (each also under `limit_login_per_address`)."""

    name = "login_per_account"

    def _windows(self, request: Request, account: str, now: datetime) -> tuple[Rate, Window, Window]:
        rate = Rate.parse(resources_of(request).settings.limit_login_per_account)
        by_account = window(self.name, rate, f"account:{account}", now)
        from_here = window(self.name, rate, f"account:{account}:address:{client_address(request)}", now)
        return rate, by_account, from_here

    async def check(self, request: Request, account: str) -> None:
        """Before the password is checked: WriteLimited if this account is past its failures and this address is
        one that failed it."""
        readers, now = resources_of(request).readers, datetime.now(UTC)
        rate, by_account, from_here = self._windows(request, account, now)
        if (
            await readers.write_counts.write_count(from_here.key)
            and await readers.write_counts.write_count(by_account.key) >= rate.count
        ):
            raise WriteLimited(self.name, by_account.retry_after(now))

    async def failed(self, request: Request, account: str) -> None:
        """Count a wrong password for this account, from this address."""
        readers = resources_of(request).readers
        _, by_account, from_here = self._windows(request, account, datetime.now(UTC))
        await readers.write_counts.count_write(by_account.key, by_account.ends_at + GRACE)
        await readers.write_counts.count_write(from_here.key, from_here.ends_at + GRACE)
