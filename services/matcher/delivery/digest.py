"""A user's daily digest: the day's matches grouped by topic, as JSON and as HTML (jinja2). No I/O."""

from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from jinja2 import Environment, PackageLoader, select_autoescape

from papertrail.follows.reasons import reason_text

_ENV = Environment(
    loader=PackageLoader("services.matcher.delivery", "templates"), autoescape=select_autoescape(["html", "j2"])
)


def day_bounds(day: date, zone: ZoneInfo) -> tuple[datetime, datetime]:
    """The UTC start and end of a calendar day in `zone`."""
    start = datetime.combine(day, time(), tzinfo=zone)
    return start.astimezone(UTC), (start + timedelta(days=1)).astimezone(UTC)


def build_digest(
    user_id: str, day: date, matches: list[dict[str, Any]], public_url: str, picks: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Group a day's stored matches by topic (a topic follow's name, else the follow's name), papers once each; and
    the reader's 为你推荐 picks (the query service ranks them by the reader's model), those matched left out."""
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
            text = reason_text(reason)
            if text not in paper["reasons"]:
                paper["reasons"].append(text)
    topics = [
        {**g, "papers": sorted(g["papers"].values(), key=lambda p: p["paper_id"])}
        for g in sorted(groups.values(), key=lambda g: g["title"].casefold())
    ]
    total = len({m["paper_id"] for m in matches})
    matched = {m["paper_id"] for m in matches}
    site = public_url.rstrip("/")
    for_you = [{**p, "url": f"{site}/papers/{p['paper_id']}"} for p in picks or [] if p["paper_id"] not in matched]
    return {
        "user_id": user_id,
        "day": day.isoformat(),
        "subject": f"PaperTrail digest {day.isoformat()}: {total} paper{'s' if total != 1 else ''}",
        "papers": total,
        "topics": topics,
        "for_you": for_you,
    }


def render_html(digest: dict[str, Any]) -> str:
    return _ENV.get_template("digest.html.j2").render(digest=digest)


def digest_text(digest: dict[str, Any]) -> str:
    """Plain-text alternative of the mail."""
    lines = [digest["subject"], ""]
    for topic in digest["topics"]:
        lines.append(f"## {topic['title']} ({len(topic['papers'])})")
        for paper in topic["papers"]:
            lines.append(f"- {paper['title']} — {paper['url']}")
            lines.extend(f"    {r}" for r in paper["reasons"])
        lines.append("")
    if digest.get("for_you"):
        lines.append(f"## 为你推荐 / For you ({len(digest['for_you'])})")
        lines.extend(f"- {p['title']} — {p['url']}" for p in digest["for_you"])
        lines.append("")
    return "\n".join(lines)
