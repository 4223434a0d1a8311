"""Fields added to a topic's messages after its first release (a `similar` or `venue` follow's, the watcher's report,
a paper's venue claims, the version a summary describes) are left out of a message that holds nothing in them:
consumers built before them, whose models forbid unknown fields, read the messages they know unchanged."""


def left_out(value: object) -> bool:
    """`exclude_if` of such a field: it holds nothing."""
    return value is None or value == []
