"""Webhooks to a real local HTTP receiver, digests mailed to a real local SMTP server, over a real MongoDB."""

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta
from ipaddress import ip_address
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from pymongo import AsyncMongoClient

from papertrail.runtime.guarded_http import system_resolver
from papertrail.runtime.outbound import IPAddress
from papertrail.runtime.push import dingtalk, feishu, telegram
from schemas.events import FollowMatched, MatchReason
from services.matcher.delivery.digest_mailer import DigestMaker
from services.matcher.delivery.dispatcher import open_webhooks
from services.matcher.delivery.webhook_sender import WebhookTarget, queued_delivery
from services.matcher.delivery.webhooks import SIGNATURE_HEADER, delivery_id, verify_signature
from services.matcher.matching.recorder import MatchRecorder
from services.matcher.settings import MatcherSettings
from services.matcher.store import MatcherRecords
from tests.support.mail import Inbox, smtp_server
from tests.support.receivers import SECRET, TELEGRAM_TOKEN, TELEGRAM_TOOK, ManualClock, Receiver
from tests.support.servers import Servers, free_port
from tests.support.waiting import wait_until_async

pytestmark = pytest.mark.integration


def settings(servers: Servers, **overrides: object) -> MatcherSettings:
    values = {
        "mongodb_url": servers.mongodb_url,
        "webhook_backoff_s": 0.05,
        "webhook_backoff_max_s": 0.2,
        "webhook_max_attempts": 4,
        "webhook_disable_after": 2,
        "webhook_allowed_hosts": "127.0.0.1",  # the receivers here are local: allowed, as an operator would
        **overrides,
    }
    return MatcherSettings.model_validate(values)


@pytest.fixture
async def store(servers: Servers) -> AsyncIterator[MatcherRecords]:
    client: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    store = MatcherRecords.of(client[f"matcher_test_{uuid.uuid4().hex[:8]}"])
    await store.ensure_indexes()
    yield store
    await client.close()


def a_match(paper_id: str = "arxiv:2605.01386", **fields: object) -> FollowMatched:
    values = {
        "user_id": "u1",
        "follow_id": "f1",
        "follow_kind": "keyword",
        "follow_name": "retrieval for LLMs",
        "paper_id": paper_id,
        "paper_title": "MemORAI: Memory Organization and Retrieval via Adaptive Graph Intelligence",
        "reasons": [MatchReason(term="retrieval", field="title")],
        "matched_at": datetime(2026, 5, 5, 3, 0, tzinfo=UTC),
        **fields,
    }
    return FollowMatched.model_validate(values)


async def test_the_same_paper_twice_is_one_match_and_an_unannounced_one_is_announced_again(
    store: MatcherRecords,
) -> None:
    match = a_match()
    assert await store.matches.record(match) == match  # new: announce
    assert await store.matches.record(match) == match  # stored but not marked announced (a crash in between): again
    await store.matches.mark_announced_many([match])
    assert await store.matches.record(match.model_copy(update={"matched_at": datetime.now(UTC)})) is None
    assert await store.matches.matches.count_documents({}) == 1


async def test_a_batch_of_matches_is_recorded_once_and_a_redelivered_batch_announces_only_the_unannounced(
    store: MatcherRecords,
) -> None:
    batch = [a_match(f"arxiv:2605.0{n:04d}") for n in range(40)]
    assert await store.matches.record_many(batch) == batch  # all new: announce all
    await store.matches.mark_announced_many(batch[:30])  # a crash after announcing 30 of them
    again = await store.matches.record_many(
        [*batch, a_match("arxiv:2605.09999")]
    )  # the batch redelivered, plus one new
    assert {m.paper_id for m in again} == {m.paper_id for m in batch[30:]} | {"arxiv:2605.09999"}
    await store.matches.mark_announced_many(again)
    assert await store.matches.record_many(batch) == []
    assert await store.matches.matches.count_documents({}) == 41
    assert await store.matches.matches.count_documents({"announced": True}) == 41


async def test_recorder_stores_and_announces_each_match_once(store: MatcherRecords) -> None:
    announced: list[FollowMatched] = []

    async def publish_all(matches: list[FollowMatched]) -> None:
        announced.extend(matches)

    recorder = MatchRecorder(store, publish_all)
    matches = [a_match(f"arxiv:2605.0{n:04d}") for n in range(3)]
    batch = [*matches, matches[0].model_copy(update={"matched_at": datetime.now(UTC)})]  # a paper twice

    assert await recorder.record(batch) == 3
    assert sorted(m.paper_id for m in announced) == sorted(m.paper_id for m in matches)
    assert await store.matches.matches.count_documents({"announced": True}) == 3

    announced.clear()
    assert await recorder.record(batch) == 0  # redelivered: nothing new to store or announce
    assert announced == []
    assert await store.matches.matches.count_documents({}) == 3


class Webhooks:
    """The matcher's webhook delivery as its lifespan wires it (`open_webhooks`): the guarded client, the sender, the
    dispatcher running; `names`: names the test makes up, resolved by the resolver the matcher's client and
    dispatcher share, on 127.0.0.1 or (a dict) each on its loopback address; `clock`: the sender's."""

    def __init__(
        self,
        store: MatcherRecords,
        config: MatcherSettings,
        names: tuple[str, ...] | dict[str, str] = (),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        hosts = names if isinstance(names, dict) else dict.fromkeys(names, "127.0.0.1")

        async def resolve(host: str, port: int) -> list[IPAddress]:
            return [ip_address(hosts[host])] if host in hosts else await system_resolver(host, port)

        self.store = store
        self.dispatcher, self.client = open_webhooks(store, config, resolve, clock)

    async def __aenter__(self) -> "Webhooks":
        self.running = asyncio.create_task(self.dispatcher.run())
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.running
        await self.client.aclose()

    async def queue(self, match: FollowMatched, url: str, channel: str = "generic") -> int:
        target = WebhookTarget(url, SECRET, channel)
        queued = await self.store.deliveries.queue_deliveries(
            [queued_delivery(match, target, datetime.now(UTC), "https://papertrail.example")]
        )
        self.dispatcher.poke()
        return queued

    async def closed(self, match: FollowMatched, url: str) -> dict[str, Any]:
        """The delivery once it is no longer pending."""
        ident = delivery_id(match, url)

        async def done() -> dict[str, Any] | None:
            return await self.store.deliveries.deliveries.find_one({"_id": ident, "outcome": {"$ne": "pending"}})

        return await wait_until_async(done, 30, f"delivery {ident} closed")


async def test_webhook_that_fails_twice_then_succeeds_is_one_signed_delivery(
    servers: Servers, store: MatcherRecords
) -> None:
    match = a_match()
    async with Webhooks(store, settings(servers)) as webhooks:
        with Receiver([500, 503, 200]) as receiver:
            assert await webhooks.queue(match, receiver.url) == 1
            delivery = await webhooks.closed(match, receiver.url)
            assert await webhooks.queue(match, receiver.url) == 0  # the match again: no second delivery
    assert delivery["outcome"] == "delivered" and delivery["status"] == 200
    assert [a["status"] for a in delivery["attempts"]] == [500, 503, 200]  # each retry due later in the queue
    assert len(receiver.requests) == 3
    headers, body = receiver.requests[-1]
    assert verify_signature(SECRET, body, headers[SIGNATURE_HEADER])
    assert not verify_signature("another secret", body, headers[SIGNATURE_HEADER])
    assert json.loads(body)["match"]["paper_id"] == match.paper_id
    assert await store.deliveries.deliveries.count_documents({}) == 1


async def test_failures_are_counted_per_host_so_a_new_url_there_does_not_start_again(
    servers: Servers, store: MatcherRecords
) -> None:
    config = settings(servers, webhook_max_attempts=2, webhook_disable_after=2)
    outcomes = []
    async with Webhooks(store, config) as webhooks:
        with Receiver([500]) as receiver:
            for n in range(3):  # a new follow, a new URL, each time: the same host
                match, url = a_match(f"arxiv:2605.0000{n}", follow_id=f"f{n}"), f"{receiver.url}-{n}"
                await webhooks.queue(match, url)
                outcomes.append(await webhooks.closed(match, url))
    assert [d["outcome"] for d in outcomes] == ["failed", "failed", "skipped_disabled"]
    assert len(receiver.requests) == 4  # two attempts for each of the first two; none once disabled
    endpoint = await store.endpoints.endpoint("u1", "127.0.0.1")
    assert endpoint["disabled"] is True
    assert (
        endpoint["disabled_reason"]
        == "disabled after 2 consecutive failed or slow deliveries; last: HTTP 500 after 2 attempts"
    )
    assert outcomes[0]["error"] == "HTTP 500 after 2 attempts"
    assert outcomes[2]["error"] == endpoint["disabled_reason"]


async def test_setting_the_webhook_again_re_enables_its_host(servers: Servers, store: MatcherRecords) -> None:
    config = settings(servers, webhook_max_attempts=1, webhook_disable_after=1)
    async with Webhooks(store, config) as webhooks:
        with Receiver([500, 200]) as receiver:
            first, second, third = (a_match(f"arxiv:2605.0000{n}") for n in range(3))
            await webhooks.queue(first, receiver.url)
            assert (await webhooks.closed(first, receiver.url))["disabled_endpoint"] is True
            await webhooks.queue(second, receiver.url)
            assert (await webhooks.closed(second, receiver.url))["outcome"] == "skipped_disabled"
            # PUT /api/me/webhook, as the query service writes it (query: Users.set_webhook)
            changes = {"webhook_url": receiver.url, "webhook_secret": SECRET, "webhook_set_at": datetime.now(UTC)}
            await store.reads.users.update_one({"_id": "u1"}, {"$set": changes}, upsert=True)
            await webhooks.queue(third, receiver.url)
            assert (await webhooks.closed(third, receiver.url))["outcome"] == "delivered"
    endpoint = await store.endpoints.endpoint("u1", "127.0.0.1")
    assert endpoint["disabled"] is False and endpoint["consecutive_failures"] == 0


async def test_the_log_names_no_transport_error_only_status_codes(servers: Servers, store: MatcherRecords) -> None:
    """A closed port reads as "no answer", as a timeout would: the log is no port scanner."""
    closed_port = f"http://127.0.0.1:{free_port()}/hook"
    match = a_match()
    async with Webhooks(store, settings(servers, webhook_max_attempts=2)) as webhooks:
        await webhooks.queue(match, closed_port)
        delivery = await webhooks.closed(match, closed_port)
    assert delivery["outcome"] == "failed" and delivery["error"] == "no answer after 2 attempts"
    assert [set(a) for a in delivery["attempts"]] == [{"at", "error"}, {"at", "error"}]
    assert {a["error"] for a in delivery["attempts"]} == {"no answer"}


async def test_a_name_resolving_to_loopback_is_refused_at_delivery_though_it_passed_when_written(
    servers: Servers, store: MatcherRecords
) -> None:
    config = settings(servers, webhook_allowed_hosts="")  # as deployed: nothing internal allowed
    match = a_match()
    with Receiver([200]) as receiver:
        url = receiver.url.replace("127.0.0.1", "hooks.example")  # a public-looking name, now answering 127.0.0.1
        config.webhook_policy.check_url(url)  # what the query service checked when the URL was written
        async with Webhooks(store, config, names=("hooks.example",)) as webhooks:
            await webhooks.queue(match, url)
            delivery = await webhooks.closed(match, url)
    assert receiver.requests == []
    assert delivery["outcome"] == "failed"
    assert delivery["error"] == "not sent: the webhook's host is one webhooks may not reach"
    assert "127.0.0.1" not in str(delivery)  # the log says not which address it had


async def test_an_allowed_name_is_delivered_to_with_its_own_host_header(
    servers: Servers, store: MatcherRecords
) -> None:
    config = settings(servers, webhook_allowed_hosts="hooks.lab.internal")
    match = a_match()
    with Receiver([204]) as receiver:
        url = receiver.url.replace("127.0.0.1", "hooks.lab.internal")
        async with Webhooks(store, config, names=("hooks.lab.internal",)) as webhooks:
            await webhooks.queue(match, url)
            delivery = await webhooks.closed(match, url)
    assert delivery["outcome"] == "delivered"
    assert receiver.requests[0][0]["Host"] == f"hooks.lab.internal:{receiver.server.server_port}"


# each group bot at a real local receiver: its path (the token where the bot's URL has it), its answer when it takes
# the message, and a refusal it answers with HTTP 200 (replies recorded from the real bots: see test_push.py)
BOTS = {
    "feishu": ("/open-apis/bot/v2/hook/tok", b'{"StatusCode":0,"StatusMessage":"success"}',
               b'{"code":19021,"data":{},"msg":"sign match fail or timestamp is not within one hour from current '
               b'time"}'),
    "dingtalk": ("/robot/send?access_token=tok", b'{"errcode":0,"errmsg":"ok"}',
                 b'{"errcode":310000,"errmsg":"sign not match"}'),
    "wecom": ("/cgi-bin/webhook/send?key=tok", b'{"errcode":0,"errmsg":"ok"}',
              b'{"errcode":93000,"errmsg":"invalid webhook url"}'),
}  # fmt: skip


def sent_as_the_bot_asks(channel: str, path: str, body: dict[str, Any]) -> None:
    """The request a bot got is in its format, signed with the secret as it documents."""
    if channel == "feishu":
        assert path == BOTS["feishu"][0]
        assert body["msg_type"] == "post" and body["sign"] == feishu.sign(int(body["timestamp"]), SECRET)
        assert body["content"]["post"]["zh_cn"]["content"][0] == [{"tag": "text", "text": a_match().paper_title}]
    elif channel == "dingtalk":
        parts = urlsplit(path)
        query = parse_qs(parts.query)
        assert parts.path == "/robot/send" and query["access_token"] == ["tok"]
        assert query["sign"] == [dingtalk.sign(int(query["timestamp"][0]), SECRET)]
        assert body["msgtype"] == "markdown" and a_match().paper_title in body["markdown"]["text"]
    else:
        assert path == BOTS["wecom"][0]
        assert body["msgtype"] == "markdown" and a_match().paper_title in body["markdown"]["content"]


@pytest.mark.parametrize("channel", sorted(BOTS))
async def test_a_group_bot_gets_its_own_format_and_its_answer_decides_the_delivery(
    servers: Servers, store: MatcherRecords, channel: str
) -> None:
    path, took, refused = BOTS[channel]
    taken, turned_down = a_match("arxiv:2605.00001"), a_match("arxiv:2605.00002")
    async with Webhooks(store, settings(servers)) as webhooks:
        with Receiver([200], answer=took) as receiver:
            url = f"http://127.0.0.1:{receiver.server.server_port}{path}"
            await webhooks.queue(taken, url, channel)
            delivered = await webhooks.closed(taken, url)
        with Receiver([200], answer=refused) as refusing:
            url = f"http://127.0.0.1:{refusing.server.server_port}{path}"
            await webhooks.queue(turned_down, url, channel)
            failed = await webhooks.closed(turned_down, url)
    assert delivered["outcome"] == "delivered" and delivered["status"] == 200
    headers, body = receiver.requests[0]
    assert headers["content-type"] == "application/json; charset=utf-8"
    sent_as_the_bot_asks(channel, receiver.paths[0], json.loads(body))
    # the bot said no in its 200 answer: a failure, not tried again (a bad signature or a deleted bot stays so),
    # with the bot's code and message kept, and counted against the host
    assert failed["outcome"] == "failed" and len(refusing.requests) == 1
    code = json.loads(refused).get("code") or json.loads(refused).get("errcode")
    assert failed["error"].startswith(f"HTTP 200, bot error code {code}: ")
    assert failed["error"].endswith("(not retried)")
    endpoint = await store.endpoints.endpoint("u1", "127.0.0.1")
    assert endpoint["consecutive_failures"] == 1 and endpoint["last_error"] == failed["error"]


async def test_slack_gets_its_text_and_its_status_decides(servers: Servers, store: MatcherRecords) -> None:
    """Slack says no with its status code (a 404 `no_team`, as the real endpoint answers a deleted workspace's
    webhook): not retried, as for a generic webhook."""
    taken, turned_down = a_match("arxiv:2605.00001"), a_match("arxiv:2605.00002")
    path = "/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"
    async with Webhooks(store, settings(servers)) as webhooks:
        with Receiver([200], answer=b"ok") as receiver:
            url = f"http://127.0.0.1:{receiver.server.server_port}{path}"
            await webhooks.queue(taken, url, "slack")
            delivered = await webhooks.closed(taken, url)
        with Receiver([404], answer=b"no_team") as refusing:
            url = f"http://127.0.0.1:{refusing.server.server_port}{path}"
            await webhooks.queue(turned_down, url, "slack")
            failed = await webhooks.closed(turned_down, url)
    assert delivered["outcome"] == "delivered" and receiver.paths == [path]
    assert f"/papers/{taken.paper_id}|{taken.paper_title}>" in json.loads(receiver.requests[0][1])["text"]
    assert failed["outcome"] == "failed" and failed["error"] == "HTTP 404 (not retried)"
    assert len(refusing.requests) == 1


TELEGRAM_FLOOD = (
    b'{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 1","parameters":{"retry_after":1}}'
)


def telegram_url(receiver: Receiver) -> str:
    """A Telegram target as PaperTrail keeps it, at the local receiver (api.telegram.org's path and query)."""
    official = telegram.webhook_url(TELEGRAM_TOKEN, "-1001234567890")
    return official.replace("https://api.telegram.org", f"http://127.0.0.1:{receiver.server.server_port}")


async def test_telegram_gets_send_message_and_its_flood_limit_is_waited_for(
    servers: Servers, store: MatcherRecords, caplog: pytest.LogCaptureFixture
) -> None:
    """A chat over its flood limit answers 429 with `retry_after` (1 s here, the backoff 0.05 s): the next try is
    due no sooner, and then delivered. The bot's token is never logged, even with httpx's request log on."""
    caplog.set_level(logging.DEBUG, logger="papertrail")
    caplog.set_level(logging.INFO, logger="httpx")  # where an operator's LOG_LEVELS turns its request log on
    match = a_match()
    async with Webhooks(store, settings(servers)) as webhooks:
        with Receiver([429, 200], answers=(TELEGRAM_FLOOD, TELEGRAM_TOOK)) as receiver:
            url = telegram_url(receiver)
            await webhooks.queue(match, url, "telegram")
            delivery = await webhooks.closed(match, url)
    assert delivery["outcome"] == "delivered" and [a["status"] for a in delivery["attempts"]] == [429, 200]
    first, second = delivery["attempts"]
    assert second["at"] - first["at"] >= timedelta(seconds=1)
    assert receiver.paths == [f"/bot{TELEGRAM_TOKEN}/sendMessage"] * 2  # the token in the path, the chat in the body
    headers, body = receiver.requests[0]
    assert headers["content-type"] == "application/json; charset=utf-8"
    sent = json.loads(body)
    assert sent["chat_id"] == "-1001234567890" and sent["parse_mode"] == "HTML"
    assert f'/papers/{match.paper_id}">{match.paper_title}</a>' in sent["text"]
    requests_logged = [r.getMessage() for r in caplog.records if r.name == "httpx"]
    assert len(requests_logged) == 2 and all("/bot***ew11/sendMessage" in line for line in requests_logged)
    ours = [r.getMessage() + str(r.__dict__) for r in caplog.records if r.name.split(".")[0] in ("papertrail", "httpx")]
    assert ours and not any(TELEGRAM_TOKEN.split(":")[1] in line for line in ours)


async def test_a_telegram_refusal_is_kept_with_its_description_and_not_retried(
    servers: Servers, store: MatcherRecords
) -> None:
    match = a_match()
    gone = b'{"ok":false,"error_code":403,"description":"Forbidden: bot was kicked from the group chat"}'
    async with Webhooks(store, settings(servers)) as webhooks:
        with Receiver([403], answer=gone) as receiver:
            url = telegram_url(receiver)
            await webhooks.queue(match, url, "telegram")
            delivery = await webhooks.closed(match, url)
    assert delivery["outcome"] == "failed" and len(receiver.requests) == 1
    said = "HTTP 403, bot error code 403: Forbidden: bot was kicked from the group chat (not retried)"
    assert delivery["error"] == said
    endpoint = await store.endpoints.endpoint("u1", "127.0.0.1")
    assert endpoint["consecutive_failures"] == 1 and endpoint["last_error"] == delivery["error"]


async def test_a_receiver_that_never_answers_holds_up_no_other_users_delivery(
    servers: Servers, store: MatcherRecords
) -> None:
    config = settings(
        servers, webhook_timeout_s=60, webhook_per_address=1, webhook_allowed_hosts="slow.example,fast.example"
    )
    slow_match, fast_match = a_match(user_id="u1"), a_match(user_id="u2", follow_id="f2")
    slow_next = a_match("arxiv:2605.00002", user_id="u1")
    hosts = {"slow.example": "127.0.0.1", "fast.example": "127.0.0.2"}
    async with Webhooks(store, config, hosts) as webhooks:
        with Receiver([200], silent=True) as silent, Receiver([200], address="127.0.0.2") as answering:
            slow = silent.url.replace("127.0.0.1", "slow.example")
            fast = answering.url.replace("127.0.0.2", "fast.example")
            await webhooks.queue(slow_match, slow)
            await webhooks.queue(slow_next, slow)  # the slow host's next delivery: waits for the host's bound

            async def silent_took_one() -> bool:
                return bool(silent.requests)

            await wait_until_async(silent_took_one, 30, "the silent receiver's first request")
            await webhooks.queue(fast_match, fast)
            delivered = await webhooks.closed(fast_match, fast)
            # the other user's delivery arrived while the silent receiver holds the first one, unanswered
            assert delivered["outcome"] == "delivered" and len(answering.requests) == 1
            slow_ones = await store.deliveries.deliveries.find({"host": "slow.example"}).to_list()
            assert [d["outcome"] for d in slow_ones] == ["pending", "pending"]
            assert len(silent.requests) == 1  # one at a time to the slow host's address (WEBHOOK_PER_ADDRESS=1)


async def test_names_of_one_address_share_its_bound_and_leave_the_other_slots_to_others(
    servers: Servers, store: MatcherRecords
) -> None:
    """16 names of one wildcard domain, all one receiver that takes each request and never answers, each name the
    webhook of another user: they hold WEBHOOK_PER_ADDRESS of the WEBHOOK_CONCURRENCY slots, not all of them, and
    a delivery to another address goes through meanwhile."""
    names = tuple(f"r{n}.wild.example" for n in range(16))
    config = settings(
        servers, webhook_timeout_s=60, webhook_concurrency=4, webhook_per_address=2, webhook_per_user=4,
        webhook_allowed_hosts="127.0.0.0/8",
    )  # fmt: skip
    with Receiver([200], silent=True) as silent, Receiver([200], address="127.0.0.2") as answering:
        hosts = dict.fromkeys(names, "127.0.0.1") | {"other.example": "127.0.0.2"}
        async with Webhooks(store, config, hosts) as webhooks:
            for n, name in enumerate(names):
                match = a_match(f"arxiv:2605.{n:05d}", user_id=f"u{n}", follow_id=f"f{n}")
                await webhooks.queue(match, silent.url.replace("127.0.0.1", name))

            async def silent_holds_two() -> bool:
                return len(silent.requests) >= 2

            await wait_until_async(silent_holds_two, 30, "two requests held by the silent receiver")
            other, url = a_match(user_id="v1", follow_id="g1"), answering.url.replace("127.0.0.2", "other.example")
            await webhooks.queue(other, url)
            delivered = await webhooks.closed(other, url)
            assert delivered["outcome"] == "delivered" and len(answering.requests) == 1
            assert len(silent.requests) == 2  # the other 14 names wait for the address's bound
            assert webhooks.dispatcher.slots.receivers["127.0.0.1"] == 2
            waiting = await store.deliveries.deliveries.count_documents({"outcome": "pending", "claimed_until": None})
            assert waiting == 14


async def test_one_users_webhooks_at_many_addresses_hold_at_most_the_users_bound(
    servers: Servers, store: MatcherRecords
) -> None:
    """A user's three webhooks at three addresses, each a receiver that never answers: WEBHOOK_PER_USER of them are
    tried at once, and another user's delivery has a slot."""
    config = settings(
        servers, webhook_timeout_s=60, webhook_concurrency=3, webhook_per_address=2, webhook_per_user=2,
        webhook_allowed_hosts="127.0.0.0/8",
    )  # fmt: skip
    addresses = ("127.0.0.11", "127.0.0.12", "127.0.0.13")
    with contextlib.ExitStack() as receivers:
        silent = [receivers.enter_context(Receiver([200], silent=True, address=a)) for a in addresses]
        answering = receivers.enter_context(Receiver([200], address="127.0.0.2"))
        hosts = {f"hook{n}.one-user.example": a for n, a in enumerate(addresses)} | {"other.example": "127.0.0.2"}
        async with Webhooks(store, config, hosts) as webhooks:
            for n, receiver in enumerate(silent):
                match = a_match(f"arxiv:2605.{n:05d}", follow_id=f"f{n}")  # all of user u1
                await webhooks.queue(match, receiver.url.replace(addresses[n], f"hook{n}.one-user.example"))

            async def two_held() -> bool:
                return sum(len(r.requests) for r in silent) >= 2

            await wait_until_async(two_held, 30, "two of the user's requests held")
            other, url = a_match(user_id="v1", follow_id="g1"), answering.url.replace("127.0.0.2", "other.example")
            await webhooks.queue(other, url)
            assert (await webhooks.closed(other, url))["outcome"] == "delivered"
            assert sum(len(r.requests) for r in silent) == 2
            assert webhooks.dispatcher.slots.users["u1"] == 2


async def test_a_receiver_answering_just_inside_the_timeout_is_disabled_as_a_failing_one_would_be(
    servers: Servers, store: MatcherRecords
) -> None:
    """Answers that take 8 s of the 10 s timeout (by the sender's clock, which the receiver moves) are delivered but
    slow (over WEBHOOK_SLOW_FRACTION 0.5 of it): each counts against the host like a failure, a prompt answer starts
    the count again, and two slow ones in a row disable the user's webhooks there, the reason recorded."""
    clock = ManualClock()
    config = settings(
        servers, webhook_timeout_s=10, webhook_slow_fraction=0.5, webhook_max_attempts=1, webhook_disable_after=2
    )
    matches = [a_match(f"arxiv:2605.0000{n}") for n in range(5)]
    with Receiver([200], clock=clock, takes=(8.0, 1.0, 8.0, 8.0)) as receiver:
        async with Webhooks(store, config, clock=clock) as webhooks:
            closed = []
            for match in matches:  # one at a time: the answers take their times in this order
                await webhooks.queue(match, receiver.url)
                closed.append(await webhooks.closed(match, receiver.url))
    assert [d["outcome"] for d in closed] == ["delivered"] * 4 + ["skipped_disabled"]
    slow = "slow answer: HTTP 200 after 8.0 s (slow after 5 s)"
    assert [d.get("slow") for d in closed[:4]] == [slow, None, slow, slow]
    assert [d.get("disabled_endpoint") for d in closed[:4]] == [False, None, False, True]
    assert len(receiver.requests) == 4
    endpoint = await store.endpoints.endpoint("u1", "127.0.0.1")
    assert endpoint["disabled"] is True and endpoint["last_error"] == slow
    assert endpoint["disabled_reason"] == f"disabled after 2 consecutive failed or slow deliveries; last: {slow}"
    assert closed[4]["error"] == endpoint["disabled_reason"]


async def test_an_answer_sent_a_byte_at_a_time_is_cut_off_at_the_timeout(
    servers: Servers, store: MatcherRecords
) -> None:
    """Each byte of the answer comes well inside a read's timeout, the whole of it (3.6 s) well after the request's:
    no answer, as a receiver that never answers, so it cannot hold a slot for as long as it likes."""
    config = settings(servers, webhook_timeout_s=0.5, webhook_max_attempts=1)
    match = a_match()
    with Receiver([200], trickle_s=0.1) as trickling:
        async with Webhooks(store, config) as webhooks:
            await webhooks.queue(match, trickling.url)
            delivery = await webhooks.closed(match, trickling.url)
    assert delivery["outcome"] == "failed" and delivery["error"] == "no answer after 1 attempts"
    assert not trickling.trickled.is_set()  # hung up on before its end


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    with smtp_server() as server:
        yield server


async def test_daily_digest_grouped_by_topic_is_stored_and_mailed(
    servers: Servers, store: MatcherRecords, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    await store.reads.users.insert_one({"_id": "u1", "name": "lin", "email": "lin@example.org"})
    day_start = datetime(2026, 5, 4, 16, 0, tzinfo=UTC)  # 2026-05-05 00:00 in Beijing
    topic_reason = MatchReason(subtopic="math reasoning", term="reasoning", field="abstract", categories=["cs.CL"])
    for match in [
        a_match(
            "arxiv:2605.00674",
            follow_id="t1",
            follow_kind="topic",
            follow_name="LLM reasoning",
            topic_id="llm-reasoning",
            paper_title="Beyond Benchmarks: MathArena",
            reasons=[topic_reason],
            matched_at=day_start + timedelta(hours=2),
        ),
        a_match("arxiv:2605.01386", matched_at=day_start + timedelta(hours=5)),
        a_match("arxiv:2605.00631", matched_at=day_start - timedelta(minutes=1)),  # the day before, in Beijing
    ]:
        await store.matches.record(match)
    maker = DigestMaker(store, settings(servers, smtp_host="127.0.0.1", smtp_port=port))
    now = datetime(2026, 5, 6, 1, 0, tzinfo=UTC)  # 09:00 on 05-06 in Beijing: 05-05 is over
    done = await maker.run_once(now, days_back=1)
    assert done == ["u1:2026-05-05", "u1:2026-05-05"]  # stored, then mailed
    assert await maker.run_once(now, days_back=1) == []  # nothing twice
    digest = await store.digests.digest("u1", "2026-05-05")
    assert digest is not None and digest["sent_to"] == "lin@example.org"
    topics = digest["digest"]["topics"]
    assert [t["title"] for t in topics] == ["LLM reasoning", "retrieval for LLMs"]
    assert [p["paper_id"] for p in topics[0]["papers"]] == ["arxiv:2605.00674"]
    assert topics[0]["papers"][0]["reasons"] == ["math reasoning: reasoning (in the abstract)"]
    assert [p["paper_id"] for p in topics[1]["papers"]] == ["arxiv:2605.01386"]
    assert len(inbox.messages) == 1
    mail = inbox.messages[0]
    assert mail["To"] == "lin@example.org"
    assert mail["Subject"] == "研踪日报 2026-05-05:2 篇论文 / PaperTrail digest 2026-05-05: 2 papers"
    html = next(part for part in mail.walk() if part.get_content_type() == "text/html").get_payload(decode=True)
    assert b"Beyond Benchmarks: MathArena" in html and b"LLM reasoning" in html


async def test_two_matcher_replicas_mail_each_digest_once(
    servers: Servers, store: MatcherRecords, smtp: tuple[Inbox, int]
) -> None:
    """Both replicas run their digest loop at the same moment (compose scales the matcher to two)."""
    inbox, port = smtp
    users = [f"u{n}" for n in range(6)]
    for user in users:
        await store.reads.users.insert_one({"_id": user, "name": user, "email": f"{user}@example.org"})
        await store.matches.record(
            a_match(user_id=user, follow_id=f"f-{user}", matched_at=datetime(2026, 5, 5, 3, tzinfo=UTC))
        )
    config = settings(servers, smtp_host="127.0.0.1", smtp_port=port)
    other_client: AsyncMongoClient = AsyncMongoClient(servers.mongodb_url, tz_aware=True)
    try:
        other = MatcherRecords.of(
            other_client[store.digests.digests.database.name]
        )  # the second replica's own connection
        now = datetime(2026, 5, 6, 1, 0, tzinfo=UTC)
        await asyncio.gather(DigestMaker(store, config).run_once(now, 1), DigestMaker(other, config).run_once(now, 1))
    finally:
        await other_client.close()
    assert sorted(message["To"] for message in inbox.messages) == sorted(f"{u}@example.org" for u in users)
    for user in users:
        digest = await store.digests.digest(user, "2026-05-05")
        assert digest is not None and digest["sent_to"] == f"{user}@example.org" and "mail_claimed_until" not in digest


async def test_a_failed_mail_frees_the_digest_for_the_next_run(servers: Servers, store: MatcherRecords) -> None:
    await store.reads.users.insert_one({"_id": "u1", "name": "lin", "email": "lin@example.org"})
    await store.matches.record(a_match(matched_at=datetime(2026, 5, 5, 3, tzinfo=UTC)))
    now = datetime(2026, 5, 6, 1, 0, tzinfo=UTC)
    unreachable = settings(servers, smtp_host="127.0.0.1", smtp_port=free_port(), smtp_timeout_s=2)
    assert await DigestMaker(store, unreachable).run_once(now, 1) == ["u1:2026-05-05"]  # stored, not mailed
    digest = await store.digests.digest("u1", "2026-05-05")
    assert digest is not None and "sent_at" not in digest and "mail_claimed_until" not in digest
    assert await store.digests.claim_digest_mail("u1:2026-05-05", now, timedelta(minutes=1))  # free for the next run


async def test_the_digest_adds_the_readers_picks_that_the_query_service_ranked(
    servers: Servers, store: MatcherRecords, smtp: tuple[Inbox, int]
) -> None:
    """reader_picks as the query service writes them (services/query/recommender/recommend.py: store_picks); a pick
    the follows matched already is not listed twice."""
    inbox, port = smtp
    await store.reads.users.insert_one({"_id": "u2", "name": "mei", "email": "mei@example.org"})
    day_start = datetime(2026, 5, 4, 16, 0, tzinfo=UTC)
    await store.matches.record(a_match("arxiv:2605.01386", user_id="u2", matched_at=day_start + timedelta(hours=5)))
    picks = [
        {"paper_id": "arxiv:2605.01386", "title": "Matched already", "score": 0.93},
        {"paper_id": "arxiv:2605.00674", "title": "Beyond Benchmarks: MathArena", "score": 0.88},
        {"paper_id": "arxiv:2605.00631", "title": "Third pick", "score": 0.5},
    ]
    await store.reads.reader_picks.replace_one(
        {"_id": "u2"}, {"user_id": "u2", "computed_at": day_start, "picks": picks}, upsert=True
    )
    maker = DigestMaker(store, settings(servers, smtp_host="127.0.0.1", smtp_port=port, digest_picks=2))
    await maker.run_once(datetime(2026, 5, 6, 1, 0, tzinfo=UTC), days_back=1)
    digest = await store.digests.digest("u2", "2026-05-05")
    assert digest is not None
    assert [p["paper_id"] for p in digest["digest"]["for_you"]] == ["arxiv:2605.00674"]  # top 2, one matched
    [mail] = inbox.messages
    html = next(part for part in mail.walk() if part.get_content_type() == "text/html").get_payload(decode=True)
    assert "为你推荐".encode() in html and b"Beyond Benchmarks: MathArena" in html
    text = next(part for part in mail.walk() if part.get_content_type() == "text/plain").get_payload(decode=True)
    assert "为你推荐".encode() in text


async def test_the_digest_reminds_of_the_deadlines_of_followed_venues(
    servers: Servers, store: MatcherRecords, smtp: tuple[Inbox, int]
) -> None:
    """Venue follows as the query service stores them, the shipped catalogue's ICML 2026 deadlines (ccf-deadlines):
    a reader with no paper that day gets a digest two days before the abstract deadline, listing both of the
    edition's deadlines in Beijing time; a follow of an edition whose deadlines have passed reminds of nothing."""
    from papertrail.domain.venues.catalogue import default_index
    from papertrail.domain.venues.deadlines import upcoming_deadlines

    inbox, port = smtp
    for user in ("u3", "u4"):
        await store.reads.users.insert_one({"_id": user, "name": user, "email": f"{user}@example.org"})
    await store.reads.follows.insert_many(
        [
            {"_id": "v1", "user_id": "u3", "kind": "venue", "name": "ICML 2026", "venue_key": "AI/icml",
             "venue_year": 2026, "created_at": datetime(2025, 12, 1, tzinfo=UTC)},
            {"_id": "v2", "user_id": "u4", "kind": "venue", "name": "ICML 2025", "venue_key": "AI/icml",
             "venue_year": 2025, "created_at": datetime(2025, 12, 1, tzinfo=UTC)},
        ]
    )  # fmt: skip
    now = datetime(2026, 1, 22, 1, 0, tzinfo=UTC)  # 09:00 on 01-22 in Beijing: the digest of 01-21
    icml = [d for d in upcoming_deadlines([default_index().venues["AI/icml"]], now) if d.edition.year == 2026]
    assert [d.kind for d in icml] == ["abstract", "paper"]
    done = await DigestMaker(store, settings(servers, smtp_host="127.0.0.1", smtp_port=port)).run_once(now, 1)
    assert done == ["u3:2026-01-21", "u3:2026-01-21"]  # stored and mailed; u4's edition is over
    digest = await store.digests.digest("u3", "2026-01-21")
    assert digest is not None and digest["digest"]["papers"] == 0
    assert digest["digest"]["subject"] == "研踪日报 2026-01-21:截稿临近 / PaperTrail digest 2026-01-21: deadlines ahead"
    shown = [(d["venue"], d["year"], d["kind"], d["at"], d["days_left"]) for d in digest["digest"]["deadlines"]]
    day_end = datetime(2026, 1, 21, 16, 0, tzinfo=UTC)
    assert shown == [("ICML", 2026, d.kind, d.at.isoformat(), (d.at - day_end).days) for d in icml]
    assert shown[0][4] == 2 and digest["digest"]["deadlines"][0]["local"] == "2026-01-24 19:59"
    [mail] = inbox.messages
    text = next(part for part in mail.walk() if part.get_content_type() == "text/plain").get_payload(decode=True)
    assert "截稿提醒".encode() in text and b"ICML 2026" in text
    assert await store.digests.digest("u4", "2026-01-21") is None


async def test_the_digest_reminds_from_the_harvested_catalogue(
    servers: Servers, store: MatcherRecords, smtp: tuple[Inbox, int]
) -> None:
    """The harvester's reading of ccf-deadlines is what a reminder reads: ICML as ccf-deadlines had it in October 2025
    (its 2026 deadlines TBD, tests/fixtures/sources/ccf-deadlines-history) stands over the shipped catalogue's, so a
    follow of ICML 2026 is reminded of nothing on the day the shipped catalogue would remind it."""
    from papertrail.domain.venues.catalogue import default_index
    from papertrail.domain.venues.ccfddl import build_venues
    from papertrail.domain.venues.deadlines import upcoming_deadlines
    from services.harvester.store import VenueCatalogueStore
    from tests.support.paths import SOURCES

    inbox, port = smtp
    await store.reads.users.insert_one({"_id": "u5", "name": "u5", "email": "u5@example.org"})
    await store.reads.follows.insert_one(
        {"_id": "v5", "user_id": "u5", "kind": "venue", "name": "ICML 2026", "venue_key": "AI/icml",
         "venue_year": 2026, "created_at": datetime(2025, 12, 1, tzinfo=UTC)}
    )  # fmt: skip
    now = datetime(2026, 1, 22, 1, 0, tzinfo=UTC)
    assert upcoming_deadlines([default_index().venues["AI/icml"]], now)  # the shipped catalogue would remind
    october = (SOURCES / "ccf-deadlines-history/4d5483f3/conference/AI/icml.yml").read_bytes()
    (icml,) = build_venues({"conference/AI/icml.yml": october}).venues
    await VenueCatalogueStore(store.matches.matches.database).save([(icml, "conference/AI/icml.yml")], None, now)
    done = await DigestMaker(store, settings(servers, smtp_host="127.0.0.1", smtp_port=port)).run_once(now, 1)
    assert done == [] and await store.digests.digest("u5", "2026-01-21") is None and inbox.messages == []
