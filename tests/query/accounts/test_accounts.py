"""Web accounts over a real query service, MongoDB and a local SMTP server: sign up → the confirmation mail → confirm
→ sign in (cookie flags) → CSRF refusals → sign out everywhere → reset by mail → API tokens → SIGNUP=closed → the
sign-in limit; one user never sees another's tokens or sessions."""

import asyncio
import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import Message
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiokafka import AIOKafkaConsumer
from lxml import html
from pymongo import MongoClient

from schemas import topics
from tests.support.accounts import PASSWORD, csrf_of, link_token, post_form
from tests.support.browsing import ARTIFACTS, CHROMIUM, launch_chromium
from tests.support.mail import Inbox, smtp_server
from tests.support.servers import Servers
from tests.support.services import papertrail_cli, running_service
from tests.support.spawning import ZYGOTE
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


@dataclass
class Site:
    env: dict[str, str]
    base: str
    closed: str  # a second query service with SIGNUP=closed and https, on the same database
    inbox: Inbox
    unmailed: str  # a third with no SMTP server and EMAIL_CONFIRMATION_WITHOUT_SMTP=operator, on the same database


@pytest.fixture(scope="module")
def site(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    logs = tmp_path_factory.mktemp("accounts")
    for folder in ("open", "closed", "unmailed"):
        (logs / folder).mkdir()
    with ExitStack() as stack:
        inbox, smtp_port = stack.enter_context(smtp_server())
        env = servers.environment() | {
            "TOPIC_PARTITIONS": "3",
            "SMTP_HOST": "127.0.0.1",
            "SMTP_PORT": str(smtp_port),
            "PUBLIC_URL": "http://papertrail.test",
            "TRUSTED_PROXIES": "127.0.0.1",  # the tests sign in "from" other addresses by X-Forwarded-For
            "LIMIT_LOGIN_PER_ACCOUNT": "10/1d",
            "LIMIT_LOGIN_PER_ADDRESS": "1000/1d",
            "LIMIT_SIGNUP_PER_ADDRESS": "1000/1d",
            "LIMIT_MAIL_PER_ADDRESS": "1000/1d",
        }
        port = stack.enter_context(running_service("query", env, logs / "open"))
        # closed sign-up, served over https (as PUBLIC_URL says)
        closing = {"SIGNUP": "closed", "PUBLIC_URL": "https://papertrail.test"}
        closed = stack.enter_context(running_service("query", env | closing, logs / "closed"))
        no_smtp = {name: value for name, value in env.items() if not name.startswith("SMTP_")}
        no_smtp["EMAIL_CONFIRMATION_WITHOUT_SMTP"] = "operator"
        unmailed = stack.enter_context(running_service("query", no_smtp, logs / "unmailed"))
        yield Site(env, f"http://127.0.0.1:{port}", f"http://127.0.0.1:{closed}", inbox, f"http://127.0.0.1:{unmailed}")


def browser(base: str, address: str | None = None) -> httpx.Client:
    """A browser, from another client address if given (the service trusts this host's X-Forwarded-For)."""
    return httpx.Client(base_url=base, timeout=10, headers={"X-Forwarded-For": address} if address else None)


def mail_to(site: Site, address: str, count: int = 1) -> Message:
    """The `count`-th mail to this address (waiting for it)."""

    def arrived() -> Message | None:
        to_it = [m for m in site.inbox.messages if m["To"] == address]
        return to_it[count - 1] if len(to_it) >= count else None

    return wait_until(arrived, timeout=15, what=f"mail {count} to {address}")


def sign_up(site: Site, email: str, password: str = PASSWORD) -> httpx.Client:
    client = browser(site.base)
    answer = post_form(client, "/signup", "/signup", email=email, password=password)
    assert answer.status_code == 200 and "确认邮件已发送" in answer.text
    return client


def confirm(site: Site, email: str) -> None:
    """Confirm the address by the link of its (first) confirmation mail."""
    token = link_token(mail_to(site, email), "confirm")
    assert post_form(browser(site.base), f"/confirm?token={token}", "/confirm", token=token).status_code == 200


def sign_in(site: Site, email: str, password: str = PASSWORD) -> httpx.Client:
    client = browser(site.base)
    answer = post_form(client, "/login", "/login", email=email, password=password, next="/me/account")
    assert answer.status_code == 303 and answer.headers["location"] == "/me/account", answer.text
    return client


def test_sign_up_confirm_and_sign_in_with_a_lax_httponly_session_cookie(site: Site) -> None:
    sign_up(site, "  Ana.Li@Example.ORG ")
    mail = mail_to(site, "ana.li@example.org")
    assert "确认邮箱" in mail["Subject"] and "Confirm your address" in mail["Subject"]
    token = link_token(mail, "confirm")
    client = browser(site.base)
    assert client.get(f"/confirm?token={token}").status_code == 200  # a GET (a mail scanner) confirms nothing
    confirmed = post_form(client, f"/confirm?token={token}", "/confirm", token=token)
    assert confirmed.status_code == 200 and "邮箱已确认" in confirmed.text
    assert post_form(client, "/confirm", "/confirm", token=token).status_code == 400  # single use

    ana = sign_in(site, "ANA.LI@example.org")
    cookie = next(c for c in ana.cookies.jar if c.name == "pt_session")
    assert cookie.has_nonstandard_attr("HttpOnly") and cookie.get_nonstandard_attr("SameSite") == "lax"
    assert not cookie.secure  # PUBLIC_URL is http://
    account = html.fromstring(ana.get("/me/account").text)
    assert "ana.li@example.org" in account.get_element_by_id("account-email").text_content()
    assert "已确认" in account.get_element_by_id("account-email").text_content()

    wrong = post_form(browser(site.base), "/login", "/login", email="ana.li@example.org", password="wrong password")
    unknown = post_form(browser(site.base), "/login", "/login", email="nobody@example.org", password=PASSWORD)
    assert wrong.status_code == unknown.status_code == 401
    banner = [html.fromstring(r.text).find_class("banner-error")[0].text_content() for r in (wrong, unknown)]
    assert banner[0] == banner[1] == "邮箱或密码不正确。"  # never says whether the address has an account


def test_an_address_that_has_an_account_gets_a_mail_not_a_second_account(site: Site) -> None:
    sign_up(site, "dup@example.org")
    sign_up(site, "DUP@example.org")  # the page answers alike
    second = mail_to(site, "dup@example.org", count=2)
    body = second.get_payload(decode=True)
    assert "已有账号" in second["Subject"] and isinstance(body, bytes)
    assert "http://papertrail.test/forgot" in body.decode()


def test_every_form_post_without_this_browsers_csrf_token_is_refused(site: Site) -> None:
    sign_up(site, "bo@example.org")
    bo = sign_in(site, "bo@example.org")
    for action, fields in [
        ("/login", {"email": "bo@example.org", "password": PASSWORD}),
        ("/signup", {"email": "eve@example.org", "password": PASSWORD}),
        ("/me/follows", {"kind": "keyword", "query": "graphs"}),
        ("/me/account/tokens", {"name": "x"}),
        ("/me/account/sign-out-everywhere", {}),
        ("/logout", {}),
    ]:
        assert bo.post(action, data=fields).status_code == 403, action  # no token
        assert bo.post(action, data={**fields, "csrf": "forged"}).status_code == 403, action
    assert bo.get("/me/account").status_code == 200  # still signed in: nothing was done


def test_a_planted_csrf_cookie_and_field_or_another_sessions_token_is_refused(site: Site) -> None:
    """The token is bound to the session (or, signed out, to the pre-session): a pair that was not issued for this
    browser's session does not pass, whatever the cookie holds."""
    sign_up(site, "mu@example.org")
    confirm(site, "mu@example.org")
    mu, eve = sign_in(site, "mu@example.org"), browser(site.base)
    planted = "planted-by-a-sibling-subdomain"
    for client, action in ((mu, "/me/account/tokens"), (eve, "/login")):  # signed in, and signed out
        client.cookies.delete("pt_csrf")
        client.cookies.set("pt_csrf", planted)
        answer = client.post(
            action, data={"csrf": planted, "name": "x", "email": "mu@example.org", "password": PASSWORD}
        )
        assert answer.status_code == 403, action
    others = csrf_of(sign_in(site, "mu@example.org"), "/me/account")  # issued for another session of the same user
    assert mu.post("/me/account/tokens", data={"csrf": others, "name": "x", "current": PASSWORD}).status_code == 403
    own = post_form(mu, "/me/account", "/me/account/tokens", name="mine", current=PASSWORD)
    assert own.status_code == 201  # its own still works
    assert post_form(eve, "/login", "/login", email="mu@example.org", password=PASSWORD).status_code == 303


def test_sign_out_everywhere_ends_the_other_sessions(site: Site) -> None:
    sign_up(site, "cy@example.org")
    laptop, phone = sign_in(site, "cy@example.org"), sign_in(site, "cy@example.org")
    assert "2 个登录会话" in laptop.get("/me/account").text
    assert post_form(laptop, "/me/account", "/me/account/sign-out-everywhere").status_code == 303
    assert phone.get("/me/account").status_code == 401 and laptop.get("/me/account").status_code == 401


def test_a_password_change_ends_the_other_sessions_and_keeps_this_one(site: Site) -> None:
    sign_up(site, "nu@example.org")
    laptop, phone = sign_in(site, "nu@example.org"), sign_in(site, "nu@example.org")
    wrong = post_form(laptop, "/me/account", "/me/account/password", current="not it", password="a newer password")
    assert wrong.status_code == 403 and phone.get("/me/account").status_code == 200
    changed = post_form(laptop, "/me/account", "/me/account/password", current=PASSWORD, password="a newer password")
    assert changed.status_code == 303 and "密码已修改" in laptop.get(changed.headers["location"]).text
    assert phone.get("/me/account").status_code == 401
    sign_in(site, "nu@example.org", "a newer password")


def test_a_forgotten_password_is_reset_by_a_single_use_mailed_link(site: Site) -> None:
    sign_up(site, "di@example.org")
    old_session = sign_in(site, "di@example.org")
    asked = post_form(browser(site.base), "/forgot", "/forgot", email="Di@Example.org")
    nobody = post_form(browser(site.base), "/forgot", "/forgot", email="nobody@example.org")
    assert asked.status_code == nobody.status_code == 200  # alike for an address without an account
    token = link_token(mail_to(site, "di@example.org", count=2), "reset")
    client = browser(site.base)
    short = post_form(client, f"/reset?token={token}", "/reset", token=token, password="short")
    assert short.status_code == 422  # the link is not spent by a refused password
    done = post_form(client, f"/reset?token={token}", "/reset", token=token, password="a new long password")
    assert done.status_code == 303 and done.headers["location"] == "/login?reset=1"
    assert post_form(client, "/reset", "/reset", token=token, password="another password").status_code == 400
    assert old_session.get("/me/account").status_code == 401  # every session ended
    sign_in(site, "di@example.org", "a new long password")
    again = post_form(browser(site.base), "/login", "/login", email="di@example.org", password=PASSWORD)
    assert again.status_code == 401


def test_api_tokens_are_made_shown_once_listed_and_revoked_by_their_owner_only(site: Site) -> None:
    for email in ("el@example.org", "fu@example.org"):
        sign_up(site, email)
        confirm(site, email)
    el, fu = sign_in(site, "el@example.org"), sign_in(site, "fu@example.org")
    made = post_form(el, "/me/account", "/me/account/tokens", name="laptop script", current=PASSWORD)
    assert made.status_code == 201
    token = html.fromstring(made.text).get_element_by_id("new-token").text_content()
    me = httpx.get(f"{site.base}/api/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert me.status_code == 200 and me.json()["name"] == "el@example.org"
    rows = html.fromstring(el.get("/me/account").text).find_class("token")
    assert len(rows) == 1 and "laptop script" in rows[0].text_content() and token not in el.get("/me/account").text
    assert "从未" not in rows[0].text_content()  # its last use is listed
    token_id = rows[0].get("data-token-id")
    assert "laptop script" not in fu.get("/me/account").text  # fu never sees el's tokens
    assert post_form(fu, "/me/account", f"/me/account/tokens/{token_id}/revoke").status_code == 404
    assert post_form(el, "/me/account", f"/me/account/tokens/{token_id}/revoke").status_code == 303
    revoked = httpx.get(f"{site.base}/api/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert revoked.status_code == 401


def post_form_as_if_https(base: str, page: str, action: str, **fields: str) -> httpx.Response:
    """post_form to the service that believes it is served over https: its cookies are Secure, so this client (over
    plain http here) sends the CSRF cookie back itself, as a browser would over https."""
    shown = httpx.get(f"{base}{page}", timeout=10)
    csrf = str(html.fromstring(shown.text).xpath('//input[@name="csrf"]/@value')[0])
    cookie = next(c for c in shown.headers.get_list("set-cookie") if c.startswith("pt_csrf="))
    assert "; secure" in cookie.lower()
    pre_session = cookie.split(";")[0].removeprefix("pt_csrf=")
    return httpx.post(f"{base}{action}", data={"csrf": csrf, **fields}, cookies={"pt_csrf": pre_session}, timeout=10)


def test_signup_closed_refuses_new_accounts_and_operators_still_make_users(site: Site) -> None:
    assert httpx.get(f"{site.closed}/signup", timeout=10).status_code == 403
    refused = post_form_as_if_https(site.closed, "/login", "/signup", email="gu@example.org", password=PASSWORD)
    assert refused.status_code == 403 and "不开放注册" in refused.text
    token = papertrail_cli(site.env, "users", "create", "operator-made").stdout.strip().splitlines()[-1]
    assert httpx.get(f"{site.closed}/api/me", headers={"Authorization": f"Bearer {token}"}, timeout=10).is_success
    via_token = post_form_as_if_https(site.closed, "/login", "/login", token=token, next="/me/account")
    assert via_token.status_code == 303
    session = next(c for c in via_token.headers.get_list("set-cookie") if c.startswith("pt_session="))
    assert "; secure" in session.lower() and "; httponly" in session.lower()  # PUBLIC_URL is https://


def test_a_mailed_link_expires(site: Site) -> None:
    sign_up(site, "ob@example.org")
    asked = post_form_as_if_https(site.closed, "/forgot", "/forgot", email="ob@example.org")
    assert asked.status_code == 200
    token = link_token(mail_to(site, "ob@example.org", count=2), "reset")
    with MongoClient[dict[str, Any]](
        site.env["MONGODB_URL"], tz_aware=True
    ) as mongo:  # the link's time has come: no waiting for it
        db = mongo[site.env["MONGODB_DATABASE"]]
        user = db.users.find_one({"account_email": "ob@example.org"})
        assert user is not None
        past = datetime.now(UTC) - timedelta(minutes=1)
        expired = db.email_tokens.update_many(
            {"user_id": user["_id"], "purpose": "reset"}, {"$set": {"expires_at": past}}
        )
        assert expired.modified_count == 1
    late = post_form(browser(site.base), "/reset", "/reset", token=token, password="a new long password")
    assert late.status_code == 400 and "已过期" in late.text


def test_the_11th_sign_in_to_one_account_in_a_window_gets_429(site: Site) -> None:
    sign_up(site, "ha@example.org")
    attempts = [
        post_form(browser(site.base), "/login", "/login", email="ha@example.org", password=f"guess {n}")
        for n in range(11)
    ]
    assert [a.status_code for a in attempts[:10]] == [401] * 10
    assert attempts[10].status_code == 429 and 0 < int(attempts[10].headers["Retry-After"]) <= 86_400
    sign_in(site, "el@example.org")  # another account from the same address is unaffected


def test_others_failed_sign_ins_never_refuse_the_owner_from_another_address(site: Site) -> None:
    sign_up(site, "ka@example.org")
    attacker = browser(site.base, "203.0.113.7")
    guesses = [
        post_form(attacker, "/login", "/login", email="ka@example.org", password=f"guess {n}") for n in range(11)
    ]
    assert [g.status_code for g in guesses] == [401] * 10 + [429]
    owner = browser(site.base, "198.51.100.9")
    signed = post_form(owner, "/login", "/login", email="ka@example.org", password=PASSWORD, next="/me/account")
    assert signed.status_code == 303 and owner.get("/me/account").status_code == 200
    again = post_form(attacker, "/login", "/login", email="ka@example.org", password=PASSWORD)
    assert again.status_code == 429  # the address that failed stays refused, even with the right password
    fresh = browser(site.base, "192.0.2.44")  # a new address past the account's failures: one try, then refused
    tries = [post_form(fresh, "/login", "/login", email="ka@example.org", password="guess") for _ in range(2)]
    assert [t.status_code for t in tries] == [401, 429]


def test_users_delete_removes_the_user_and_everything_of_theirs(site: Site) -> None:
    sign_up(site, "io@example.org")
    confirm(site, "io@example.org")
    io = sign_in(site, "io@example.org")
    token = html.fromstring(post_form(io, "/me/account", "/me/account/tokens", name="t", current=PASSWORD).text)
    api_token = token.get_element_by_id("new-token").text_content()
    auth = {"Authorization": f"Bearer {api_token}"}
    follow = {"kind": "keyword", "name": "g", "query": "graphs"}
    followed = httpx.post(f"{site.base}/api/follows", json=follow, headers=auth, timeout=10)
    assert followed.status_code == 201
    sign_up(site, "jo@example.org")
    jo = sign_in(site, "jo@example.org")
    out = papertrail_cli(site.env, "users", "delete", "io@example.org").stdout
    assert "deleted" in out and "1 follows" in out and "1 api_tokens" in out and "1 users" in out
    assert httpx.get(f"{site.base}/api/me", headers=auth, timeout=10).status_code == 401
    assert io.get("/me/account").status_code == 401  # the session went with the user
    assert jo.get("/me/account").status_code == 200  # another user keeps theirs
    announced = wait_until(
        lambda: follow_changes(site.env, followed.json()["id"]),
        timeout=30,
        what="the unfollow announced",
    )
    assert announced[-1]["action"] == "deleted"  # the matcher stops matching it, as after an unfollow
    again = papertrail_cli(site.env, "users", "delete", "io@example.org", check=False)
    assert again.returncode == 1 and "no user" in again.stdout


def test_an_operators_token_user_gets_a_password_by_a_reset_to_their_digest_address(site: Site) -> None:
    token = papertrail_cli(site.env, "users", "create", "kim").stdout.strip().splitlines()[-1]
    auth = {"Authorization": f"Bearer {token}"}
    assert httpx.put(f"{site.base}/api/me/email", json={"email": "Kim@Example.org"}, headers=auth).status_code == 204
    assert post_form(browser(site.base), "/forgot", "/forgot", email="kim@example.org").status_code == 200
    reset = link_token(mail_to(site, "kim@example.org"), "reset")
    client = browser(site.base)
    done = post_form(client, f"/reset?token={reset}", "/reset", token=reset, password="kims new password")
    assert done.status_code == 303
    kim = sign_in(site, "kim@example.org", "kims new password")
    assert (
        "kim@example.org"
        in html.fromstring(kim.get("/me/account").text).get_element_by_id("account-email").text_content()
    )


def test_operators_set_a_password_from_the_command_line(site: Site) -> None:
    papertrail_cli(site.env, "users", "create", "lu")
    short = subprocess_input(site, ["users", "password", "lu", "--email", "lu@example.org"], "short\n")
    assert short.returncode == 2 and "a password needs" in short.stdout
    set_ = subprocess_input(site, ["users", "password", "lu", "--email", "Lu@Example.org"], "lu's long password\n")
    assert set_.returncode == 0, set_.stdout + set_.stderr
    sign_in(site, "lu@example.org", "lu's long password")


def notice_of(answer: httpx.Response) -> str:
    return html.fromstring(answer.text).get_element_by_id("notice").text_content()


def test_without_smtp_no_page_says_mail_was_sent_and_the_operators_confirm_addresses(site: Site) -> None:
    signup_page = html.fromstring(browser(site.unmailed).get("/signup").text)
    assert "不会发送任何邮件" in signup_page.get_element_by_id("mail-unconfigured").text_content()  # said beforehand
    signed = post_form(browser(site.unmailed), "/signup", "/signup", email="Quo@Example.org", password=PASSWORD)
    notice = notice_of(signed)
    assert signed.status_code == 200 and "已发送" not in notice and "没有发送确认邮件" in notice
    assert "papertrail users confirm quo@example.org" in notice  # the operators' way, named
    english = browser(site.unmailed)
    taken = post_form(english, "/signup?lang=en", "/signup", email="quo@example.org", password=PASSWORD)
    assert "no confirmation mail was sent" in notice_of(taken) and "on its way" not in notice_of(taken)

    # EMAIL_CONFIRMATION_WITHOUT_SMTP=operator: the right password is told the address awaits the operators
    waiting = post_form(browser(site.unmailed), "/login", "/login", email="quo@example.org", password=PASSWORD)
    banner = html.fromstring(waiting.text).find_class("banner-error")[0].text_content()
    assert waiting.status_code == 403 and "papertrail users confirm quo@example.org" in banner, banner
    wrong = post_form(browser(site.unmailed), "/login", "/login", email="quo@example.org", password="wrong password")
    assert wrong.status_code == 401  # a wrong one learns nothing more
    assert not [m for m in site.inbox.messages if m["To"] == "quo@example.org"]

    confirmed = papertrail_cli(site.env, "users", "confirm", "quo@example.org")
    assert "quo@example.org" in confirmed.stdout and "confirmed" in confirmed.stdout
    quo = browser(site.unmailed)
    assert post_form(quo, "/login", "/login", email="quo@example.org", password=PASSWORD).status_code == 303
    assert "已确认" in html.fromstring(quo.get("/me/account").text).get_element_by_id("account-email").text_content()
    missing = papertrail_cli(site.env, "users", "confirm", "nobody-here@example.org", check=False)
    assert missing.returncode == 1 and "no user" in missing.stdout

    forgot = post_form(browser(site.unmailed), "/forgot", "/forgot", email="quo@example.org")
    assert "已发出" not in notice_of(forgot) and "papertrail users password quo@example.org" in notice_of(forgot)
    unknown = post_form(browser(site.unmailed), "/forgot", "/forgot", email="nobody-here@example.org")
    assert notice_of(unknown) == notice_of(forgot).replace("quo@example.org", "nobody-here@example.org")  # alike
    assert not [m for m in site.inbox.messages if m["To"] == "quo@example.org"]


def test_without_smtp_resending_the_confirmation_says_nothing_was_sent(site: Site) -> None:
    token = papertrail_cli(site.env, "users", "create", "ox").stdout.strip().splitlines()[-1]
    auth = {"Authorization": f"Bearer {token}"}
    set_ = subprocess_input(site, ["users", "password", "ox", "--email", "ox@example.org"], "ox's long password\n")
    assert set_.returncode == 0, set_.stdout + set_.stderr
    ox = browser(site.unmailed)
    answer = post_form(ox, "/login", "/login", token=token, next="/me/account")
    assert answer.status_code == 303 and httpx.get(f"{site.unmailed}/api/me", headers=auth).status_code == 200
    account = html.fromstring(ox.get("/me/account").text)
    assert "papertrail users confirm ox@example.org" in account.get_element_by_id("unmailed").text_content()
    assert not account.xpath('//form[@action="/me/account/confirm"]')  # no button for a mail that cannot go
    resent = post_form(ox, "/me/account", "/me/account/confirm")
    assert resent.status_code == 303 and resent.headers["location"] == "/me/account?done=unmailed"
    shown = html.fromstring(ox.get(resent.headers["location"]).text).find_class("banner-warn")[0].text_content()
    assert "没有发送确认邮件" in shown and "已发送" not in shown


def test_what_sign_up_says_follows_the_mail_and_the_setting() -> None:
    from papertrail.runtime.wording import Translator
    from services.query.settings import QuerySettings
    from services.query.web import labels
    from services.query.web.account_pages import signup_notice

    waived = QuerySettings(email_confirmation_without_smtp="waived")
    operator = QuerySettings(email_confirmation_without_smtp="operator")
    assert signup_notice("sent", waived) == "sent"
    assert signup_notice("failed", operator) == "failed"
    assert "现在就可以" in labels.signup_notice(Translator("zh"), signup_notice("unmailed", waived), email="a@b.org")
    assert "sign in now" in labels.signup_notice(Translator("en"), signup_notice("unmailed", waived), email="a@b.org")
    notice = labels.signup_notice(Translator("en"), signup_notice("unmailed", operator), email="a@b.org")
    assert "papertrail users confirm a@b.org" in notice


def subprocess_input(site: Site, args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    """`papertrail ARGS` with this standard input (a password piped in, as a script would)."""
    return ZYGOTE.run(args, {**os.environ, **site.env}, input=stdin)


def follow_changes(env: dict[str, str], follow_id: str) -> list[dict[str, Any]]:
    """The follows.changed.v1 events of one follow, oldest first, read from the start of the topic."""

    async def read() -> list[dict[str, Any]]:
        consumer = AIOKafkaConsumer(
            env.get("KAFKA_NAME_PREFIX", "") + topics.FOLLOWS_CHANGED,
            bootstrap_servers=env["KAFKA_BOOTSTRAP_SERVERS"],
            auto_offset_reset="earliest",
            enable_auto_commit=False,
        )
        await consumer.start()
        try:
            batches = await consumer.getmany(timeout_ms=3000)
        finally:
            await consumer.stop()
        events = [json.loads(record.value) for records in batches.values() for record in records]
        return sorted((e for e in events if e["follow_id"] == follow_id), key=lambda e: e["changed_at"])

    return asyncio.run(read())


@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="no /usr/bin/chromium: install Debian's chromium (apt-get install -y chromium)"
)
def test_in_headless_chromium_sign_up_confirm_sign_in_and_manage_the_account(site: Site, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    shots = ARTIFACTS.parent / "accounts"
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright, tmp_path / "profile", javascript=False)  # pages work without it
        try:
            tab = chromium.new_page()
            tab.goto(f"{site.base}/signup")
            tab.locator("input[name=email]").fill("Mo@Example.org")
            tab.locator("input[name=password]").fill(PASSWORD)
            tab.screenshot(path=shots / "01-signup.png", full_page=True)
            tab.get_by_role("button", name="注册").last.click()
            assert "确认邮件已发送至 mo@example.org" in tab.locator("#notice").inner_text()
            tab.screenshot(path=shots / "02-signup-sent.png", full_page=True)

            token = link_token(mail_to(site, "mo@example.org"), "confirm")
            tab.goto(f"{site.base}/confirm?token={token}")
            tab.get_by_role("button", name="确认邮箱").click()
            assert "邮箱已确认" in tab.locator("#notice").inner_text()

            tab.goto(f"{site.base}/login?next=/me/account")
            tab.locator("form.login-form input[name=email]").fill("mo@example.org")
            tab.locator("form.login-form input[name=password]").fill(PASSWORD)
            tab.locator("form.login-form").get_by_role("button", name="登录").click()
            tab.wait_for_url("**/me/account")
            assert "已确认" in tab.locator("#account-email").inner_text()
            tab.locator("form.token-form input[name=name]").fill("zotero")
            tab.locator("form.token-form input[name=current]").fill(PASSWORD)
            tab.get_by_role("button", name="创建令牌").click()
            assert tab.locator("#new-token").inner_text().startswith("pt_")
            tab.screenshot(path=shots / "03-account.png", full_page=True)
            tab.goto(f"{site.base}/me/account?lang=en")
            tab.screenshot(path=shots / "04-account-en.png", full_page=True)
            tab.get_by_role("button", name="Sign out everywhere").click()
            tab.wait_for_url("**/login")
            assert tab.goto(f"{site.base}/me/account").status == 401  # type: ignore[union-attr]
        finally:
            chromium.close()


def test_a_venue_follow_is_stored_with_its_catalogue_key_and_an_unknown_venue_is_refused(site: Site) -> None:
    token = papertrail_cli(site.env, "users", "create", "vi").stdout.strip().splitlines()[-1]
    auth = {"Authorization": f"Bearer {token}"}
    body = {"kind": "venue", "name": "ICML 2026", "venue": "International Conference on Machine Learning"}
    followed = httpx.post(f"{site.base}/api/follows", json=body | {"venue_year": 2026}, headers=auth, timeout=10)
    assert followed.status_code == 201, followed.text
    assert (followed.json()["venue_key"], followed.json()["venue_year"]) == ("AI/icml", 2026)
    announced = wait_until(
        lambda: follow_changes(site.env, followed.json()["id"]), timeout=30, what="the venue follow announced"
    )
    assert announced[-1]["follow"]["venue_key"] == "AI/icml" and announced[-1]["follow"]["kind"] == "venue"
    unknown = httpx.post(f"{site.base}/api/follows", json=body | {"venue": "Conference of Nowhere"}, headers=auth)
    assert unknown.status_code == 400 and "not in the venue catalogue" in unknown.json()["detail"]
    field = {"kind": "venue", "name": "CCF-A AI", "venue_field": "AI", "venue_rank": "A"}
    # another kind's fields sent along are no part of a venue follow: its kind's module says what it keeps
    others = {"query": "llm", "author": "Ada Lovelace", "institution": "03cve4549"}
    every = httpx.post(f"{site.base}/api/follows", json=field | others, headers=auth, timeout=10)
    assert every.status_code == 201 and every.json()["venue_field"] == "AI" and "venue_key" not in every.json()
    assert [every.json().get(name) for name in others] == [None, None, None]


def test_the_follows_page_adds_a_venue_follow_and_shows_a_refusal(site: Site) -> None:
    sign_up(site, "ve@example.org")
    ve = sign_in(site, "ve@example.org")
    fields = {"kind": "venue", "venue": "ICML", "venue_year": "2026", "venue_track": "workshop", "venue_field": ""}
    added = post_form(ve, "/me/follows", "/me/follows", **fields, venue_rank="", name="")
    assert added.status_code == 303, added.text
    listed = html.fromstring(ve.get("/me/follows").text).find_class("follow")
    assert len(listed) == 1 and "AI/icml 2026" in listed[0].text_content() and "Workshop" in listed[0].text_content()
    assert "ICML 2026" in listed[0].find(".//strong").text_content()  # named for what it follows when left unnamed
    refused = post_form(ve, "/me/follows", "/me/follows", kind="venue", venue="Conference of Nowhere")
    banner = html.fromstring(refused.text).find_class("banner-error")
    assert refused.status_code == 400 and "Conference of Nowhere" in banner[0].text_content()
    every = post_form(ve, "/me/follows", "/me/follows", kind="venue", venue="", venue_field="AI", venue_rank="A")
    assert every.status_code == 303
    assert "AI CCF-A" in html.fromstring(ve.get("/me/follows").text).find_class("follow")[0].text_content()
