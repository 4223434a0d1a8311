"""DingTalk (钉钉) custom robot (自定义机器人), as documented at https://open.dingtalk.com/document/robots/custom-robot-access
and https://open.dingtalk.com/document/robots/customize-robot-security-settings: POST JSON to
`https://oapi.dingtalk.com/robot/send?access_token=<token>`, a markdown message
`{"msgtype": "markdown", "markdown": {"title": ..., "text": ...}}`. With signing (加签) on, the URL's query also
carries `timestamp` (milliseconds, within an hour of the robot's clock) and `sign`: Base64 of HMAC-SHA256 keyed with
the secret (the `SEC…` string) over `timestamp + "\\n" + secret`, URL-encoded. The robot answers HTTP 200 either way
with `{"errcode": 0, "errmsg": "ok"}`; a refusal has a non-zero `errcode` (`310000`, `sign not match`)."""

import base64
import hashlib
import hmac
from datetime import datetime

import httpx

from papertrail.runtime.push.channel import Channel, Message, PushRequest, answer_error, json_body


def sign(timestamp_ms: int, secret: str) -> str:
    """The signature before URL encoding (httpx encodes the query parameter: `+` `/` `=` as %2B %2F %3D)."""
    digest = hmac.new(secret.encode(), f"{timestamp_ms}\n{secret}".encode(), hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


def request(message: Message, url: str, secret: str | None, now: datetime) -> PushRequest:
    # markdown wants a blank line between paragraphs; the link as [text](url)
    text = f"#### {message.heading}\n\n**{message.title}**\n\n{message.reasons}\n\n[{message.link}]({message.link})"
    body = json_body({"msgtype": "markdown", "markdown": {"title": message.heading, "text": text}})
    if secret:
        timestamp_ms = int(now.timestamp() * 1000)
        signed = {"timestamp": str(timestamp_ms), "sign": sign(timestamp_ms, secret)}
        url = str(httpx.URL(url).copy_merge_params(signed))
    return PushRequest(url, body, {"content-type": "application/json; charset=utf-8"})


def refusal(answer: bytes) -> str | None:
    return answer_error(answer, ("errcode",), ("errmsg",))


CHANNEL = Channel("dingtalk", ("oapi.dingtalk.com",), True, request, refusal)
