"""WeCom (企业微信) group robot (群机器人), as documented at https://developer.work.weixin.qq.com/document/path/91770:
POST JSON to `https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=<key>` (the key is the credential; there is no
signature), a markdown message `{"msgtype": "markdown", "markdown": {"content": ...}}` (at most 4096 bytes of
UTF-8). The robot answers HTTP 200 with `{"errcode": 0, "errmsg": "ok"}`; a refusal has a non-zero `errcode`
(`93000`, invalid webhook URL; `45009`, too many messages)."""

from datetime import datetime

from papertrail.runtime.push.channel import Channel, Message, PushRequest, answer_error, json_body

CONTENT_LIMIT = 4096  # bytes of UTF-8, the documented bound of markdown.content


def request(message: Message, url: str, secret: str | None, now: datetime) -> PushRequest:
    link = f"[{message.link}]({message.link})"
    head = f"### {message.heading}\n**{message.title}**\n"
    reasons = f"> {message.reasons}\n"
    room = CONTENT_LIMIT - len((head + link).encode())
    if len(reasons.encode()) > room:  # the reasons give way, never the link
        reasons = reasons.encode()[: max(room - 4, 0)].decode("utf-8", "ignore") + "…\n"
    body = json_body({"msgtype": "markdown", "markdown": {"content": head + reasons + link}})
    return PushRequest(url, body, {"content-type": "application/json; charset=utf-8"})


def refusal(answer: bytes) -> str | None:
    return answer_error(answer, ("errcode",), ("errmsg",))


CHANNEL = Channel("wecom", ("qyapi.weixin.qq.com",), False, request, refusal)
