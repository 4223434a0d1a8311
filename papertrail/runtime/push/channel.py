"""What a push channel is: how a match becomes the request its bot takes (URL, JSON body, headers), which hosts the
bot's webhooks are on, and how the bot's answer says it refused a message it took with HTTP 200. No I/O."""

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from papertrail.domain.follows.reasons import reason_text
from papertrail.runtime.wording import Translator
from schemas.events import FollowMatched

Language = Literal["zh", "en"]
LANGUAGES: tuple[Language, ...] = ("zh", "en")
# a bot's answer read past this is not read: its error code and message come first, and a receiver cannot make the
# matcher hold a huge one
ANSWER_LIMIT = 16 * 1024


@dataclass(frozen=True, slots=True)
class PushRequest:
    """One POST to a bot: where (the webhook URL, with a signature in its query when the bot wants it there), the
    exact JSON body and the headers."""

    url: str
    body: bytes
    headers: dict[str, str]


@dataclass(frozen=True, slots=True)
class Message:
    """A match as a bot message shows it, in the reader's language: a heading, the paper's title, why it matched and
    the link to the paper's page."""

    heading: str
    title: str
    reasons: str
    link: str

    def lines(self) -> list[str]:
        return [self.heading, self.title, self.reasons, self.link]


def match_message(match: FollowMatched, language: Language, public_url: str) -> Message:
    """The message of a match; `public_url`: the query service's base URL (the paper page is /papers/{id})."""
    t = Translator(language)
    follow = match.follow_name or match.topic_id or match.follow_id
    title = match.paper_title or match.paper_id
    reasons = "; ".join(reason_text(r.model_dump(), t, chinese_names=language == "zh") for r in match.reasons)
    link = f"{public_url.rstrip('/')}/papers/{match.paper_id}"
    return Message(
        t.gettext("[PaperTrail] New paper for “%(follow)s”", follow=follow),
        title,
        t.gettext("Why: %(reasons)s", reasons=reasons),
        link,
    )


def masked(secret: str) -> str:
    """A credential as the API shows it: its last four characters, so a reader can tell which one it is."""
    return "***" + secret[-4:] if len(secret) > 8 else "***"


def masked_url(url: str) -> str:
    """A bot's webhook URL as the API shows it: the token in its last path segment (Feishu), in a `bot<token>`
    segment (Telegram) and every query value (DingTalk's access_token, WeCom's key) masked; whoever holds the URL
    can post to the group."""
    parts = urlsplit(url)
    head, _, last = parts.path.rpartition("/")
    segments = parts.path.split("/")
    if any(s.startswith("bot") and ":" in s for s in segments):  # Telegram's: its own segment, the method after it
        path = "/".join("bot" + masked(s[3:]) if s.startswith("bot") and ":" in s else s for s in segments)
    else:
        path = f"{head}/{masked(last)}" if parts.query == "" and last else parts.path
    query = "&".join(f"{key}={masked(value)}" for key, value in parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit((parts.scheme, parts.netloc, path, query, ""))


def json_body(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def answer_error(answer: bytes, code_keys: tuple[str, ...], message_keys: tuple[str, ...]) -> str | None:
    """The error a bot's JSON answer names (`code 19021: sign match fail ...`), or None when its code is 0 or it
    has none (an answer that is no JSON object says nothing against the delivery its status code already judged)."""
    try:
        found = json.loads(answer[:ANSWER_LIMIT])
    except ValueError:
        return None
    if not isinstance(found, dict):
        return None
    code = next((found[key] for key in code_keys if key in found), 0)
    if code in (0, "0", None):
        return None
    message = next((str(found[key]) for key in message_keys if found.get(key)), "")
    return f"code {code}: {message[:200]}" if message else f"code {code}"


@dataclass(frozen=True, slots=True)
class Channel:
    """A push channel: its name; the hosts its webhooks are on (a URL elsewhere is refused when it is set: a bot's
    URL is copied from the bot's settings, and one elsewhere is a mistake or a way around the channel); whether it
    signs with a secret the bot gives; the request for a match; the error its answer names (a 200 answer's is a
    refusal; another status's says why); the wait a flood-limited answer asks for, if the bot documents one."""

    name: str
    hosts: tuple[str, ...]
    signs: bool
    request: Callable[[Message, str, str | None, datetime], PushRequest]  # message, webhook URL, secret, now
    refusal: Callable[[bytes], str | None]
    retry_after: Callable[[bytes], float | None] | None = None

    def url_problem(self, url: str) -> str | None:
        """Why the URL is no webhook of this channel, or None."""
        parts = urlsplit(url)
        if parts.scheme != "https" or (parts.hostname or "") not in self.hosts:
            return f"a {self.name} webhook is an https URL on {' or '.join(self.hosts)}"
        return None
