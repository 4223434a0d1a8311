"""Account pages: sign up (unless SIGNUP=closed), confirm the address, forgot / reset the password by a mailed link,
and /me/account (address state, change password, API tokens created and revoked, sign out everywhere).

An API token outlives no secret of its account: a password change, a reset and signing out everywhere revoke them
all, and making one asks for the current password of a confirmed account (LIMIT_TOKEN_CREATES a window); every
page that checks the current password counts against LIMIT_PASSWORD_CHECKS, so a session cannot guess it."""

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response

from services.query.accounts import users
from services.query.accounts.repositories import ReaderRecords
from services.query.accounts.users import BadAccountInput, checked_password, normalised_email
from services.query.http.deps import SESSION_COOKIE, ReadersDep, SettingsDep
from services.query.http.write_limits import WriteLimit
from services.query.settings import QuerySettings
from services.query.web import labels
from services.query.web.account import form_fields
from services.query.web.render import (
    Reader,
    Words,
    check_csrf,
    end_session,
    render,
    see_other,
    signed_in_user,
    words_of,
)

router = APIRouter(include_in_schema=False)
CSRF = Depends(check_csrf)
# per requesting client; per address, mails are held back rather than refused (users.held_back)
MAILS = [CSRF, Depends(WriteLimit("mail_per_address", by="client"))]
PASSWORD_CHECKS = [CSRF, Depends(WriteLimit("password_checks", by="user"))]
TOKEN_CREATES = WriteLimit("token_creates", by="user")


@router.get("/signup", response_class=HTMLResponse)
async def show_signup(request: Request, settings: SettingsDep) -> HTMLResponse:
    open_ = settings.signup == "open"
    return render(request, "signup.html", 200 if open_ else 403, user=await signed_in_user(request), form={})


@router.post(
    "/signup", response_class=HTMLResponse, dependencies=[CSRF, Depends(WriteLimit("signup_per_address", by="client"))]
)
async def sign_up(t: Words, request: Request, readers: ReadersDep, settings: SettingsDep) -> HTMLResponse:
    """Make the account and mail its confirmation link; the answer is the same for an address that has an account."""
    if settings.signup != "open":
        return render(request, "signup.html", 403, form={})
    form = await form_fields(request)
    try:
        email = normalised_email(form.get("email", ""))
        password = checked_password(form.get("password", ""), settings.password_min_length)
    except BadAccountInput as error:
        message = labels.account_input(t, str(error), min=settings.password_min_length)
        return render(request, "signup.html", 422, error=message, form={"email": form.get("email", "")})
    outcome = await users.sign_up(readers, settings, email, password)
    message = labels.signup_notice(t, signup_notice(outcome, settings), email=email)
    return render(request, "notice.html", title=t.gettext("Sign up"), message=message)


def signup_notice(outcome: users.MailOutcome, settings: QuerySettings) -> str:
    """The code of what sign-up tells the reader (worded by labels.signup_notice): the mail sent, refused, or not
    sent for want of a mail server (and then whether they can sign in now or wait for the operators)."""
    if outcome == "unmailed":
        return f"unmailed_{settings.email_confirmation_without_smtp}"
    return "sent" if outcome in ("sent", "held") else "failed"


@router.get("/confirm", response_class=HTMLResponse)
async def show_confirm(request: Request, token: str = "") -> HTMLResponse:
    """The link in the mail opens a page with one button: a GET changes nothing (mail scanners open links)."""
    return render(request, "confirm.html", user=await signed_in_user(request), token=token)


@router.post("/confirm", response_class=HTMLResponse, dependencies=[CSRF])
async def confirm(t: Words, request: Request, readers: ReadersDep) -> HTMLResponse:
    done = await users.confirm_email(readers, (await form_fields(request)).get("token", ""))
    message = t.gettext("Your address is confirmed.") if done else t.gettext("The link is invalid, used or expired.")
    return render(
        request, "notice.html", 200 if done else 400, title=t.gettext("Confirm your address"), message=message
    )


@router.get("/forgot", response_class=HTMLResponse)
async def show_forgot(request: Request) -> HTMLResponse:
    return render(request, "forgot.html", user=await signed_in_user(request))


@router.post("/forgot", response_class=HTMLResponse, dependencies=MAILS)
async def forgot(t: Words, request: Request, readers: ReadersDep, settings: SettingsDep) -> HTMLResponse:
    """Mail a reset link if an account has the address; the answer is the same either way."""
    raw = (await form_fields(request)).get("email", "")
    try:
        email = normalised_email(raw)
    except BadAccountInput as error:
        return render(request, "forgot.html", 422, error=labels.account_input(t, str(error)), email=raw)
    if await users.request_reset(readers, settings, email) == "unmailed":
        return render(
            request,
            "notice.html",
            title=t.gettext("Forgot password"),
            message=t.gettext(
                "No mail server (SMTP) is configured here, so no reset mail can be sent. Ask this site's "
                "operators to set a new password for you (papertrail users password %(email)s).",
                email=email,
            ),
        )
    return render(
        request,
        "notice.html",
        title=t.gettext("Forgot password"),
        message=t.gettext("If %(email)s has an account, a mail with a reset link is on its way.", email=email),
    )


@router.get("/reset", response_class=HTMLResponse)
async def show_reset(request: Request, token: str = "") -> HTMLResponse:
    return render(request, "reset.html", token=token)


@router.post("/reset", response_class=HTMLResponse, dependencies=[CSRF])
async def reset(t: Words, request: Request, readers: ReadersDep, settings: SettingsDep) -> Response:
    """Set the new password (the link is spent only when the password is accepted); every session ends."""
    form = await form_fields(request)
    try:
        password = checked_password(form.get("password", ""), settings.password_min_length)
    except BadAccountInput as error:
        message = labels.account_input(t, str(error), min=settings.password_min_length)
        return render(request, "reset.html", 422, error=message, token=form.get("token", ""))
    if not await users.reset_password(readers, form.get("token", ""), password):
        return render(
            request,
            "notice.html",
            400,
            title=t.gettext("Reset password"),
            message=t.gettext("The link is invalid, used or expired."),
        )
    return see_other("/login?reset=1")


async def _account_page(
    request: Request, user: dict[str, Any], readers: ReaderRecords, status_code: int = 200, **context: Any
) -> Response:
    tokens = await readers.tokens.list_tokens(user["_id"])
    sessions = await readers.sessions.count_sessions(user["_id"])
    full = await readers.users.user_by_id(user["_id"]) or user
    return render(request, "account.html", status_code, user=user, account=full, tokens=tokens, sessions=sessions,
                  **context)  # fmt: skip


@router.get("/me/account", response_class=HTMLResponse)
async def show_account(request: Request, user: Reader, readers: ReadersDep) -> Response:
    return await _account_page(request, user, readers, done=request.query_params.get("done"))


async def current_password_given(readers: ReaderRecords, user: dict[str, Any], form: dict[str, str]) -> bool:
    """Whether the form's `current` field is the account's password (an operator's token user has none)."""
    full = await readers.users.user_by_id(user["_id"]) or {}
    return (
        bool(full.get("account_email"))
        and await users.signed_in(readers, full["account_email"], form.get("current", "")) is not None
    )


@router.post("/me/account/password", response_class=HTMLResponse, dependencies=PASSWORD_CHECKS)
async def change_password(
    t: Words, request: Request, user: Reader, readers: ReadersDep, settings: SettingsDep
) -> Response:
    """A new password, given the current one (an operator's token user without one sets it through a reset); the
    account's other sessions and every API token end."""
    form = await form_fields(request)
    if not await current_password_given(readers, user, form):
        return await _account_page(request, user, readers, 403, error=t.gettext("The current password is wrong."))
    try:
        password = checked_password(form.get("password", ""), settings.password_min_length)
    except BadAccountInput as error:
        return await _account_page(
            request, user, readers, 422, error=labels.account_input(t, str(error), min=settings.password_min_length)
        )
    await readers.users.set_password(user["_id"], await users.hash_password(password))
    # whoever knew the old one: their sessions and tokens end
    await readers.sessions.drop_sessions(user["_id"], keep=request.cookies.get(SESSION_COOKIE))
    await readers.tokens.revoke_tokens(user["_id"])
    return see_other("/me/account?done=password")


@router.post("/me/account/confirm", response_class=HTMLResponse, dependencies=MAILS)
async def resend_confirmation(request: Request, user: Reader, readers: ReadersDep, settings: SettingsDep) -> Response:
    full = await readers.users.user_by_id(user["_id"]) or {}
    outcome: users.MailOutcome = "sent"
    if full.get("account_email") and not full.get("email_confirmed_at"):
        outcome = await users.mail_link(readers, settings, full, users.CONFIRM)
    done = {"sent": "mailed", "held": "mailed", "unmailed": "unmailed", "failed": "mail_failed"}[outcome]
    return see_other("/me/account?done=" + done)


@router.post("/me/account/tokens", response_class=HTMLResponse, dependencies=PASSWORD_CHECKS)
async def create_token(t: Words, request: Request, user: Reader, readers: ReadersDep) -> Response:
    """A new API token, shown once on the page that answers (only its hash is kept): for a confirmed account that
    gives its current password, so neither a borrowed session nor someone who signed up with another's address
    can make a token that outlives them."""
    form = await form_fields(request)
    if not await current_password_given(readers, user, form):
        return await _account_page(request, user, readers, 403, error=t.gettext("The current password is wrong."))
    full = await readers.users.user_by_id(user["_id"]) or {}
    if not full.get("email_confirmed_at"):
        return await _account_page(
            request, user, readers, 403, error=t.gettext("Confirm your address before creating an API token.")
        )
    await TOKEN_CREATES.count(request, f"user:{user['_id']}")
    name = form.get("name", "").strip()[:100] or datetime.now(UTC).strftime("%Y-%m-%d")
    token = await readers.tokens.create_token(user["_id"], name)
    return await _account_page(request, user, readers, 201, new_token=token)


@router.post("/me/account/tokens/{token_id}/revoke", dependencies=[CSRF])
async def revoke_token(token_id: str, request: Request, user: Reader, readers: ReadersDep) -> Response:
    if not await readers.tokens.revoke_token(user["_id"], token_id):  # another user's token id reads as missing
        t = words_of(request)
        return await _account_page(request, user, readers, 404, error=t.gettext("No such token."))
    return see_other("/me/account?done=revoked")


@router.post("/me/account/sign-out-everywhere", dependencies=[CSRF])
async def sign_out_everywhere(request: Request, user: Reader, readers: ReadersDep) -> Response:
    """End every session of the account, this one included, and revoke its API tokens."""
    await readers.sessions.drop_sessions(user["_id"])
    await readers.tokens.revoke_tokens(user["_id"])
    response = see_other("/login")
    end_session(request, response)
    return response
