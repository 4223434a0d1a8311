"""Webhook URLs refused when written, over a real query service and MongoDB: what the security review reached
through webhooks (Meilisearch's /keys, MongoDB, Kafka, the metadata service) is a 422 naming the field and the
rule, for the user's webhook and a follow's, and an operator's network (WEBHOOK_ALLOWED_HOSTS) is allowed; the
webhook's state says why its deliveries count against it (failures, slow answers)."""

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest
from pymongo import AsyncMongoClient

from schemas.events import FollowMatched, MatchReason
from services.matcher.delivery.webhook_sender import WebhookTarget, queued_delivery
from services.matcher.store import MatcherRecords
from tests.support.servers import Servers
from tests.support.services import create_user, running_service

pytestmark = pytest.mark.integration

# each URL as the API reads it: 2130706433 and 0x7f.1 are 127.0.0.1 there (and to the resolver)
INTERNAL_WEBHOOKS = [
    ("http://127.0.0.1:7700/keys", "127.0.0.1 is a loopback address"),
    ("http://localhost:27017/", "localhost is a loopback address"),
    ("http://[::1]:9092/", "::1 is a loopback address"),
    ("http://0.0.0.0:8000/", "0.0.0.0 is the unspecified address"),
    ("http://2130706433:7700/", "127.0.0.1 is a loopback address"),
    ("http://0x7f.1:7700/", "127.0.0.1 is a loopback address"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"),
    ("http://[::ffff:10.0.0.1]/", "::ffff:a00:1 is a private address (10.0.0.1 inside an IPv6 address)"),
    ("http://100.64.0.1/", "100.64.0.1 is a shared (CGNAT) address"),
    ("http://10.21.0.1/", "10.21.0.1 is a private address"),  # beside the allowed 10.20.0.0/16
    ("http://user:pass@hooks.example.org/", "a user name or password in the URL is refused"),
]


@pytest.fixture(scope="module")
def query(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    run = uuid.uuid4().hex[:8]
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_webhooks_{run}",
        "INDEX_NAME": f"papers_webhooks_{run}",
        "TOPIC_PARTITIONS": "3",
        "WEBHOOK_ALLOWED_HOSTS": "10.20.0.0/16",  # an operator's on-premises receivers
    }
    with running_service("query", env, tmp_path_factory.mktemp("webhooks")) as port:
        yield f"http://127.0.0.1:{port}", create_user(env, "bo"), env["MONGODB_DATABASE"]


def test_webhooks_to_internal_addresses_or_with_credentials_are_422_naming_the_rule(
    query: tuple[str, str, str],
) -> None:
    base, token, _ = query
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=10) as api:
        for hook, rule in INTERNAL_WEBHOOKS:
            refused = api.put("/api/me/webhook", json={"url": hook})
            assert refused.status_code == 422, (hook, refused.text)
            assert refused.headers["content-type"] == "application/problem+json"
            assert refused.json()["detail"].startswith(f"url: {rule}"), hook
            follow = {"kind": "keyword", "name": "hooked", "query": "kernel", "webhook_url": hook}
            refused = api.post("/api/follows", json=follow)
            assert refused.status_code == 422, (hook, refused.text)
            assert refused.json()["detail"].startswith(f"webhook_url: {rule}"), hook
        assert api.get("/api/me/webhook").json()["url"] is None  # nothing stored
        assert api.get("/api/follows").json() == []
        # the operator's network is allowed, for the user's webhook and a follow's
        assert api.put("/api/me/webhook", json={"url": "http://10.20.1.2:8080/hook"}).status_code == 200
        follow = {"kind": "keyword", "name": "on premises", "query": "kernel", "webhook_url": "http://10.20.1.3/hook"}
        made = api.post("/api/follows", json=follow)
        assert made.status_code == 201 and made.json()["webhook_url"] == "http://10.20.1.3/hook"


async def test_the_webhooks_state_says_why_deliveries_count_against_it(
    query: tuple[str, str, str], servers: Servers
) -> None:
    """Slow answers as the matcher records them (its MatcherRecords writes `webhook_endpoints`): the webhook's state
    shows the last one and the count before the webhook is disabled, and the disabled reason after."""
    base, token, database = query
    slow = "slow answer: HTTP 200 after 8.0 s (slow after 5 s)"
    async with httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=10) as api:
        assert (await api.put("/api/me/webhook", json={"url": "http://10.20.1.9/slow"})).status_code == 200
        user_id = (await api.get("/api/me")).json()["id"]
        client: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
        try:
            matcher = MatcherRecords.of(client[database])
            await matcher.endpoints.endpoint_failed(user_id, "10.20.1.9", datetime.now(UTC), slow, disable_after=2)
            state = (await api.get("/api/me/webhook")).json()
            assert (state["disabled"], state["consecutive_failures"], state["last_error"]) == (False, 1, slow)
            await matcher.endpoints.endpoint_failed(user_id, "10.20.1.9", datetime.now(UTC), slow, disable_after=2)
        finally:
            await client.close()
        state = (await api.get("/api/me/webhook")).json()
    assert state["disabled"] is True and state["consecutive_failures"] == 2
    assert state["disabled_reason"] == f"disabled after 2 consecutive failed or slow deliveries; last: {slow}"


GROUP_BOT_REFUSALS = [
    ({"url": "https://hooks.example.org/bot", "channel": "teams"}, "channel: 'teams' is none of generic, feishu, "),
    (
        {"url": "https://hooks.example.org/open-apis/bot/v2/hook/t", "channel": "feishu"},
        "url: a feishu webhook is an https URL on open.feishu.cn or open.larksuite.com",
    ),
    (
        {"url": "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k", "channel": "wecom", "secret": "s"},
        "secret: a wecom bot takes no signing secret",
    ),
    ({"url": "https://hooks.example.org/hook", "secret": "mine"}, "secret: a generic webhook's secret is made by"),
]


async def test_a_group_bots_webhook_is_checked_stored_and_shown_masked(
    query: tuple[str, str, str], servers: Servers
) -> None:
    base, token, database = query
    hook = "https://oapi.dingtalk.com/robot/send?access_token=0123456789abcdef"
    async with httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=10) as api:
        for body, problem in GROUP_BOT_REFUSALS:
            refused = await api.put("/api/me/webhook", json=body)
            assert refused.status_code == 422, (body, refused.text)
            assert refused.json()["detail"].startswith(problem), refused.text
        bot = {"url": hook, "channel": "dingtalk", "secret": "SECabc123", "language": "en"}
        made = await api.put("/api/me/webhook", json=bot)
        assert made.status_code == 200, made.text
        state = (await api.get("/api/me/webhook")).json()
    shown = "https://oapi.dingtalk.com/robot/send?access_token=***cdef"
    assert made.json()["url"] == state["url"] == shown  # whoever holds the URL can post to the group
    assert made.json()["secret"] is None and state["secret"] is None  # the bot's secret is never shown
    assert state["channel"] == "dingtalk" and state["language"] == "en" and state["signed"] is True
    client: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    try:
        user = await client[database]["users"].find_one({"webhook_url": hook})
        assert user is not None
        stored = (user["webhook_channel"], user["webhook_secret"], user["webhook_language"])
        assert stored == ("dingtalk", "SECabc123", "en")
        # a delivery as the matcher queues it: its log shows the URL masked, and never the signed URL it sends to
        match = FollowMatched(
            user_id=user["_id"], follow_id="f1", follow_kind="keyword", paper_id="arxiv:2605.01386",
            reasons=[MatchReason(term="retrieval", field="title")], matched_at=datetime.now(UTC),
        )  # fmt: skip
        target = WebhookTarget(hook, "SECabc123", "dingtalk", "en")
        queued = queued_delivery(match, target, datetime.now(UTC), "https://papertrail.example")
        assert await MatcherRecords.of(client[database]).deliveries.queue_deliveries([queued]) == 1
    finally:
        await client.close()
    async with httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=10) as api:
        logged = (await api.get("/api/me/webhook")).json()["deliveries"]
    assert [(d["url"], d["channel"], d["outcome"]) for d in logged] == [(shown, "dingtalk", "pending")]
    assert "0123456789abcdef" not in json.dumps(logged) and "request_url" not in logged[0]


TELEGRAM_TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"  # the Bot API documentation's example token
TELEGRAM_REFUSALS = [
    ({"channel": "telegram", "chat_id": "-1001234567890"}, "secret: a telegram target needs its bot token"),
    ({"channel": "telegram", "secret": TELEGRAM_TOKEN}, "secret: a telegram target needs its bot token"),
    ({"channel": "telegram", "secret": "123456:ABC/../getMe", "chat_id": "-100123"}, "secret: a Telegram bot token"),
    ({"channel": "telegram", "secret": TELEGRAM_TOKEN, "chat_id": "-100 123"}, "chat_id: a chat's numeric id"),
    (
        {"channel": "telegram", "url": "https://api.telegram.org/bot1:x/sendMessage", "secret": TELEGRAM_TOKEN,
         "chat_id": "-100123"},
        "url: a telegram target is its bot token (secret) and chat_id",
    ),
    ({"url": "https://hooks.example.org/hook", "chat_id": "-100123"}, "chat_id: only a telegram target has a chat"),
]  # fmt: skip


async def test_a_telegram_bot_is_its_token_and_chat_and_its_token_is_never_shown(
    query: tuple[str, str, str], servers: Servers
) -> None:
    base, token, database = query
    async with httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=10) as api:
        for body, problem in TELEGRAM_REFUSALS:
            refused = await api.put("/api/me/webhook", json=body)
            assert refused.status_code == 422, (body, refused.text)
            assert refused.json()["detail"].startswith(problem), refused.text
        bot = {"channel": "telegram", "secret": TELEGRAM_TOKEN, "chat_id": "-1001234567890", "language": "en"}
        made = await api.put("/api/me/webhook", json=bot)
        assert made.status_code == 200, made.text
        state = (await api.get("/api/me/webhook")).json()
        user_id = (await api.get("/api/me")).json()["id"]
    shown = "https://api.telegram.org/bot***ew11/sendMessage?chat_id=***7890"
    assert made.json()["url"] == state["url"] == shown and state["channel"] == "telegram"
    assert made.json()["secret"] is None and state["signed"] is False  # the token is the URL's, not a signature's
    assert "DEF1234ghIkl" not in made.text + json.dumps(state)
    client: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    try:
        user = await client[database]["users"].find_one({"_id": user_id})
    finally:
        await client.close()
    assert user is not None and user["webhook_channel"] == "telegram"
    assert user["webhook_url"] == f"https://api.telegram.org/bot{TELEGRAM_TOKEN}/sendMessage?chat_id=-1001234567890"


async def test_push_channels_are_the_readers_own_and_a_follow_is_pushed_to_one(
    query: tuple[str, str, str], servers: Servers
) -> None:
    """Named push channels: checked as a webhook is, listed masked, one the default; a follow sent to one of its
    owner's (announced), never to another reader's; removing a channel leaves its follows to the default."""
    base, token, database = query
    other = create_user(
        servers.environment() | {"MONGODB_DATABASE": database}, f"other-{uuid.uuid4().hex[:6]}"
    )  # another reader, on the same service
    feishu = {"name": "组会群", "channel": "feishu", "url": "https://open.feishu.cn/open-apis/bot/v2/hook/abcd-1234"}
    tg = {"name": "Telegram", "channel": "telegram", "secret": TELEGRAM_TOKEN, "chat_id": "@papertrail_cs_cl"}
    async with (
        httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=10) as api,
        httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {other}"}, timeout=10) as theirs,
    ):
        refused = await api.post("/api/me/push-channels", json=feishu | {"url": "http://10.21.0.1/hook"})
        assert refused.status_code == 422 and refused.json()["detail"].startswith("url: a feishu webhook is")
        group = (await api.post("/api/me/push-channels", json=feishu)).json()
        chat = (await api.post("/api/me/push-channels", json=tg | {"default": True})).json()
        listed = (await api.get("/api/me/push-channels")).json()
        follow = (await api.post("/api/follows", json={"kind": "keyword", "name": "k", "query": "kernel"})).json()
        pushed = await api.put(f"/api/follows/{follow['id']}/push", json={"push_channel_id": group["id"]})
        # another reader can neither use these channels nor point this follow anywhere
        assert (await theirs.get("/api/me/push-channels")).json() == []
        mine = {"push_channel_id": group["id"]}
        assert (await theirs.put(f"/api/follows/{follow['id']}/push", json=mine)).status_code == 404
        theirs_follow = {"kind": "keyword", "name": "t", "query": "kernel", "push_channel_id": group["id"]}
        assert (await theirs.post("/api/follows", json=theirs_follow)).status_code == 422
        assert (await theirs.delete(f"/api/me/push-channels/{group['id']}")).status_code == 404
        assert (await api.get(f"/api/follows/{follow['id']}")).json()["push_channel_id"] == group["id"]
        assert (await api.delete(f"/api/me/push-channels/{group['id']}")).status_code == 204
        after = (await api.get("/api/me/push-channels")).json()
        assert (await api.get(f"/api/follows/{follow['id']}")).json().get("push_channel_id") is None
    assert pushed.status_code == 200 and pushed.json()["push_channel_id"] == group["id"]
    assert group["url"] == "https://open.feishu.cn/open-apis/bot/v2/hook/***1234" and group["secret"] is None
    assert chat["url"] == "https://api.telegram.org/bot***ew11/sendMessage?chat_id=***s_cl" and chat["default"]
    assert [(c["name"], c["channel"], c["default"]) for c in listed] == [
        ("组会群", "feishu", False),
        ("Telegram", "telegram", True),
    ]
    assert TELEGRAM_TOKEN not in json.dumps(listed) and "abcd-1234" not in json.dumps(listed)
    assert [c["id"] for c in after] == [chat["id"]]
    client: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    try:
        stored = await client[database]["follows"].find_one({"_id": follow["id"]})
    finally:
        await client.close()
    assert stored is not None and "push_channel_id" not in stored  # its channel removed: to the default again
