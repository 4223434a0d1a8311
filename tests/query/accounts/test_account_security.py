"""The accounts' defences over a real query service, MongoDB and a local SMTP server (issue 37's review): API tokens
end with the account's secrets (a password change, signing out everywhere, a reset) and are made only by a confirmed
account that gives its current password, under a limit, and listed and revoked through the API too; `/forgot` from
any number of addresses never keeps the owner's reset mail away; others' failed sign-ins from a shared address never
refuse a browser that signed in to the account before; the current password is not guessed without limit.

Every browser here comes from an address of its own (X-Forwarded-For, believed from this host), so the per-address
limits of one test never touch another's."""

import itertools
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from email.message import Message

import httpx
import pytest
from lxml import html

from tests.support.accounts import PASSWORD, csrf_of, link_token, post_form
from tests.support.mail import Inbox, smtp_server
from tests.support.servers import Servers
from tests.support.services import running_service
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration
NEW_PASSWORD = "a brand new passphrase"
ADDRESSES = (f"198.51.100.{n}" for n in itertools.count(1))  # one per browser (TEST-NET-2, never contacted)


@dataclass
class Site:
    base: str
    inbox: Inbox

    def browser(self, address: str | None = None) -> httpx.Client:
        """A browser of its own, from an address of its own unless one is given (a shared one: a campus NAT)."""
        return httpx.Client(base_url=self.base, timeout=10, headers={"X-Forwarded-For": address or next(ADDRESSES)})

    def mails(self, address: str, subject: str) -> list[Message]:
        """The mails to this address so far whose subject holds `subject` (each is in the inbox by the time the
        request that sent it is answered: the service waits for the SMTP server's 250)."""
        return [m for m in self.inbox.messages if m["To"] == address and subject in m["Subject"]]


@pytest.fixture(scope="module")
def site(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    with ExitStack() as stack:
        inbox, smtp_port = stack.enter_context(smtp_server())
        env = servers.environment() | {
            "TOPIC_PARTITIONS": "3",
            "SMTP_HOST": "127.0.0.1",
            "SMTP_PORT": str(smtp_port),
            "PUBLIC_URL": "http://papertrail.test",
            "TRUSTED_PROXIES": "127.0.0.1",
            "LIMIT_LOGIN_PER_ACCOUNT": "5/1d",
            "LIMIT_LOGIN_PER_ADDRESS": "10/1d",
            "LIMIT_MAIL_PER_ACCOUNT": "1/1d",
            "LIMIT_TOKEN_CREATES": "3/1d",
            "LIMIT_PASSWORD_CHECKS": "5/1d",
        }
        port = stack.enter_context(running_service("query", env, tmp_path_factory.mktemp("account-security")))
        yield Site(f"http://127.0.0.1:{port}", inbox)


def confirmed_account(site: Site, email: str) -> httpx.Client:
    """Sign up, confirm the address by its mailed link, sign in: the signed-in browser."""
    reader = site.browser()
    assert post_form(reader, "/signup", "/signup", email=email, password=PASSWORD).status_code == 200
    token = link_token(wait_until(lambda: site.mails(email, "确认邮箱"), 15, what="the confirmation")[0], "confirm")
    assert post_form(reader, f"/confirm?token={token}", "/confirm", token=token).status_code == 200
    return signed_in(reader, email)


def signed_in(reader: httpx.Client, email: str, password: str = PASSWORD) -> httpx.Client:
    answer = post_form(reader, "/login", "/login", email=email, password=password, next="/me/account")
    assert answer.status_code == 303, answer.text
    return reader


def new_token(reader: httpx.Client, password: str = PASSWORD) -> str:
    made = post_form(reader, "/me/account", "/me/account/tokens", name="script", current=password)
    assert made.status_code == 201, made.text
    return html.fromstring(made.text).get_element_by_id("new-token").text_content()


def works(site: Site, token: str) -> bool:
    answer = httpx.get(f"{site.base}/api/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert answer.status_code in (200, 401), answer.text
    return answer.status_code == 200


def banner(answer: httpx.Response) -> str:
    return html.fromstring(answer.text).find_class("banner-error")[0].text_content()


def test_a_password_change_ends_the_accounts_api_tokens(site: Site) -> None:
    reader = confirmed_account(site, "tok-pw@example.org")
    token = new_token(reader)
    assert works(site, token)
    changed = post_form(reader, "/me/account", "/me/account/password", current=PASSWORD, password=NEW_PASSWORD)
    assert changed.status_code == 303
    assert not works(site, token)
    assert not html.fromstring(reader.get("/me/account").text).find_class("token")  # gone from the list too


def test_signing_out_everywhere_ends_the_accounts_api_tokens(site: Site) -> None:
    reader = confirmed_account(site, "tok-out@example.org")
    token = new_token(reader)
    assert post_form(reader, "/me/account", "/me/account/sign-out-everywhere").status_code == 303
    assert not works(site, token)


def test_a_reset_takes_a_claimed_address_back_and_ends_its_api_tokens(site: Site) -> None:
    """Someone signs up with another's address before its owner does: they cannot make a token with it unconfirmed,
    and a token made once it was confirmed ends when the owner resets the password by the mailed link."""
    squatter = site.browser()
    assert post_form(squatter, "/signup", "/signup", email="claimed@example.org", password=PASSWORD).status_code == 200
    signed_in(squatter, "claimed@example.org")
    refused = post_form(squatter, "/me/account", "/me/account/tokens", name="keep reading", current=PASSWORD)
    assert refused.status_code == 403 and "确认" in banner(refused)
    assert not html.fromstring(squatter.get("/me/account").text).find_class("token")

    reader = confirmed_account(site, "tok-reset@example.org")
    token = new_token(reader)
    assert post_form(site.browser(), "/forgot", "/forgot", email="tok-reset@example.org").status_code == 200
    reset = link_token(site.mails("tok-reset@example.org", "重设密码")[0], "reset")
    owner = site.browser()
    done = post_form(owner, f"/reset?token={reset}", "/reset", token=reset, password=NEW_PASSWORD)
    assert done.status_code == 303
    assert not works(site, token)
    assert reader.get("/me/account").status_code == 401


def test_making_a_token_asks_for_the_current_password(site: Site) -> None:
    reader = confirmed_account(site, "tok-ask@example.org")
    without = post_form(reader, "/me/account", "/me/account/tokens", name="no password")
    wrong = post_form(reader, "/me/account", "/me/account/tokens", name="wrong", current="not the password")
    assert without.status_code == wrong.status_code == 403
    assert banner(without) == banner(wrong) == "当前密码不正确。"
    assert not html.fromstring(reader.get("/me/account").text).find_class("token")
    assert works(site, new_token(reader))


def test_making_tokens_is_limited_per_account(site: Site) -> None:
    reader = confirmed_account(site, "tok-many@example.org")
    for _ in range(3):
        new_token(reader)
    refused = post_form(reader, "/me/account", "/me/account/tokens", name="fourth", current=PASSWORD)
    assert refused.status_code == 429 and 0 < int(refused.headers["Retry-After"]) <= 86_400
    assert len(html.fromstring(reader.get("/me/account").text).find_class("token")) == 3


def test_the_current_password_is_not_guessed_without_limit(site: Site) -> None:
    reader = confirmed_account(site, "guess-pw@example.org")
    guesses = [
        post_form(reader, "/me/account", "/me/account/password", current=f"guess {n}", password=NEW_PASSWORD)
        for n in range(5)
    ]
    assert [g.status_code for g in guesses] == [403] * 5
    right = post_form(reader, "/me/account", "/me/account/password", current=PASSWORD, password=NEW_PASSWORD)
    assert right.status_code == 429 and 0 < int(right.headers["Retry-After"]) <= 86_400
    signed_in(site.browser(), "guess-pw@example.org")  # the password did not change


def test_tokens_are_listed_and_revoked_through_the_api_by_their_owner_only(site: Site) -> None:
    reader = confirmed_account(site, "tok-api@example.org")
    kept, spare = new_token(reader), new_token(reader)
    other = new_token(confirmed_account(site, "tok-api-other@example.org"))
    api = httpx.Client(base_url=site.base, timeout=10, headers={"Authorization": f"Bearer {kept}"})
    listed = api.get("/api/me/tokens")
    assert listed.status_code == 200, listed.text
    assert [t["name"] for t in listed.json()] == ["script", "script"] and kept not in listed.text
    assert all(set(t) == {"id", "name", "created_at", "last_used_at"} for t in listed.json())
    others = httpx.get(f"{site.base}/api/me/tokens", headers={"Authorization": f"Bearer {other}"}).json()
    assert len(others) == 1 and others[0]["id"] not in {t["id"] for t in listed.json()}
    assert api.delete(f"/api/me/tokens/{others[0]['id']}").status_code == 404  # another's token reads as missing
    spare_id = next(t["id"] for t in listed.json() if t["last_used_at"] is None)
    assert api.delete(f"/api/me/tokens/{spare_id}").status_code == 204
    assert not works(site, spare) and works(site, kept) and works(site, other)
    assert api.delete(f"/api/me/tokens/{spare_id}").status_code == 404


def test_forgot_from_any_number_of_addresses_never_refuses_the_owner(site: Site) -> None:
    """Requests for one address's reset mail, from anyone: every one is answered with the same page; the address
    gets at most LIMIT_MAIL_PER_ACCOUNT mails a window, and the link it got works for its owner."""
    confirmed_account(site, "target@example.org")
    asked = [post_form(site.browser(), "/forgot", "/forgot", email="target@example.org") for _ in range(4)]
    assert [a.status_code for a in asked] == [200] * 4
    notices = {html.fromstring(a.text).get_element_by_id("notice").text_content() for a in asked}
    assert len(notices) == 1
    owner = site.browser()
    own = post_form(owner, "/forgot", "/forgot", email="target@example.org")
    assert own.status_code == 200 and html.fromstring(own.text).get_element_by_id("notice").text_content() in notices
    mailed = site.mails("target@example.org", "重设密码")
    assert len(mailed) == 1  # one a window, however many asked
    reset = link_token(mailed[0], "reset")
    done = post_form(owner, f"/reset?token={reset}", "/reset", token=reset, password=NEW_PASSWORD)
    assert done.status_code == 303
    signed_in(site.browser(), "target@example.org", NEW_PASSWORD)


def test_others_failures_from_a_shared_address_never_refuse_a_browser_that_signed_in_before(site: Site) -> None:
    campus = "203.0.113.50"  # one address for a whole campus (NAT): the owner and a guesser behind it
    confirmed_account(site, "nat@example.org").close()
    laptop = signed_in(site.browser(campus), "nat@example.org")  # the owner's laptop signed in from the campus
    guesser = site.browser(campus)
    guesses = [post_form(guesser, "/login", "/login", email="nat@example.org", password=f"guess {n}") for n in range(6)]
    assert [g.status_code for g in guesses] == [401] * 5 + [429]
    again = post_form(laptop, "/login", "/login", email="nat@example.org", password=PASSWORD, next="/me/account")
    assert again.status_code == 303, again.text
    stranger = post_form(site.browser(campus), "/login", "/login", email="nat@example.org", password=PASSWORD)
    assert stranger.status_code == 429  # a browser never seen here, behind the failing address: refused
    own = [post_form(laptop, "/login", "/login", email="nat@example.org", password=f"typo {n}") for n in range(6)]
    assert [o.status_code for o in own] == [401] * 5 + [429]  # a known browser that fails itself is refused too


def test_a_browser_that_signed_in_before_is_not_refused_for_others_attempts_from_its_address(site: Site) -> None:
    """LIMIT_LOGIN_PER_ADDRESS counts a shared address's attempts; a browser that signed in to the account before
    counts on its own, so a busy campus address does not keep its owner out."""
    campus = "203.0.113.60"
    confirmed_account(site, "busy@example.org").close()
    laptop = signed_in(site.browser(campus), "busy@example.org")  # the address's first attempt of ten
    guesser = site.browser(campus)
    tries = [post_form(guesser, "/login", "/login", email=f"n{n}@example.org", password="x") for n in range(10)]
    assert [t.status_code for t in tries] == [401] * 9 + [429]
    again = post_form(laptop, "/login", "/login", email="busy@example.org", password=PASSWORD, next="/me/account")
    assert again.status_code == 303, again.text
    stranger = post_form(site.browser(campus), "/login", "/login", email="busy@example.org", password=PASSWORD)
    assert stranger.status_code == 429


def test_a_planted_pre_session_cookie_with_a_token_made_by_the_public_recipe_is_refused(site: Site) -> None:
    """The CSRF token was an HMAC of the cookie under a public constant: whoever could plant the pre-session cookie
    (a sibling subdomain) could make the matching token and sign a browser in to their account. Keyed by the
    server's secret, it cannot be made outside."""
    import base64
    import hashlib
    import hmac

    planted = "planted-pre-session-id"
    made = hmac.new(planted.encode(), b"papertrail csrf v1", hashlib.sha256).digest()
    forged = base64.urlsafe_b64encode(made).rstrip(b"=").decode()
    victim = site.browser()
    victim.cookies.set("pt_csrf", planted)
    answer = victim.post("/login", data={"csrf": forged, "email": "nobody@example.org", "password": PASSWORD})
    assert answer.status_code == 403
    assert csrf_of(site.browser(), "/login") != forged
