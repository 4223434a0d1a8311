"""Push channels chosen per follow over the real stack (issue 38 §5): the matcher and the query service as processes
over real Kafka, MongoDB and Meilisearch. A reader keeps a Feishu group bot, a Telegram chat and a generic webhook
(the default); one follow pushes to Feishu (chosen when it was made), another to Telegram (chosen afterwards), a
third to the default: each match reaches its follow's channel alone, in that channel's format.

The bots' URLs are checked by the API on their platforms' hosts (open.feishu.cn, api.telegram.org), which the test
cannot reach: once stored, they are pointed at local receivers (their paths and queries as the platforms have them),
as the only change to what the API kept."""

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
from pymongo import MongoClient

from services.matcher.delivery.webhooks import SIGNATURE_HEADER, verify_signature
from tests.support.events import enriched, publish
from tests.support.matching import PAPERS, index_held_paper
from tests.support.receivers import TELEGRAM_TOKEN, TELEGRAM_TOOK, Receiver
from tests.support.servers import Servers
from tests.support.services import create_user, running_services
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration
RUN = uuid.uuid4().hex[:8]
# title-only follows, each matching its own papers of the sample
TO_FEISHU = ("Plant", {"arxiv:2604.27178", "arxiv:2604.27538"})
TO_TELEGRAM = ("MathArena", {"arxiv:2605.00674"})
TO_DEFAULT = ("Dolphin", {"arxiv:2605.08961"})
FEISHU_TOOK = b'{"StatusCode":0,"StatusMessage":"success"}'


@pytest.fixture(scope="module")
async def stack(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[dict]:
    env = servers.environment() | {
        "MONGODB_DATABASE": f"papertrail_push_{RUN}",
        "INDEX_NAME": f"papers_push_{RUN}",
        "TOPIC_PARTITIONS": "3",
        "DIGEST_ENABLED": "false",
        "WEBHOOK_ALLOWED_HOSTS": "127.0.0.1",  # the test's receivers are local: allowed, as an operator would
    }
    # a held paper none of the follows matches: each follow's backfill runs, finds nothing, and says it is done
    await index_held_paper(servers, env["INDEX_NAME"], PAPERS["arxiv:2605.01386"])
    logs: Path = tmp_path_factory.mktemp("push-channels")
    client: MongoClient = MongoClient(servers.mongodb_url, tz_aware=True)
    with running_services(["matcher", "query"], env, logs) as ports:
        token = create_user(env, f"lin-{RUN}")
        yield {"query": f"http://127.0.0.1:{ports['query']}", "token": token, "db": client[env["MONGODB_DATABASE"]]}
    client.close()


def at_receiver(url: str, receiver: Receiver) -> str:
    """The bot's URL as the API kept it, at the local receiver: its path and query as the platform has them."""
    parts = urlsplit(url)
    return urlunsplit(("http", f"127.0.0.1:{receiver.server.server_port}", parts.path, parts.query, ""))


def papers_in(receiver: Receiver, channel: str) -> set[str]:
    """The papers a receiver was sent, read from each channel's own format."""
    found = set()
    for _, body in receiver.requests:
        sent = json.loads(body)
        if channel == "feishu":
            link = sent["content"]["post"]["zh_cn"]["content"][2][0]["href"]
        elif channel == "telegram":
            link = sent["text"].split('<a href="', 1)[1].split('"', 1)[0]
        else:
            link = "/papers/" + sent["match"]["paper_id"]
        found.add(link.rsplit("/papers/", 1)[1])
    return found


async def test_each_follow_pushes_to_its_own_channel_and_the_rest_to_the_default(stack: dict, servers: Servers) -> None:
    db = stack["db"]
    headers = {"Authorization": f"Bearer {stack['token']}"}
    async with httpx.AsyncClient(base_url=stack["query"], headers=headers, timeout=30) as api:
        with (
            Receiver([200], answer=FEISHU_TOOK) as feishu,
            Receiver([200], answer=TELEGRAM_TOOK) as telegram,
            Receiver([200]) as default,
        ):
            group = await api.post(
                "/api/me/push-channels",
                json={"name": "组会群", "channel": "feishu", "language": "zh",
                      "url": "https://open.feishu.cn/open-apis/bot/v2/hook/2f52f9da-4bbb-4bae-8790-4369f4ae1a76"},
            )  # fmt: skip
            chat = await api.post(
                "/api/me/push-channels",
                json={"name": "TG", "channel": "telegram", "language": "en", "secret": TELEGRAM_TOKEN,
                      "chat_id": "-1001234567890"},
            )  # fmt: skip
            fallback = await api.post(
                "/api/me/push-channels", json={"name": "lab", "url": default.url, "default": True}
            )
            assert (group.status_code, chat.status_code, fallback.status_code) == (201, 201, 201), chat.text
            user = db.users.find_one({"push_channels.id": group.json()["id"]})
            for kept in user["push_channels"]:
                if kept["channel"] != "generic":
                    local = at_receiver(kept["url"], feishu if kept["channel"] == "feishu" else telegram)
                    db.users.update_one(
                        {"_id": user["_id"], "push_channels.id": kept["id"]}, {"$set": {"push_channels.$.url": local}}
                    )

            async def made(query: str, **more: object) -> str:
                body = {"kind": "keyword", "name": query, "query": query, "fields": "title", **more}
                return str((await api.post("/api/follows", json=body)).json()["id"])

            to_feishu = await made(TO_FEISHU[0], push_channel_id=group.json()["id"])
            to_telegram = await made(TO_TELEGRAM[0])
            chosen = await api.put(f"/api/follows/{to_telegram}/push", json={"push_channel_id": chat.json()["id"]})
            assert chosen.status_code == 200 and chosen.json()["push_channel_id"] == chat.json()["id"]
            # made after the choice, on the same partition (the owner's key): once its backfill is done, the
            # matcher has taken the choice too
            to_default = await made(TO_DEFAULT[0])
            wait_until(
                lambda: (
                    db.follow_backfills.count_documents(
                        {"_id": {"$in": [to_feishu, to_telegram, to_default]}, "state": "done"}
                    )
                    == 3
                ),
                90,
                what="the three follows taken by the matcher",
            )
            for paper_id in sorted(TO_FEISHU[1] | TO_TELEGRAM[1] | TO_DEFAULT[1]):
                await publish(servers, "papers.enriched.v1", enriched(PAPERS[paper_id]), paper_id)
            wait_until(
                lambda: db.webhook_deliveries.count_documents({"user_id": user["_id"], "outcome": "delivered"}) == 4,
                90,
                what="four deliveries",
            )
    assert papers_in(feishu, "feishu") == TO_FEISHU[1]
    assert papers_in(telegram, "telegram") == TO_TELEGRAM[1]
    assert papers_in(default, "generic") == TO_DEFAULT[1]
    assert telegram.paths == [f"/bot{TELEGRAM_TOKEN}/sendMessage"]
    assert json.loads(telegram.requests[0][1])["chat_id"] == "-1001234567890"
    assert json.loads(telegram.requests[0][1])["text"].startswith("<b>[PaperTrail] New paper for “MathArena”</b>")
    assert all(json.loads(body)["msg_type"] == "post" for _, body in feishu.requests)
    (sent_headers, sent), secret = default.requests[0], fallback.json()["secret"]
    assert verify_signature(secret, sent, sent_headers[SIGNATURE_HEADER])  # the default's own signing secret
    assert db.webhook_deliveries.count_documents({"user_id": user["_id"], "outcome": {"$ne": "delivered"}}) == 0
