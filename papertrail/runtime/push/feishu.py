"""Feishu (飞书) / Lark custom bot (自定义机器人), as documented at
https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot: POST JSON to
`https://open.feishu.cn/open-apis/bot/v2/hook/<token>` (Lark: open.larksuite.com), a rich-text message
`{"msg_type": "post", "content": {"post": {"zh_cn": {"title": ..., "content": [[{"tag": "text", "text": ...},
{"tag": "a", "text": ..., "href": ...}]]}}}}`. With signature verification (签名校验) on, the body also carries
`timestamp` (seconds, within an hour of the bot's clock) and `sign`: Base64 of HMAC-SHA256 keyed with
`timestamp + "\\n" + secret` over an empty message (the documented code keys the HMAC with that string; DingTalk
keys it with the secret). The bot answers HTTP 200 either way; a refusal has a non-zero `code` and its `msg`
(`{"code": 19021, "msg": "sign match fail or timestamp is not within one hour from current time"}`); older bots
answer success as `{"StatusCode": 0, "StatusMessage": "success"}`."""

import base64
import hashlib
import hmac
from datetime import datetime
from typing import Any

from papertrail.runtime.push.channel import Channel, Message, PushRequest, answer_error, json_body


def sign(timestamp: int, secret: str) -> str:
    key = f"{timestamp}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode("ascii")


def request(message: Message, url: str, secret: str | None, now: datetime) -> PushRequest:
    lines: list[list[dict[str, str]]] = [
        [{"tag": "text", "text": message.title}],
        [{"tag": "text", "text": message.reasons}],
        [{"tag": "a", "text": message.link, "href": message.link}],
    ]
    payload: dict[str, Any] = {
        "msg_type": "post",
        "content": {"post": {"zh_cn": {"title": message.heading, "content": lines}}},
    }
    if secret:
        timestamp = int(now.timestamp())
        payload = {"timestamp": str(timestamp), "sign": sign(timestamp, secret)} | payload
    return PushRequest(url, json_body(payload), {"content-type": "application/json; charset=utf-8"})


def refusal(answer: bytes) -> str | None:
    return answer_error(answer, ("code", "StatusCode"), ("msg", "StatusMessage"))


CHANNEL = Channel("feishu", ("open.feishu.cn", "open.larksuite.com"), True, request, refusal)
