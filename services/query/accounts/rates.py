"""Write limits as rates ("20/1h": 20 writes per hour) and the fixed windows they are counted in. No I/O."""

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

RATE = re.compile(r"^(\d+)/(\d*)(s|min|h|d)$")
UNIT_SECONDS = {"s": 1, "min": 60, "h": 3600, "d": 86400}
RATE_HELP = "COUNT/PERIOD, the period a number (1 if left out) and s, min, h or d: e.g. 20/1h, 10/15min"


@dataclass(frozen=True, slots=True)
class Rate:
    count: int  # writes allowed in one window
    period_s: int  # the window's length

    @classmethod
    def parse(cls, text: str) -> "Rate":
        found = RATE.match(text.strip())
        if found is None:
            raise ValueError(f"{text!r} is not a rate: {RATE_HELP}")
        count, length, unit = int(found[1]), int(found[2] or 1), found[3]
        if count < 1 or length < 1:
            raise ValueError(f"{text!r}: the count and the period must be at least 1")
        return cls(count, length * UNIT_SECONDS[unit])


def check_rate(text: str) -> str:
    """A settings validator: the text, if it reads as a rate."""
    Rate.parse(text)
    return text


@dataclass(frozen=True, slots=True)
class Window:
    """One fixed window of a rate: writes are counted under its key until it ends."""

    key: str
    ends_at: datetime

    def retry_after(self, now: datetime) -> int:
        """Whole seconds until the window ends (at least 1): the Retry-After of a refusal."""
        return max(1, int((self.ends_at - now).total_seconds() + 0.999))


def window(limit: str, rate: Rate, subject: str, now: datetime) -> Window:
    """The window of `now` for this limit and subject (a client address, a user id, an e-mail address): windows
    start at whole multiples of the period since the epoch, so every replica counts in the same one."""
    start = int(now.timestamp()) // rate.period_s * rate.period_s
    ends_at = datetime.fromtimestamp(start + rate.period_s, UTC)
    return Window(f"{limit}:{rate.period_s}:{start}:{subject}", ends_at)


def over(count: int, rate: Rate) -> bool:
    """Whether the write counted as the `count`-th of its window is past the rate."""
    return count > rate.count


# Keeps a refused window's document a little past its end, so a clock a moment behind still finds it.
GRACE = timedelta(seconds=5)
