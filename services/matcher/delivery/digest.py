"""A user's daily digest: the day's matches grouped by topic, the reader's picks and the deadlines of the venues they
follow, as JSON and as HTML (jinja2). No I/O."""

from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from jinja2 import Environment, PackageLoader, select_autoescape

from papertrail.domain.follows.reasons import reason_text
from papertrail.domain.venues.catalogue import Venue
from papertrail.domain.venues.deadlines import upcoming_deadlines
from papertrail.runtime.wording import BothLanguages, Translator
from schemas.events import Follow

# A digest lists the followed venues' deadlines of the next two weeks; a reader with no paper that day still gets a
# digest when one of them is this close (the last days before it).
REMINDER_DAYS = 14
URGENT_DAYS = 3

_ENV = Environment(
    loader=PackageLoader("services.matcher.delivery", "templates"),
    autoescape=select_autoescape(["html", "j2"]),
    extensions=["jinja2.ext.i18n"],
)
_ENV.newstyle_gettext = True  # type: ignore[attr-defined]
# a digest goes to an address, in both languages: Chinese · English (the HTML), Chinese / English (the text); a
# match's reason, a sentence of several messages with the paper's own terms in it, in English (as the Atom feeds)
_HTML_WORDS, _TEXT_WORDS, _REASON_WORDS = BothLanguages(" · "), BothLanguages(" / "), Translator("en")


def day_bounds(day: date, zone: ZoneInfo) -> tuple[datetime, datetime]:
    """The UTC start and end of a calendar day in `zone`."""
    start = datetime.combine(day, time(), tzinfo=zone)
    return start.astimezone(UTC), (start + timedelta(days=1)).astimezone(UTC)


def deadline_reminders(
    follows: Iterable[Follow], venues: Iterable[Venue], after: datetime, zone: ZoneInfo, days: int = REMINDER_DAYS
) -> list[dict[str, Any]]:
    """The deadlines in the `days` after `after` of the venues the reader's venue follows name (a venue, its edition
    if the follow names a year; or every venue of a CCF field and rank), soonest first, each once, in `zone`."""
    catalogue = list(venues)
    end = after + timedelta(days=days)
    found: dict[tuple[str, int, str, datetime], dict[str, Any]] = {}
    for follow in follows:
        if follow.kind != "venue":
            continue
        chosen = [v for v in catalogue if v.key == follow.venue_key] if follow.venue_key else catalogue
        ranks = [follow.venue_rank] if follow.venue_rank else []
        fields = [follow.venue_field] if follow.venue_field and not follow.venue_key else []
        for deadline in upcoming_deadlines(chosen, after, fields=fields, ranks=ranks):
            if deadline.at > end or (follow.venue_year and deadline.edition.year != follow.venue_year):
                continue
            key = (deadline.venue.key, deadline.edition.year, deadline.kind, deadline.at)
            found[key] = {
                "venue": deadline.venue.acronym,
                "venue_key": deadline.venue.key,
                "ccf_rank": deadline.venue.ccf_rank,
                "year": deadline.edition.year,
                "kind": deadline.kind,
                "at": deadline.at.isoformat(),
                "local": deadline.at.astimezone(zone).strftime("%Y-%m-%d %H:%M"),
                "as_written": deadline.as_written,
                "days_left": (deadline.at - after).days,
                "comment": deadline.comment,
            }
    return [found[key] for key in sorted(found, key=lambda k: (k[3], k[0], k[2]))]


def build_digest(
    user_id: str,
    day: date,
    matches: list[dict[str, Any]],
    public_url: str,
    picks: list[dict[str, Any]] | None = None,
    deadlines: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Group a day's stored matches by topic (a topic follow's name, else the follow's name), papers once each; the
    reader's 为你推荐 picks (the query service ranks them by the reader's model), those matched left out; and the
    deadlines of the venues they follow (`deadline_reminders`). A new follow's backfill is summarized, not listed:
    how many held papers it matched, with a link to the follow's feed (a paper matched live too is listed)."""
    site = public_url.rstrip("/")
    live = [m for m in matches if not m.get("backfill")]
    listed = {m["paper_id"] for m in live}
    backfilled = backfill_summaries([m for m in matches if m.get("backfill") and m["paper_id"] not in listed], site)
    matches = live
    groups: dict[str, dict[str, Any]] = {}
    for match in matches:
        title = match.get("follow_name") or match.get("topic_id") or match["follow_id"]
        group = groups.setdefault(title, {"title": title, "kind": match["follow_kind"], "follow_ids": [], "papers": {}})
        if match["follow_id"] not in group["follow_ids"]:
            group["follow_ids"].append(match["follow_id"])
        paper = group["papers"].setdefault(
            match["paper_id"],
            {
                "paper_id": match["paper_id"],
                "title": match.get("paper_title") or match["paper_id"],
                "url": f"{public_url.rstrip('/')}/api/papers/{match['paper_id']}",
                "reasons": [],
            },
        )
        for reason in match.get("reasons", []):
            text = reason_text(reason, _REASON_WORDS)
            if text not in paper["reasons"]:
                paper["reasons"].append(text)
    topics = [
        {**g, "papers": sorted(g["papers"].values(), key=lambda p: p["paper_id"])}
        for g in sorted(groups.values(), key=lambda g: g["title"].casefold())
    ]
    total = len({m["paper_id"] for m in matches})
    matched = {m["paper_id"] for m in matches}
    for_you = [{**p, "url": f"{site}/papers/{p['paper_id']}"} for p in picks or [] if p["paper_id"] not in matched]
    return {
        "user_id": user_id,
        "day": day.isoformat(),
        "subject": digest_subject(day, total, sum(b["papers"] for b in backfilled), bool(deadlines)),
        "papers": total,
        "topics": topics,
        "backfilled": backfilled,
        "for_you": for_you,
        "deadlines": [{**d, "url": f"{site}/deadlines"} for d in deadlines or []],
    }


def digest_subject(day: date, papers: int, earlier: int, deadlines: bool) -> str:
    """The mail's subject, Chinese / English: the day and what the digest holds (`digest_headline`)."""
    return _TEXT_WORDS.join(
        lambda t: t.gettext(
            "PaperTrail digest %(day)s: %(headline)s",
            day=day.isoformat(),
            headline=digest_headline(t, papers, earlier, deadlines),
        )
    )


def digest_headline(t: Translator, papers: int, earlier: int, deadlines: bool) -> str:
    """What a digest's subject says it holds: its papers (and the new follows' earlier ones), or its deadlines."""
    new = t.ngettext("%(total)s paper", "%(total)s papers", papers, total=papers)
    if earlier:
        before = t.ngettext("%(num)s earlier", "%(num)s earlier", earlier)
        return t.gettext("%(papers)s, %(earlier)s", papers=new, earlier=before) if papers else before
    return new if papers or not deadlines else t.gettext("deadlines ahead")


def backfill_summaries(matches: list[dict[str, Any]], site: str) -> list[dict[str, Any]]:
    """The day's backfilled matches as one line per follow: how many held papers it matched, and its feed."""
    follows: dict[str, dict[str, Any]] = {}
    for match in matches:
        follow_id = match["follow_id"]
        summary = follows.setdefault(
            follow_id,
            {
                "follow_id": follow_id,
                "title": match.get("follow_name") or match.get("topic_id") or follow_id,
                "papers": 0,
                "url": f"{site}/me/feed?{urlencode({'follow_id': follow_id})}",
            },
        )
        summary["papers"] += 1
    return sorted(follows.values(), key=lambda s: s["title"].casefold())


def backfill_line(summary: dict[str, Any]) -> str:
    """`LM: 7 篇更早的论文匹配 / 7 earlier papers match`: a new follow's backfill, the follow named once."""
    matched = _TEXT_WORDS.ngettext("%(num)s earlier paper matches", "%(num)s earlier papers match", summary["papers"])
    return f"{summary['title']}: {matched}"


def render_html(digest: dict[str, Any]) -> str:
    words = _HTML_WORDS
    return _ENV.get_template("digest.html.j2").render(
        digest=digest, _=words.gettext, gettext=words.gettext, pgettext=words.pgettext, ngettext=words.ngettext
    )


def digest_text(digest: dict[str, Any]) -> str:
    """Plain-text alternative of the mail."""
    lines = [digest["subject"], ""]
    for topic in digest["topics"]:
        lines.append(f"## {topic['title']} ({len(topic['papers'])})")
        for paper in topic["papers"]:
            lines.append(f"- {paper['title']} — {paper['url']}")
            lines.extend(f"    {r}" for r in paper["reasons"])
        lines.append("")
    if digest.get("backfilled"):
        lines.append("## " + _TEXT_WORDS.gettext("Earlier papers of new follows"))
        lines.extend(f"- {backfill_line(b)} — {b['url']}" for b in digest["backfilled"])
        lines.append("")
    if digest.get("for_you"):
        lines.append(f"## {_TEXT_WORDS.gettext('For you')} ({len(digest['for_you'])})")
        lines.extend(f"- {p['title']} — {p['url']}" for p in digest["for_you"])
        lines.append("")
    if digest.get("deadlines"):
        lines.append(f"## {_TEXT_WORDS.gettext('Deadline reminders')} ({len(digest['deadlines'])})")
        lines.extend(f"- {deadline_line(d)}" for d in digest["deadlines"])
        lines.append("")
    return "\n".join(lines)


def deadline_line(deadline: dict[str, Any]) -> str:
    words = _TEXT_WORDS
    what = (
        words.pgettext("deadline", "abstract")
        if deadline["kind"] == "abstract"
        else words.pgettext("deadline", "paper")
    )
    days = words.ngettext("in %(count)s day", "in %(count)s days", deadline["days_left"], count=deadline["days_left"])
    return f"{deadline['venue']} {deadline['year']} {what}: {deadline['local']} ({deadline['as_written']}) · {days}"
