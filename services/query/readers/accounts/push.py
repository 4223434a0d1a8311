"""Where a reader's matches are pushed: a push target (a generic webhook, a group bot's webhook, a Telegram bot's chat)
checked as its channel documents it and as webhooks may reach it; the reader's named push channels, one of them the
default; and the channel each follow's matches go to (announced on follows.changed.v1 as the follow's update). The
API and the pages share these checks."""

import secrets
import uuid
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field, HttpUrl

from papertrail.runtime.outbound import OutboundPolicy, OutboundRefused
from papertrail.runtime.push import telegram
from papertrail.runtime.push.channel import Language, masked_url
from papertrail.runtime.push.channels import CHANNEL_NAMES, CHANNELS, GENERIC
from schemas.events import FollowChanged
from services.query.readers.accounts.follows import Announce, NoSuchFollow, NoSuchPushChannel, check_push_channel
from services.query.readers.repositories import ReaderRecords

MAX_PUSH_CHANNELS = 20
CHANNEL_ID_PATTERN = r"^[0-9a-f]{32}$"


class PushTarget(BaseModel):
    url: HttpUrl | None = Field(
        None,
        description="where each match is POSTed (a group bot: the webhook URL it gave); not for `telegram`, whose "
        "target is its bot token (`secret`) and `chat_id`",
    )
    channel: str = Field(
        GENERIC,
        description="`generic`: PaperTrail's signed JSON; `feishu`, `dingtalk`, `wecom`, `slack`, `telegram`: that "
        'bot\'s own message format (docs/operations.md, "Push channels")',
        examples=["feishu"],
    )
    secret: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="the signing secret a Feishu (签名校验) or DingTalk (加签, `SEC…`) bot gave, if signing is on; a "
        "Telegram bot's token (from @BotFather). Never shown again",
    )
    chat_id: str | None = Field(
        None,
        max_length=40,
        description="`telegram`: the chat the bot posts to: its numeric id (a group's is negative, "
        "-1001234567890) or a public channel's @username",
        examples=["-1001234567890"],
    )
    language: Language = Field("zh", description="the language of a bot's messages")


class BadPushTarget(ValueError):
    """A push target refused: the field and the rule, as a 422's detail says it."""


def checked_target(policy: OutboundPolicy, body: PushTarget) -> tuple[str, str | None]:
    """The URL to keep and the bot's signing secret (None: none, or a generic webhook's, which PaperTrail makes);
    BadPushTarget names the field when the channel is unknown, the URL is not its bot's or one webhooks may not
    reach, or a secret is given to a channel that signs with none of the reader's. The matcher checks the URL again,
    resolved, when it connects."""
    if body.channel not in CHANNEL_NAMES:
        raise BadPushTarget(f"channel: {body.channel!r} is none of {', '.join(CHANNEL_NAMES)}")
    if body.channel == telegram.CHANNEL.name:
        url, secret = _telegram_url(body), None  # the token is the URL's: masked wherever it is shown
    else:
        if body.url is None:
            raise BadPushTarget(f"url: a {body.channel} push target needs its URL")
        if body.chat_id is not None:
            raise BadPushTarget("chat_id: only a telegram target has a chat")
        url, secret = str(body.url), body.secret
        channel = CHANNELS.get(body.channel)
        if channel is None and secret is not None:
            raise BadPushTarget("secret: a generic webhook's secret is made by PaperTrail and shown once")
        if channel is not None and (problem := channel.url_problem(url)) is not None:
            raise BadPushTarget(f"url: {problem}")
        if channel is not None and secret is not None and not channel.signs:
            raise BadPushTarget(f"secret: a {channel.name} bot takes no signing secret (its key is in the URL)")
    try:
        policy.check_url(url)
    except OutboundRefused as error:
        raise BadPushTarget(f"url: {error}") from error
    return url, secret


def _telegram_url(body: PushTarget) -> str:
    if body.url is not None:
        raise BadPushTarget("url: a telegram target is its bot token (secret) and chat_id, not a URL")
    if body.secret is None or body.chat_id is None:
        raise BadPushTarget("secret: a telegram target needs its bot token (secret) and its chat_id")
    try:
        return telegram.webhook_url(body.secret, body.chat_id)
    except telegram.BadTelegramTarget as error:
        raise BadPushTarget(str(error)) from error


def shown_url(url: str, channel: str) -> str:
    """A target's URL as its owner sees it: a bot's masked (whoever holds it can post to the group)."""
    return masked_url(url) if channel in CHANNELS else url


class PushChannelCreate(PushTarget):
    name: str = Field(min_length=1, max_length=100, description="what you call it", examples=["实验室飞书群"])
    default: bool = Field(False, description="also make it where follows without a channel of their own push")


class PushChannelOut(BaseModel):
    id: str
    name: str
    channel: str = Field(description="`generic`, `feishu`, `dingtalk`, `wecom`, `slack` or `telegram`")
    url: str = Field(description="its URL, a bot's with its token masked (`***ab12`)")
    language: Language
    signed: bool = Field(description="its deliveries are signed (a generic webhook's always are)")
    default: bool = Field(False, description="follows without a channel of their own push here")
    secret: str | None = Field(
        None, description="a generic webhook's HMAC-SHA256 signing secret; shown once, in the answer that made it"
    )
    disabled: bool = Field(False, description="the matcher stopped delivering to its host after repeated failures")
    disabled_reason: str | None = None


class TooManyPushChannels(ValueError):
    """The user has MAX_PUSH_CHANNELS already."""


def channel_out(doc: dict[str, Any], default: str | None, endpoint: dict[str, Any] | None = None) -> PushChannelOut:
    found = endpoint or {}
    return PushChannelOut(
        id=doc["id"], name=doc["name"], channel=doc["channel"], url=shown_url(doc["url"], doc["channel"]),
        language=doc.get("language") or "zh", signed=bool(doc.get("signed")), default=doc["id"] == default,
        disabled=bool(found.get("disabled")), disabled_reason=found.get("disabled_reason"),
    )  # fmt: skip


async def add_push_channel(
    readers: ReaderRecords, policy: OutboundPolicy, user_id: str, body: PushChannelCreate
) -> PushChannelOut:
    """Check and keep a new push channel of the user's (BadPushTarget, TooManyPushChannels say why not); a generic
    webhook's signing secret is made here and shown once."""
    url, bot_secret = checked_target(policy, body)
    made = secrets.token_hex(32) if body.channel == GENERIC else None
    channel_id = uuid.uuid4().hex
    doc = {
        "id": channel_id, "name": body.name.strip() or body.channel, "channel": body.channel, "url": url,
        "secret": made or bot_secret, "language": body.language, "signed": bool(made or bot_secret),
    }  # fmt: skip
    if not await readers.users.add_push_channel(user_id, doc, MAX_PUSH_CHANNELS):
        raise TooManyPushChannels(f"you have {MAX_PUSH_CHANNELS} push channels already: remove one first")
    if body.default:
        await readers.users.set_push_default(user_id, channel_id)
    return channel_out(doc, channel_id if body.default else None).model_copy(update={"secret": made})


async def list_push_channels(readers: ReaderRecords, user_id: str) -> list[PushChannelOut]:
    channels, default = await readers.users.push_channels(user_id)
    return [
        channel_out(doc, default, await readers.deliveries.webhook_endpoint(user_id, doc["url"])) for doc in channels
    ]


async def remove_push_channel(readers: ReaderRecords, announce: Announce, user_id: str, channel_id: str) -> None:
    """Remove it; the follows that pushed there push to the default from now on (each announced so)."""
    if not await readers.users.remove_push_channel(user_id, channel_id):
        raise NoSuchPushChannel(f"you have no push channel {channel_id}")
    for follow, _ in await readers.follows.list_follows(user_id):
        if follow.push_channel_id == channel_id:
            await push_follow_to(readers, announce, user_id, follow.id, None)


async def set_push_default(readers: ReaderRecords, user_id: str, channel_id: str | None) -> None:
    if not await readers.users.set_push_default(user_id, channel_id):
        raise NoSuchPushChannel(f"you have no push channel {channel_id}")


async def push_follow_to(
    readers: ReaderRecords, announce: Announce, user_id: str, follow_id: str, channel_id: str | None
) -> None:
    """Send one follow's matches to one of the user's push channels (None: to the default), announced as the
    follow's update (the matcher routes its next matches so)."""
    await check_push_channel(readers, user_id, channel_id)
    found = await readers.follows.set_push_channel(user_id, follow_id, channel_id)
    if found is None:
        raise NoSuchFollow(f"no follow {follow_id}")
    follow = found[0]
    changed = FollowChanged(
        action="updated", follow_id=follow.id, user_id=user_id, follow=follow, changed_at=datetime.now(UTC)
    )
    await announce(changed)
