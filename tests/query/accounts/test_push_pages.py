"""Push channels on the follows page (/me/follows, issue 38 §5) over a real query service and MongoDB: a reader adds a
Feishu bot and a Telegram chat by form (the session cookie, the page's CSRF token), sees them masked, sends one
follow to Telegram and makes Feishu the default; another reader can do none of it to them; and headless Chromium
chooses a follow's channel in Chinese and English at desktop and phone width."""

import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.browsing import csrf_of, doc, launch_chromium, needs_chromium, text
from tests.support.paths import ROOT
from tests.support.servers import Servers
from tests.support.services import create_user, running_service

pytestmark = pytest.mark.integration
SHOTS = ROOT / "test-artifacts" / "push"
TELEGRAM_TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"  # the Bot API documentation's example token
FEISHU = "https://open.feishu.cn/open-apis/bot/v2/hook/2f52f9da-4bbb-4bae-8790-4369f4ae1a76"


class Site:
    def __init__(self, base: str, env: dict[str, str]) -> None:
        self.base, self.env = base, env

    def reader(self) -> tuple[httpx.Client, httpx.Client]:
        """A new reader: a browser signed in through the login form (`.csrf`: its forms' token) and its API client."""
        token = create_user(self.env, f"push-{uuid.uuid4().hex[:10]}")
        browser = httpx.Client(base_url=self.base, timeout=10)
        signed = browser.post(
            "/login", data={"token": token, "next": "/me/follows", "csrf": csrf_of(browser.get("/login"))}
        )
        assert signed.status_code == 303, signed.text
        browser.csrf = csrf_of(browser.get("/me/follows"))  # type: ignore[attr-defined]
        return browser, httpx.Client(base_url=self.base, timeout=10, headers={"Authorization": f"Bearer {token}"})


@pytest.fixture(scope="module")
def site(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    env = servers.environment() | {
        "TOPIC_PARTITIONS": "3",
    }
    with running_service("query", env, tmp_path_factory.mktemp("push-pages")) as port:
        yield Site(f"http://127.0.0.1:{port}", env)


def post(browser: httpx.Client, action: str, **fields: str) -> httpx.Response:
    return browser.post(action, data={"csrf": browser.csrf, **fields})  # type: ignore[attr-defined]


def a_follow(api: httpx.Client, query: str) -> str:
    made = api.post("/api/follows", json={"kind": "keyword", "name": query, "query": query})
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


def test_channels_added_by_form_are_masked_and_a_follow_and_the_default_are_chosen(site: Site) -> None:
    browser, api = site.reader()
    follow_id = a_follow(api, "kernel")
    refused = post(browser, "/me/push-channels", name="群", channel="feishu", url="https://hooks.example.org/x")
    assert refused.status_code == 422 and "open.feishu.cn" in text(doc(refused).find_class("banner-error")[0])
    assert api.get("/api/me/push-channels").json() == []
    added = post(browser, "/me/push-channels", name="组会群", channel="feishu", url=FEISHU, language="zh")
    assert added.status_code == 303 and added.headers["location"].startswith("/me/follows?push_added=")
    chat = {"name": "TG", "channel": "telegram", "secret": TELEGRAM_TOKEN, "chat_id": "-1001234567890", "url": ""}
    assert post(browser, "/me/push-channels", **chat).status_code == 303
    made = post(browser, "/me/push-channels", name="lab", channel="generic", url="https://hooks.example.org/lab")
    assert made.status_code == 200  # a generic webhook's secret is shown on the page, once
    assert re.fullmatch(r"[0-9a-f]{64}", text(doc(made).get_element_by_id("push-secret")).split()[-1])
    channels = {c["name"]: c for c in api.get("/api/me/push-channels").json()}
    assert channels["lab"]["signed"] and channels["lab"]["secret"] is None  # never shown again

    page = doc(browser.get("/me/follows"))
    urls = [text(code) for code in page.find_class("push-url")]
    assert urls == [channels[n]["url"] for n in ("组会群", "TG", "lab")]
    assert "https://api.telegram.org/bot***ew11/sendMessage?chat_id=***7890" in urls
    listed = browser.get("/me/follows").text
    assert TELEGRAM_TOKEN.split(":")[1] not in listed and "2f52f9da" not in listed  # the bots' credentials

    chosen = post(browser, f"/me/follows/{follow_id}/push", push_channel_id=channels["TG"]["id"])
    assert chosen.status_code == 303 and chosen.headers["location"] == f"/me/follows#follow-{follow_id}"
    assert api.get(f"/api/follows/{follow_id}").json()["push_channel_id"] == channels["TG"]["id"]
    assert post(browser, "/me/push-default", push_channel_id=channels["组会群"]["id"]).status_code == 303
    defaults = {c["name"]: c["default"] for c in api.get("/api/me/push-channels").json()}
    assert defaults == {"组会群": True, "TG": False, "lab": False}
    selected = doc(browser.get("/me/follows")).xpath(
        f'//li[@data-follow-id="{follow_id}"]//select[@name="push_channel_id"]/option[@selected]'
    )
    assert [o.get("value") for o in selected] == [channels["TG"]["id"]]
    back = post(browser, f"/me/follows/{follow_id}/push", push_channel_id="")  # to the default again
    assert back.status_code == 303 and api.get(f"/api/follows/{follow_id}").json().get("push_channel_id") is None

    removed = post(browser, f"/me/push-channels/{channels['组会群']['id']}/delete")
    assert removed.status_code == 303
    assert [c["name"] for c in api.get("/api/me/push-channels").json()] == ["TG", "lab"]


def test_another_reader_and_a_form_without_its_csrf_token_change_nothing(site: Site) -> None:
    browser, api = site.reader()
    other, _ = site.reader()
    follow_id = a_follow(api, "graphs")
    assert post(browser, "/me/push-channels", name="TG", channel="telegram", secret=TELEGRAM_TOKEN,
                chat_id="-100123").status_code == 303  # fmt: skip
    [chat] = api.get("/api/me/push-channels").json()
    # the other reader's session: not their follow, not their channel
    assert post(other, f"/me/follows/{follow_id}/push", push_channel_id=chat["id"]).status_code == 404
    assert post(other, "/me/push-default", push_channel_id=chat["id"]).status_code == 404
    assert post(other, f"/me/push-channels/{chat['id']}/delete").status_code == 404
    # this reader's session without the form's token
    bare = browser.post(f"/me/follows/{follow_id}/push", data={"push_channel_id": chat["id"]})
    assert bare.status_code == 403
    assert api.get(f"/api/follows/{follow_id}").json().get("push_channel_id") is None
    assert [c["id"] for c in api.get("/api/me/push-channels").json()] == [chat["id"]]


@needs_chromium
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_in_headless_chromium_a_follow_is_sent_to_a_channel_at_desktop_and_phone_width(
    site: Site, tmp_path: Path, lang: str
) -> None:
    from playwright.sync_api import expect, sync_playwright

    words: dict[str, Any] = {"zh": ("推送到", "保存", "默认渠道"), "en": ("Push to", "Save", "The default")}
    push_to, save, default = words[lang]
    browser, api = site.reader()
    follow_id = a_follow(api, "diffusion")
    for body in (
        {"name": "飞书组会群", "channel": "feishu", "url": FEISHU},
        {"name": "Telegram", "channel": "telegram", "secret": TELEGRAM_TOKEN, "chat_id": "@papertrail_cs_cl"},
    ):
        assert api.post("/api/me/push-channels", json=body).status_code == 201
    channels = {c["channel"]: c["id"] for c in api.get("/api/me/push-channels").json()}
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright, tmp_path / "profile", javascript=False)  # the pages work without it
        try:
            chromium.add_cookies(
                [{"name": c.name, "value": c.value, "url": site.base + "/"} for c in browser.cookies.jar]
            )
            tab = chromium.new_page()
            for width, channel in ((1400, "telegram"), (390, "feishu")):
                tab.set_viewport_size({"width": width, "height": 900})
                tab.goto(f"{site.base}/me/follows?lang={lang}")
                item = tab.locator(f'li[data-follow-id="{follow_id}"]')
                choice = item.get_by_label(push_to)
                for shown in (choice, item.get_by_role("button", name=save)):
                    box = shown.bounding_box()
                    assert box is not None and box["x"] + box["width"] <= width, (width, box)
                expect(choice.locator("option:checked")).to_have_text(default)
                choice.select_option(channels[channel])
                item.get_by_role("button", name=save).click()
                expect(tab.locator(f'li[data-follow-id="{follow_id}"] select option:checked')).not_to_have_text(default)
                assert api.get(f"/api/follows/{follow_id}").json()["push_channel_id"] == channels[channel]
                tab.screenshot(path=SHOTS / f"follows-push-{lang}-{width}.png", full_page=True)
                api.put(f"/api/follows/{follow_id}/push", json={"push_channel_id": None})  # for the next width
        finally:
            chromium.close()
