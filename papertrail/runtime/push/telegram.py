"""Telegram bot, as the Bot API documents it (https://core.telegram.org/bots/api):

- "All queries to the Telegram Bot API must be served over HTTPS and need to be presented in this form:
  `https://api.telegram.org/bot<token>/METHOD_NAME`" (#making-requests); the token ("something like
  `123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11`") is the bot's credential, given by @BotFather.
- `sendMessage` (#sendmessage): `chat_id` ("Integer or String ... Unique identifier for the target chat or username of
  the target channel (in the format @channelusername)"), `text` ("Text of the message to be sent, 1-4096 characters
  after entities parsing"), `parse_mode` ("Mode for parsing entities in the message text"); parameters may be sent as
  application/json.
- HTML style (#html-style): `<b>`, `<a href="...">`; "All `<`, `>` and `&` symbols that are not a part of a tag or an
  HTML entity must be replaced with the corresponding HTML entities (`<` with `&lt;`, `>` with `&gt;` and `&` with
  `&amp;`)", and of named entities only `&lt;`, `&gt;`, `&amp;` and `&quot;` are supported.
- The answer (#making-requests): "a JSON object, which always has a Boolean field 'ok' and may have an optional String
  field 'description' ... In case of an unsuccessful request, 'ok' equals false and the error is explained in the
  'description'. An Integer 'error_code' field is also returned ... Some errors may also have an optional field
  'parameters' of the type ResponseParameters"; ResponseParameters.retry_after (#responseparameters): "In case of
  exceeding flood control, the number of seconds left to wait before the request can be repeated".

A reader gives the bot's token and the chat's id; PaperTrail keeps them as the one URL
`https://api.telegram.org/bot<token>/sendMessage?chat_id=<chat>` (a form the Bot API takes as it is: parameters may
be passed in the query string), so the token lives where every other bot's credential does, in the webhook URL, and
is masked wherever the URL is shown. The request moves `chat_id` into the JSON body. There is no signature: the token
in the path is the credential. Telegram says no with its HTTP status (400 chat not found, 401 a revoked token, 403 the
bot was removed, 429 flood control), the answer's `description` saying why."""

import html
import json
import re
from datetime import datetime
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

from papertrail.runtime.push.channel import ANSWER_LIMIT, Channel, Message, PushRequest, json_body

HOST = "api.telegram.org"
TEXT_LIMIT = 4096  # characters after entities parsing: what the chat shows, tags and entities read as their text
# the token's documented shape (`123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11`): digits, a colon, URL-safe characters;
# anything else could step out of its path segment
TOKEN = re.compile(r"^[0-9]{1,20}:[A-Za-z0-9_-]{20,100}$")
# a chat's numeric id (a group's and a channel's are negative) or a public channel's @username
CHAT_ID = re.compile(r"^(-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$")
# longer than this, a flood limit's wait is not waited for by one delivery: it is tried again within the day
MAX_RETRY_AFTER_S = 24 * 3600.0


class BadTelegramTarget(ValueError):
    """A token or chat id that is not of the documented shape: the field and the rule."""


def webhook_url(token: str, chat_id: str) -> str:
    """The URL PaperTrail keeps for a bot's chat; BadTelegramTarget names the field that is wrong."""
    if not TOKEN.match(token):
        raise BadTelegramTarget("secret: a Telegram bot token reads `123456789:AA…` (digits, a colon, its key)")
    if not CHAT_ID.match(chat_id):
        raise BadTelegramTarget("chat_id: a chat's numeric id (-1001234567890) or a channel's @username")
    return f"https://{HOST}/bot{token}/sendMessage?chat_id={quote(chat_id, safe='@')}"


def escaped(text: str) -> str:
    """Text for HTML parse mode: the three symbols the documentation names, and nothing else."""
    return html.escape(text, quote=False)


def request(message: Message, url: str, secret: str | None, now: datetime) -> PushRequest:
    parts = urlsplit(url)
    chat_id = dict(parse_qsl(parts.query)).get("chat_id", "")
    # the visible text is bounded (4096 characters after entities parsing): the reasons give way, never the link
    room = TEXT_LIMIT - len(f"{message.heading}\n{message.title}\n")  # the link is the title's, not shown
    reasons = message.reasons if len(message.reasons) <= room else message.reasons[: max(room - 1, 0)] + "…"
    text = (
        f"<b>{escaped(message.heading)}</b>\n"
        f'<a href="{html.escape(message.link, quote=True)}">{escaped(message.title)}</a>\n'
        f"{escaped(reasons)}"
    )
    body = json_body({"chat_id": chat_id, "text": text, "parse_mode": "HTML"})
    target = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
    return PushRequest(target, body, {"content-type": "application/json; charset=utf-8"})


def _answer(answer: bytes) -> dict[str, object] | None:
    try:
        found = json.loads(answer[:ANSWER_LIMIT])
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def refusal(answer: bytes) -> str | None:
    """The error an answer with `"ok": false` explains (`code 403: Forbidden: bot was kicked from the group chat`);
    None for `"ok": true` or an answer that is no Bot API answer."""
    found = _answer(answer)
    if found is None or found.get("ok") is not False:
        return None
    code, description = found.get("error_code"), str(found.get("description") or "")[:200]
    return f"code {code}: {description}" if description else f"code {code}"


def retry_after(answer: bytes) -> float | None:
    """The seconds a flood-limited answer says to wait (`parameters.retry_after`), if it says."""
    found = _answer(answer)
    parameters = found.get("parameters") if found else None
    wait = parameters.get("retry_after") if isinstance(parameters, dict) else None
    if isinstance(wait, bool) or not isinstance(wait, int | float) or wait < 0:
        return None
    return min(float(wait), MAX_RETRY_AFTER_S)


CHANNEL = Channel("telegram", (HOST,), False, request, refusal, retry_after)
