"""The one limit on writes, shared by every replica: `WriteLimit(name, by=...)`, a FastAPI dependency of every
limited route (API and pages), counts the write in MongoDB (services/query/accounts/rates.py: fixed windows, one
atomic upsert each) and refuses past the `limit_<name>` setting with 429 and Retry-After. A new limited route is one
`dependencies=[Depends(WriteLimit("imports", by="user"))]` and its `limit_imports` setting (a page that must keep what
the reader typed calls it in its handler once the form is read: the 纠错 form). Failed sign-ins have
their own rule (`SignInFailures`), so that nobody can lock an account's owner out by failing to sign in to it."""

from datetime import UTC, datetime
from typing import Any, Literal

from fastapi import Request

from services.query.accounts.keys import signature
from services.query.accounts.rates import GRACE, Rate, Window, window
from services.query.http.deps import resources_of, session_user


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
        if refused := await resources.readers.write_counts.past_rate(self.name, rate, subject, now):
            raise WriteLimited(self.name, refused.retry_after(now))


def reporter(request: Request, user: dict[str, Any] | None) -> str:
    """Whose an error report is, for the cap on one reporter's open reports on a paper: the signed-in user, else the
    client's address keyed by the site secret (the address itself is not kept)."""
    if user:
        return f"user:{user['_id']}"
    return "address:" + signature(resources_of(request).site_secret, "reporter", client_address(request))[:22]


class SignInFailures:
    """Failed password sign-ins to one account, counted per account, per (account, client address) and per (account,
    browser that signed in to it before: keys.known_browser). Past `limit_login_per_account` failures in a window
    the account refuses only the clients that have themselves been failing: a browser that signed in to it before
    is refused only past that many failures of its own, whatever its address; any other client only when its address
    failed to sign in to it in that window. Its owner, signing in from a browser they used before (a campus NAT
    shared with the guesser) or from another address, is not refused by someone else's guesses, and a guesser gets
    one try per fresh address (each also under `limit_login_per_address`)."""

    name = "login_per_account"

    def _windows(self, request: Request, account: str, browser: str | None, now: datetime) -> tuple[Rate, list[Window]]:
        """The rate, and the windows of [the account, this client] (the browser if known, else the address)."""
        rate = Rate.parse(resources_of(request).settings.limit_login_per_account)
        client = f"browser:{browser}" if browser else f"address:{client_address(request)}"
        return rate, [window(self.name, rate, f"account:{account}", now),
                      window(self.name, rate, f"account:{account}:{client}", now)]  # fmt: skip

    async def check(self, request: Request, account: str, browser: str | None) -> None:
        """Before the password is checked: WriteLimited if this account is past its failures and this client is one
        that has been failing it."""
        counts, now = resources_of(request).readers.write_counts, datetime.now(UTC)
        rate, (by_account, by_client) = self._windows(request, account, browser, now)
        if await counts.write_count(by_account.key) < rate.count:
            return
        failed_here = await counts.write_count(by_client.key)
        failing = failed_here >= rate.count if browser else failed_here > 0  # a known browser may mistype
        if failing:
            raise WriteLimited(self.name, by_account.retry_after(now))

    async def failed(self, request: Request, account: str, browser: str | None) -> None:
        """Count a wrong password for this account, from this client."""
        counts = resources_of(request).readers.write_counts
        _, windows = self._windows(request, account, browser, datetime.now(UTC))
        for counted in windows:
            await counts.count_write(counted.key, counted.ends_at + GRACE)
