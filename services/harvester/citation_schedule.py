"""When a paper's citation count is asked for again: pure rules. New and followed papers daily (their counts move
and readers look at them), a paper of this year weekly, an older one monthly; a paper the index did not know is
asked again as rarely as an old one, since an index learns of a paper slowly."""

import datetime as dt

NEW_FOR = dt.timedelta(days=30)
RECENT_FOR = dt.timedelta(days=365)
DAILY = dt.timedelta(days=1)
WEEKLY = dt.timedelta(days=7)
MONTHLY = dt.timedelta(days=30)


def refresh_after(
    published_at: dt.datetime | None, followed: bool, now: dt.datetime, *, found: bool = True
) -> dt.timedelta:
    """How long a count read `now` stays fresh: a day for a new or followed paper, a week for one of the last year,
    a month for an older one, an undated one or one the source did not find."""
    if not found or published_at is None:
        return MONTHLY
    age = now - published_at
    if followed or age < NEW_FOR:
        return DAILY
    return WEEKLY if age < RECENT_FOR else MONTHLY


def asked_id(arxiv: str | None, dois: list[str], acl: str | None) -> str | None:
    """The id Semantic Scholar is asked by (its batch endpoint's prefixes): the arXiv id, else the ACL Anthology id,
    else the first DOI; None for a paper it cannot be asked about."""
    if arxiv:
        return f"ARXIV:{arxiv}"
    if acl:
        return f"ACL:{acl}"
    return f"DOI:{dois[0]}" if dois else None
