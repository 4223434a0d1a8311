"""Push channels: a match sent to a group bot (Feishu, DingTalk, WeCom), a Slack channel or a Telegram chat in the
bot's own documented message format and signing scheme, instead of PaperTrail's generic signed JSON webhook. One pure
module per channel; `channels.CHANNELS` registers them. No I/O."""
