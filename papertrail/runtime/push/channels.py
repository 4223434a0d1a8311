"""The push channels, by the name a webhook's `channel` gives: one line per channel. `generic` (PaperTrail's own
signed JSON, services/matcher/delivery/webhooks.py) is the default and is not listed here."""

from papertrail.runtime.push import dingtalk, feishu, slack, telegram, wecom
from papertrail.runtime.push.channel import Channel

GENERIC = "generic"
CHANNELS: dict[str, Channel] = {
    feishu.CHANNEL.name: feishu.CHANNEL,
    dingtalk.CHANNEL.name: dingtalk.CHANNEL,
    wecom.CHANNEL.name: wecom.CHANNEL,
    slack.CHANNEL.name: slack.CHANNEL,
    telegram.CHANNEL.name: telegram.CHANNEL,
}
CHANNEL_NAMES = (GENERIC, *CHANNELS)
