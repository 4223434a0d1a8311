"""Group-bot push channels (papertrail/runtime/push/): each bot's body and signature, built from a match, against the
values its documentation gives; the error each bot's 200 answer names. The signatures expected here were computed apart
from the code, with openssl, by each bot's documented recipe:

    Feishu:   printf '' | openssl dgst -sha256 -hmac "$(printf '1599360473\\nthis is secret')" -binary | base64
    DingTalk: printf '1599360473000\\nthis is secret' | openssl dgst -sha256 -hmac 'this is secret' -binary | base64

(1599360473 is the timestamp Feishu's custom-bot page gives as its example; `this is secret` the secret of
DingTalk's signing example.) The bots' error answers are replies recorded from the real endpoints (cited per case).
Telegram signs nothing: its token is the path's `bot<token>` segment (the Bot API's own example token is used here)."""

import json
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from papertrail.runtime.push import dingtalk, feishu, slack, telegram, wecom
from papertrail.runtime.push.channel import masked_url, match_message
from papertrail.runtime.push.channels import CHANNEL_NAMES, CHANNELS
from schemas.events import FollowMatched, MatchReason

NOW = datetime.fromtimestamp(1599360473, UTC)
SECRET = "this is secret"
FEISHU_SIGN = "/eYKrXQBzTjUZJ3s6NX16VxGbTwmK7AEs8/FnvC1CSw="
DINGTALK_SIGN = "hXZTWifRGHclNuZSKxoXc//sh51SWfVfRIhcdeKs63I="
SITE = "https://papertrail.example"
FEISHU_URL = "https://open.feishu.cn/open-apis/bot/v2/hook/2f52f9da-4bbb-4bae-8790-4369f4ae1a76"
DINGTALK_URL = "https://oapi.dingtalk.com/robot/send?access_token=abcdef0123456789"
SLACK_URL = "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"
WECOM_URL = "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa"
TELEGRAM_TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"  # the Bot API documentation's example token
TELEGRAM_URL = f"https://api.telegram.org/bot{TELEGRAM_TOKEN}/sendMessage?chat_id=-1001234567890"


def a_match(**fields: object) -> FollowMatched:
    values = {
        "user_id": "u1",
        "follow_id": "f1",
        "follow_kind": "keyword",
        "follow_name": "retrieval for LLMs",
        "paper_id": "arxiv:2605.01386",
        "paper_title": "MemORAI: Memory Organization and Retrieval via Adaptive Graph Intelligence",
        "reasons": [MatchReason(term="retrieval", field="title")],
        "matched_at": datetime(2026, 5, 5, 3, 0, tzinfo=UTC),
        **fields,
    }
    return FollowMatched.model_validate(values)


def test_the_message_is_in_the_readers_language_with_the_reasons_and_the_papers_link() -> None:
    zh = match_message(a_match(), "zh", SITE + "/")
    en = match_message(a_match(), "en", SITE)
    assert zh.heading == "【研踪】「retrieval for LLMs」有新论文"
    assert zh.reasons == "匹配原因：retrieval(标题)"
    assert en.heading == "[PaperTrail] New paper for “retrieval for LLMs”"
    assert en.reasons == "Why: retrieval (in the title)"
    assert zh.link == en.link == f"{SITE}/papers/arxiv:2605.01386"
    assert zh.title == en.title == "MemORAI: Memory Organization and Retrieval via Adaptive Graph Intelligence"
    tsinghua = [MatchReason(term="Tsinghua University", term_zh="清华大学", field="institution")]
    assert match_message(a_match(reasons=tsinghua), "zh", SITE).reasons == "匹配原因：作者来自 清华大学"
    assert match_message(a_match(reasons=tsinghua), "en", SITE).reasons == "Why: an author at Tsinghua University"


def test_feishu_signed_post_message() -> None:
    push = feishu.request(match_message(a_match(), "zh", SITE), FEISHU_URL, SECRET, NOW)
    assert push.url == FEISHU_URL  # Feishu's signature is in the body
    assert json.loads(push.body) == {
        "timestamp": "1599360473",
        "sign": FEISHU_SIGN,
        "msg_type": "post",
        "content": {
            "post": {
                "zh_cn": {
                    "title": "【研踪】「retrieval for LLMs」有新论文",
                    "content": [
                        [{"tag": "text", "text": "MemORAI: Memory Organization and Retrieval via Adaptive Graph "
                          "Intelligence"}],
                        [{"tag": "text", "text": "匹配原因：retrieval(标题)"}],
                        [{"tag": "a", "text": f"{SITE}/papers/arxiv:2605.01386",
                          "href": f"{SITE}/papers/arxiv:2605.01386"}],
                    ],
                }
            }
        },
    }  # fmt: skip


def test_feishu_without_a_secret_is_unsigned() -> None:
    body = json.loads(feishu.request(match_message(a_match(), "en", SITE), FEISHU_URL, None, NOW).body)
    assert "sign" not in body and "timestamp" not in body and body["msg_type"] == "post"


def test_dingtalk_signed_markdown_with_the_signature_in_the_query() -> None:
    push = dingtalk.request(match_message(a_match(), "zh", SITE), DINGTALK_URL, SECRET, NOW)
    query = parse_qs(urlsplit(push.url).query)
    assert query == {"access_token": ["abcdef0123456789"], "timestamp": ["1599360473000"], "sign": [DINGTALK_SIGN]}
    assert push.url.endswith("&sign=hXZTWifRGHclNuZSKxoXc%2F%2Fsh51SWfVfRIhcdeKs63I%3D")  # url-encoded, as documented
    assert json.loads(push.body) == {
        "msgtype": "markdown",
        "markdown": {
            "title": "【研踪】「retrieval for LLMs」有新论文",
            "text": "#### 【研踪】「retrieval for LLMs」有新论文\n\n**MemORAI: Memory Organization and Retrieval via "
            "Adaptive Graph Intelligence**\n\n匹配原因：retrieval(标题)\n\n"
            f"[{SITE}/papers/arxiv:2605.01386]({SITE}/papers/arxiv:2605.01386)",
        },
    }


def test_dingtalk_without_a_secret_keeps_its_url() -> None:
    assert dingtalk.request(match_message(a_match(), "zh", SITE), DINGTALK_URL, None, NOW).url == DINGTALK_URL


def test_wecom_markdown_and_its_size_bound() -> None:
    push = wecom.request(match_message(a_match(), "en", SITE), WECOM_URL, None, NOW)
    assert push.url == WECOM_URL
    assert json.loads(push.body) == {
        "msgtype": "markdown",
        "markdown": {
            "content": "### [PaperTrail] New paper for “retrieval for LLMs”\n**MemORAI: Memory Organization and "
            "Retrieval via Adaptive Graph Intelligence**\n> Why: retrieval (in the title)\n"
            f"[{SITE}/papers/arxiv:2605.01386]({SITE}/papers/arxiv:2605.01386)"
        },
    }
    many = [MatchReason(term=f"检索增强生成{n}", field="abstract") for n in range(400)]
    content = json.loads(wecom.request(match_message(a_match(reasons=many), "zh", SITE), WECOM_URL, None, NOW).body)
    text = content["markdown"]["content"]
    assert len(text.encode()) <= wecom.CONTENT_LIMIT  # the documented bound: 4096 bytes
    assert text.endswith(f"[{SITE}/papers/arxiv:2605.01386]({SITE}/papers/arxiv:2605.01386)")


def test_slack_mrkdwn_text_with_the_title_escaped_in_its_link() -> None:
    push = slack.request(match_message(a_match(), "en", SITE), SLACK_URL, None, NOW)
    assert push.url == SLACK_URL
    assert json.loads(push.body) == {
        "text": "*[PaperTrail] New paper for “retrieval for LLMs”*\n"
        f"<{SITE}/papers/arxiv:2605.01386|MemORAI: Memory Organization and Retrieval via Adaptive Graph Intelligence>"
        "\nWhy: retrieval (in the title)"
    }
    odd = match_message(a_match(paper_title="Q&A <at> scale"), "en", SITE)
    assert (
        f"<{SITE}/papers/arxiv:2605.01386|Q&amp;A &lt;at&gt; scale>"
        in json.loads(slack.request(odd, SLACK_URL, None, NOW).body)["text"]
    )


def test_telegram_send_message_in_html_with_the_chat_from_its_url() -> None:
    push = telegram.request(match_message(a_match(), "zh", SITE), TELEGRAM_URL, None, NOW)
    # the token stays in the path, as the Bot API has it; the chat moves into the JSON body
    assert push.url == f"https://api.telegram.org/bot{TELEGRAM_TOKEN}/sendMessage"
    assert push.headers == {"content-type": "application/json; charset=utf-8"}
    assert json.loads(push.body) == {
        "chat_id": "-1001234567890",
        "text": "<b>【研踪】「retrieval for LLMs」有新论文</b>\n"
        f'<a href="{SITE}/papers/arxiv:2605.01386">MemORAI: Memory Organization and Retrieval via Adaptive Graph '
        "Intelligence</a>\n匹配原因：retrieval(标题)",
        "parse_mode": "HTML",
    }


@pytest.mark.parametrize(
    ("title", "shown"),
    [
        ("Q&A <at> scale", "Q&amp;A &lt;at&gt; scale"),  # the three symbols the HTML style names
        ('"Quoted" it\'s', '"Quoted" it\'s'),  # quotes outside a tag stay as they are
        ("</a><b>x", "&lt;/a&gt;&lt;b&gt;x"),  # a title never closes our link or opens a tag
    ],
)
def test_telegram_escapes_a_title_as_its_html_style_asks(title: str, shown: str) -> None:
    text = json.loads(telegram.request(match_message(a_match(paper_title=title), "en", SITE), TELEGRAM_URL, None,
                                       NOW).body)["text"]  # fmt: skip
    assert f'<a href="{SITE}/papers/arxiv:2605.01386">{shown}</a>' in text


def test_telegram_text_keeps_within_4096_characters_and_keeps_its_link() -> None:
    many = [MatchReason(term=f"检索增强生成{n}", field="abstract") for n in range(800)]
    text = json.loads(telegram.request(match_message(a_match(reasons=many), "zh", SITE), TELEGRAM_URL, None,
                                       NOW).body)["text"]  # fmt: skip
    visible = text.replace("<b>", "").replace("</b>", "").replace("</a>", "")
    visible = visible.replace(f'<a href="{SITE}/papers/arxiv:2605.01386">', "")
    assert len(visible) == telegram.TEXT_LIMIT and visible.endswith("…")  # the documented bound, after entities
    assert f'<a href="{SITE}/papers/arxiv:2605.01386">' in text


@pytest.mark.parametrize(
    ("token", "chat_id", "url_or_problem"),
    [
        (TELEGRAM_TOKEN, "-1001234567890", TELEGRAM_URL),
        (TELEGRAM_TOKEN, "@papertrail_cs_cl", f"https://api.telegram.org/bot{TELEGRAM_TOKEN}/sendMessage"
         "?chat_id=@papertrail_cs_cl"),
        ("123456:ABC/../../getMe?x=", "-1001234567890", "secret: a Telegram bot token"),  # no way out of its segment
        ("not a token", "-1001234567890", "secret: a Telegram bot token"),
        (TELEGRAM_TOKEN, "12 34", "chat_id: a chat's numeric id"),
        (TELEGRAM_TOKEN, "-100123&text=hi", "chat_id: a chat's numeric id"),
    ],
)  # fmt: skip
def test_a_telegram_target_is_its_token_and_chat_of_the_documented_shapes(
    token: str, chat_id: str, url_or_problem: str
) -> None:
    if url_or_problem.startswith("https://"):
        assert telegram.webhook_url(token, chat_id) == url_or_problem
        assert CHANNELS["telegram"].url_problem(url_or_problem) is None
    else:
        with pytest.raises(telegram.BadTelegramTarget, match=url_or_problem):
            telegram.webhook_url(token, chat_id)


@pytest.mark.parametrize(
    ("answer", "error", "wait"),
    [
        # answers as the Bot API gives them, quoted from public logs and code: taken, chat not found, a revoked token,
        # a bot removed from its group, and flood control with the documented ResponseParameters.retry_after
        (b'{"ok":true,"result":{"message_id":42,"chat":{"id":-1001234567890}}}', None, None),
        (b'{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}',
         "code 400: Bad Request: chat not found", None),
        (b'{"ok":false,"error_code":401,"description":"Unauthorized"}', "code 401: Unauthorized", None),
        (b'{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}',
         "code 403: Forbidden: bot was blocked by the user", None),
        (b'{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 35","parameters":'
         b'{"retry_after":35}}', "code 429: Too Many Requests: retry after 35", 35.0),
        (b'{"ok":false,"error_code":429,"parameters":{"retry_after":999999}}', "code 429", telegram.MAX_RETRY_AFTER_S),
        (b'{"ok":false,"error_code":429,"parameters":{"retry_after":"soon"}}', "code 429", None),
        (b"<html>502 Bad Gateway</html>", None, None),  # a proxy's page: the status code alone judges it
    ],
)  # fmt: skip
def test_telegrams_answer_says_why_and_how_long_to_wait(answer: bytes, error: str | None, wait: float | None) -> None:
    assert CHANNELS["telegram"].refusal(answer) == error
    assert telegram.retry_after(answer) == wait


@pytest.mark.parametrize(
    ("channel", "answer", "error"),
    [
        # recorded: a Feishu bot given a stale or wrong signature (the reply quoted in a CSDN write-up)
        (
            "feishu",
            b'{"code":19021,"data":{},"msg":"sign match fail or timestamp is not within one hour from current time"}',
            "code 19021: sign match fail or timestamp is not within one hour from current time",
        ),
        ("feishu", b'{"StatusCode":0,"StatusMessage":"success"}', None),
        ("feishu", b'{"code":0,"data":{},"msg":"success"}', None),
        # recorded: DingTalk's replies to a bad signature and to a deleted robot's token
        ("dingtalk", b'{"errcode":310000,"errmsg":"sign not match"}', "code 310000: sign not match"),
        ("dingtalk", b'{"errcode":300005,"errmsg":"token is not exist"}', "code 300005: token is not exist"),
        ("dingtalk", b'{"errcode":0,"errmsg":"ok"}', None),
        # recorded: WeCom's reply to an unknown key (its hint and address cut here)
        ("wecom", b'{"errcode":93000,"errmsg":"invalid webhook url, hint: [1708397705432012366598976]"}',
         "code 93000: invalid webhook url, hint: [1708397705432012366598976]"),
        ("wecom", b'{"errcode":0,"errmsg":"ok"}', None),
        ("wecom", b"<html>gateway</html>", None),  # no JSON: the status code alone judges it
        ("slack", b"ok", None),  # Slack says no with its status code, not its body
    ],
)  # fmt: skip
def test_a_bots_200_answer_with_an_error_code_is_a_refusal(channel: str, answer: bytes, error: str | None) -> None:
    assert CHANNELS[channel].refusal(answer) == error


@pytest.mark.parametrize(
    ("channel", "url", "problem"),
    [
        ("feishu", FEISHU_URL, None),
        ("feishu", "https://open.larksuite.com/open-apis/bot/v2/hook/x", None),
        ("feishu", "https://hooks.example.com/open-apis/bot/v2/hook/x", "a feishu webhook is an https URL on "
         "open.feishu.cn or open.larksuite.com"),
        ("feishu", "http://open.feishu.cn/open-apis/bot/v2/hook/x", "a feishu webhook is an https URL on "
         "open.feishu.cn or open.larksuite.com"),
        ("dingtalk", DINGTALK_URL, None),
        ("dingtalk", WECOM_URL, "a dingtalk webhook is an https URL on oapi.dingtalk.com"),
        ("wecom", WECOM_URL, None),
        ("slack", SLACK_URL, None),
        ("slack", "https://hooks.slack.com.example/services/T/B/X",
         "a slack webhook is an https URL on hooks.slack.com"),
        ("wecom", "https://qyapi.weixin.qq.com.evil.example/cgi-bin/webhook/send?key=k",
         "a wecom webhook is an https URL on qyapi.weixin.qq.com"),
        ("telegram", "http://api.telegram.org/bot1:x/sendMessage", "a telegram webhook is an https URL on "
         "api.telegram.org"),
    ],
)  # fmt: skip
def test_a_bots_url_must_be_on_its_platforms_host(channel: str, url: str, problem: str | None) -> None:
    assert CHANNELS[channel].url_problem(url) == problem


def test_a_bots_url_is_shown_with_its_token_masked() -> None:
    assert masked_url(FEISHU_URL) == "https://open.feishu.cn/open-apis/bot/v2/hook/***1a76"
    assert masked_url(DINGTALK_URL) == "https://oapi.dingtalk.com/robot/send?access_token=***6789"
    assert masked_url(SLACK_URL) == "https://hooks.slack.com/services/T00000000/B00000000/***XXXX"
    assert masked_url(WECOM_URL) == "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=***5aaa"
    assert masked_url(TELEGRAM_URL) == "https://api.telegram.org/bot***ew11/sendMessage?chat_id=***7890"
    assert TELEGRAM_TOKEN.split(":")[1][:-4] not in masked_url(TELEGRAM_URL)
    # as sent (the chat in the body), and as httpx logs it
    assert masked_url(f"https://api.telegram.org/bot{TELEGRAM_TOKEN}/sendMessage") == (
        "https://api.telegram.org/bot***ew11/sendMessage"
    )


def test_every_channel_is_registered_once_by_its_name() -> None:
    assert CHANNEL_NAMES == ("generic", "feishu", "dingtalk", "wecom", "slack", "telegram")
    assert all(name == channel.name for name, channel in CHANNELS.items())
