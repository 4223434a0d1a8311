"""Slack incoming webhook, as documented at https://docs.slack.dev/messaging/sending-messages-using-incoming-webhooks:
POST JSON `{"text": ...}` to `https://hooks.slack.com/services/T…/B…/…` (the URL is the credential; there is no
signature), the text in Slack's mrkdwn (`*bold*`, links as `<url|text>`; `&`, `<` and `>` escaped as `&amp;`,
`&lt;`, `&gt;`, per https://docs.slack.dev/messaging/formatting-message-text). Slack answers `200 ok`, and an error
with its HTTP status (400 `invalid_payload`, 403 `action_prohibited`, 404 `no_team`, 410 `channel_is_archived`):
the status decides, as for a generic webhook."""

from datetime import datetime

from papertrail.runtime.push.channel import Channel, Message, PushRequest, json_body


def escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def request(message: Message, url: str, secret: str | None, now: datetime) -> PushRequest:
    # the link's text is the title, escaped like any text; the URL is ours
    text = f"*{escaped(message.heading)}*\n<{message.link}|{escaped(message.title)}>\n{escaped(message.reasons)}"
    return PushRequest(url, json_body({"text": text}), {"content-type": "application/json; charset=utf-8"})


def refusal(answer: bytes) -> str | None:
    return None  # Slack says no with its status code


CHANNEL = Channel("slack", ("hooks.slack.com",), False, request, refusal)
