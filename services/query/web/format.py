"""Formatting for the web pages: author lists cut short, times in the display zone, labels, LaTeX's text-mode markup
as HTML. No I/O."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from markupsafe import Markup, escape

from papertrail.domain.author_institutions import author_institutions, paper_institutions
from papertrail.domain.follows.catalogue import topic_name
from papertrail.domain.follows.reasons import reason_text as worded_reason
from papertrail.domain.names import display_name_key
from papertrail.domain.tex import Dollar, Formula, Styled, TexPart, tex_parts
from papertrail.domain.text import has_han
from papertrail.domain.venues.accepted import AcceptedVenue, PaperVenues, accepted_venues
from papertrail.domain.web_links import is_web_link, web_links
from papertrail.runtime.wording import Translator
from services.query.web import labels

AUTHORS_SHOWN = 8  # the seed site shows eight authors on a card, then "等 N 位作者"
SOURCE_NAMES = {
    "arxiv": "arXiv",
    "arxiv_feed": "arXiv Atom",  # the announcement watcher
    "arxiv_ids": "arXiv GetRecord",  # papertrail harvest arxiv --ids
    "acl": "ACL Anthology",
    "hf": "Hugging Face",
    "pmlr": "PMLR",
    "openreview": "OpenReview",
    "dblp": "DBLP",
    "daily_arxiv": "daily-arXiv-ai-enhanced",
    "semantic_scholar": "Semantic Scholar",
    "ccf_deadlines": "ccf-deadlines",
}


@dataclass(frozen=True, slots=True)
class AuthorLine:
    """Authors to show (name, affiliations joined) and how many are left out."""

    shown: list[tuple[str, str]]
    total: int

    @property
    def hidden(self) -> int:
        return self.total - len(self.shown)


def author_line(
    authors_detail: list[dict[str, Any]], names: list[str], limit: int | None = AUTHORS_SHOWN
) -> AuthorLine:
    """The first `limit` authors with their affiliations (all when limit is None); falls back to bare names."""
    people = [(a.get("name", ""), ", ".join(a.get("affiliations") or [])) for a in authors_detail] or [
        (name, "") for name in names
    ]
    shown = people if limit is None else people[:limit]
    return AuthorLine(shown=shown, total=len(people))


def institutions_line(authors: list[dict[str, Any]], summary: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The 机构 line of a card or paper page: the authors' institutions, each once, in author order; the summary's
    when no author has any (papertrail/domain/author_institutions.py says why)."""
    return paper_institutions(authors, (summary or {}).get("institutions") or [])


def institutions_of(author: dict[str, Any]) -> list[dict[str, Any]]:
    """One author's institutions, as the paper page lists them beside the author."""
    return author_institutions(author)


def as_utc(value: Any) -> datetime | None:
    """A stored time as an aware UTC datetime: epoch seconds, ISO text, naive (MongoDB gives naive UTC) or aware."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, UTC)
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    return None


def local_time(value: Any, zone: str, pattern: str = "%Y-%m-%d %H:%M") -> str:
    """A stored (UTC) time as text in the display zone; empty when there is no time."""
    moment = as_utc(value)
    return moment.astimezone(ZoneInfo(zone)).strftime(pattern) if moment else ""


def summary_provenance(
    summary: dict[str, Any], current_version: str | None, t: Translator, when: Callable[..., str]
) -> list[str]:
    """Who wrote the summary, when and from which version of the paper; and, when the paper has moved on since
    (its text changed and the new version's summary is not written yet), a line saying so. A community summary
    names its publisher, model and day."""
    if summary.get("publisher"):
        return [
            t.gettext(
                "Community summary: published by %(publisher)s on %(date)s, written by %(model)s; ours "
                "replaces it once written",
                publisher=summary["publisher"],
                model=summary.get("model"),
                date=summary.get("published_on"),
            )
        ]
    day, version = when(summary.get("generated_at"), "%Y-%m-%d"), summary.get("paper_version")
    if not version:
        return [t.gettext("Written by %(model)s on %(date)s", model=summary.get("model"), date=day)]
    lines = [
        t.gettext(
            "Written by %(model)s on %(date)s from %(version)s", model=summary.get("model"), date=day, version=version
        )
    ]
    if current_version and current_version != version:
        lines.append(
            t.gettext(
                "This summary describes %(version)s: the paper is now at %(current)s, whose summary is "
                "not written yet.",
                version=version,
                current=current_version,
            )
        )
    return lines


def run_window(run: dict[str, Any]) -> str:
    """The record dates a harvest run asked its source for ('2015-01-16 → 2016-01-17'); empty when it named none."""
    start, end = run.get("window_from"), run.get("window_until")
    if not start:
        return ""
    return f"{start} → {end}" if end and end != start else str(start)


def zone_label(zone: str, t: Translator) -> str:
    """A zone as readers name it (Beijing time); other zones by their IANA name."""
    return t.gettext("Beijing time") if zone == "Asia/Shanghai" else zone


def source_name(source: str, t: Translator | None = None) -> str:
    """A source as readers know it; a bulk import's ("corpus", "kaggle") in the reader's language."""
    named = labels.source(t, source, "") if t is not None else None
    return named or SOURCE_NAMES.get(source, source)


def follow_label(kind: str, name: str | None, topic_id: str | None, lang: str) -> str:
    """A follow's name as the pages show it: a topic follow named by its topic id (a follow left unnamed is named
    after its topic id) shows the topic's name in the reader's language."""
    if kind == "topic" and topic_id and (name or "").strip() in ("", topic_id):
        return topic_name(topic_id, lang) or topic_id
    return name or ""


def follow_name_label(name: str | None, lang: str) -> str:
    """A follow known by its name only (a feed item, the banner after adding one): a topic id reads as the topic."""
    return (topic_name(name, lang) if name else None) or (name or "")


def observation(version_seq: int | None, t: Translator, kind: str | None = None) -> str:
    """'首次观测 · 记录 #1' for a paper seen once; a later record says what it was ('新版本 · 记录 #2',
    '正式发表 · 记录 #3'), or just that the paper was updated when the kind is not known."""
    seq = version_seq or 1
    if seq == 1:
        return t.gettext("first observed · record #%(seq)s", seq=seq)
    if kind and (named := labels.version_kind(t, kind, "")):
        return t.gettext("%(kind)s · record #%(seq)s", kind=named, seq=seq)
    return t.gettext("updated · record #%(seq)s", seq=seq)


@dataclass(frozen=True, slots=True)
class VenueLine:
    """One venue claim as a card shows it: 'ICML 2026 · CCF-A · Spotlight' and where the fact comes from, or
    '投稿中 NeurIPS 2026' (a submission is never shown as an acceptance)."""

    text: str
    source: str
    accepted: bool


def venue_lines(paper: dict[str, Any], t: Translator) -> list[VenueLine]:
    """Where a paper (a search document or a canonical paper) was published or says it was accepted: its published
    record's venue first ("ICML 2025 · CCF-A (会议论文集)", "ICLR 2025 · CCF-A · Oral", when no claim of its own names
    that edition), then its claims, accepted ones first. A claim naming the published record's edition says the
    proceedings too: the paper merged with its proceedings record is published there, whatever its comment said
    before."""
    claims = paper.get("venue_claims") or []
    published = [v for v in accepted_venues(PaperVenues.of_document(paper)) if v.evidence == "proceedings"]
    lines = [
        VenueLine(
            _accepted_line(
                " ".join(str(part) for part in (venue.venue, venue.year) if part),
                venue.edition_rank,
                venue.track,
                venue.workshop or "",
                venue.presentation,
                t,
            ),
            t.gettext("proceedings"),
            accepted=True,
        )
        for venue in published
        if not any(_names_edition(claim, venue) for claim in claims)
    ]
    for claim in sorted(claims, key=lambda c: c.get("status") != "accepted"):
        edition = " ".join(str(part) for part in (claim.get("venue"), claim.get("year")) if part)
        source = labels.venue_claim_source(t, str(claim.get("source")), "")
        if any(_names_edition(claim, venue) for venue in published):
            source = t.gettext("proceedings")
        if claim.get("status") != "accepted":
            lines.append(VenueLine(t.gettext("Submitted to %(venue)s", venue=edition), source, accepted=False))
            continue
        text = _accepted_line(
            edition,
            claim.get("ccf_rank"),
            claim.get("track") or "main",
            claim.get("workshop") or "",
            claim.get("presentation"),
            t,
        )
        lines.append(VenueLine(text, source, accepted=True))
    return lines


def _accepted_line(
    edition: str, rank: str | None, track: str, workshop: str, presentation: str | None, t: Translator
) -> str:
    """'ICML 2026 · CCF-A · Spotlight', 'NeurIPS 2025 · Workshop on RegML · Poster': an edition, its rank, its
    track when not the main one (a workshop by its name when the name says it is one) and the presentation."""
    parts = [edition]
    if rank:
        parts.append(f"CCF-{rank}")
    if track == "workshop" and "workshop" in workshop.lower():
        parts.append(workshop)  # "Culture x AI Workshop", "Workshop on AI4Math": the name says it
    elif track != "main":
        parts.append(" ".join(filter(None, [labels.track(t, track, track), workshop])))
    if presentation:
        parts.append(labels.presentation(t, presentation, presentation))
    return " · ".join(parts)


def _names_edition(claim: dict[str, Any], venue: AcceptedVenue) -> bool:
    """Whether an accepted claim of the paper's own already says the published record's venue, year and track (a
    comment's "EACL 2024" is not the proceedings' Findings of EACL 2024)."""
    same_venue = claim.get("venue_key") == venue.venue_key if venue.venue_key else claim.get("venue") == venue.venue
    same_track = (claim.get("track") or "main") == venue.track
    return claim.get("status") == "accepted" and same_venue and same_track and claim.get("year") in (venue.year, None)


def found_text(sorted_by: str, total: int, t: Translator) -> str:
    """The browser's count of papers found and the order they are shown in."""
    shown = f"{total:,}"
    if sorted_by == "relevance":
        return t.ngettext(
            "Found %(total)s paper · most relevant first",
            "Found %(total)s papers · most relevant first",
            total,
            total=shown,
        )
    sort = labels.sort(t, sorted_by, sorted_by)
    if sorted_by in ("cited", "hot"):
        return t.ngettext(
            "Found %(total)s paper · sorted by %(sort)s",
            "Found %(total)s papers · sorted by %(sort)s",
            total,
            total=shown,
            sort=sort,
        )
    return t.ngettext(
        "Found %(total)s paper · sorted by %(sort)s time",
        "Found %(total)s papers · sorted by %(sort)s time",
        total,
        total=shown,
        sort=sort,
    )


def status_label(status: str | None, t: Translator) -> str:
    return t.gettext("published") if status == "published" else t.gettext("preprint")


def version_kind_label(kind: str, t: Translator) -> str:
    return labels.version_kind(t, kind, kind)


def source_version_label(label: str | None, t: Translator) -> str:
    """A record's version label as the source gave it ("v2"); arXiv's `arXiv` and `oai_dc` formats give only the
    first and the latest date, so a later version of theirs is "updated", shown as what it is: no number."""
    if not label:
        return "—"
    return t.gettext("a later version (the source gives no number)") if label == "updated" else label


HTML_LANG = {"zh": "zh-CN", "en": "en"}


def text_lang(text: str | None) -> str:
    """The language a title or abstract is written in, as far as pages need it: Chinese when it holds Chinese
    characters, else English (the sources' papers are English)."""
    return "zh" if has_han(text or "") else "en"


def lang_attr(text: str | None, page_lang: str) -> Markup:
    """` lang="en"` (or `zh-CN`) for a text in another language than the page's, so a screen reader or a browser's
    hyphenation reads it as written; nothing when the text is in the page's language."""
    written = text_lang(text)
    return Markup(f' lang="{HTML_LANG[written]}"') if written != page_lang else Markup("")


def author_page_key(name: str) -> str:
    """The key of an author's page: the full name as written ("Yinghui Li" → "li yinghui")."""
    return display_name_key(name)


def reason_text(reason: dict[str, Any], lang: str) -> str:
    """'数学推理: reasoning(摘要)' / 'math reasoning: reasoning (in the abstract)': a match's reason in the reader's
    language, a subtopic and an institution by their Chinese names when the page is Chinese."""
    return worded_reason(reason, Translator(lang), chinese_names=lang == "zh")


def subtopic_names(topics: list[Any]) -> dict[tuple[str, str], str]:
    """(topic id, subtopic id) → Chinese subtopic name, to label topic hit reasons."""
    return {(topic.id, sub.id): sub.name_zh for topic in topics for sub in topic.subtopics if sub.name_zh}


def with_zh_subtopics(
    topic_id: str, reasons: list[dict[str, Any]], names: dict[tuple[str, str], str]
) -> list[dict[str, Any]]:
    return [{**r, "subtopic_zh": names.get((topic_id, r.get("subtopic_id") or ""))} for r in reasons]


def page_numbers(page: int, total: int, size: int, around: int = 2) -> list[int | None]:
    """Page links to show: first, last and a few around the current one; None marks a gap."""
    last = max(1, -(-total // size))
    wanted = sorted({1, last, *range(max(1, page - around), min(last, page + around) + 1)})
    numbers: list[int | None] = []
    for number in wanted:
        if numbers and number - (numbers[-1] or 0) > 1:
            numbers.append(None)
        numbers.append(number)
    return numbers


def paper_links(paper: dict[str, Any]) -> list[tuple[str, str]]:
    """Named links of a paper (arXiv abs/pdf, DOI, anthology …), from its links and ids; only http(s) URLs (the
    normalizer keeps no other, but a paper stored before it did holds its source's links as given)."""
    links = web_links(paper.get("links") or {})
    ids = paper.get("ids") or {}
    if ids.get("arxiv"):
        links.setdefault("abs", f"https://arxiv.org/abs/{ids['arxiv']}")
        links.setdefault("pdf", f"https://arxiv.org/pdf/{ids['arxiv']}")
    if not any(name.startswith("doi") for name in links):
        for doi in ids.get("dois") or []:
            links[f"doi:{doi}"] = f"https://doi.org/{doi}"
    if ids.get("acl"):
        links.setdefault("anthology", f"https://aclanthology.org/{ids['acl']}")
    return sorted(links.items(), key=lambda item: LINK_ORDER.get(item[0].split(":")[0], 9))


LINK_ORDER = {"abs": 0, "pdf": 1, "anthology": 2, "doi": 3}
# where the paper itself is read, linked at the top of its page (the rest of `paper_links` under "Ids and links")
READ_KINDS = ("abs", "pdf", "anthology")


def reading_links(paper: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, URL) of the paper's arXiv abstract, PDF and Anthology page, as `paper_links` gives them."""
    return [(name, url) for name, url in paper_links(paper) if name in READ_KINDS]


# The paper's own resources, in the order cards show them; labelled in the reader's language (i18n `link_<kind>`).
RESOURCE_KINDS = ("code", "dataset", "model", "demo", "project")


def resource_links(paper: dict[str, Any]) -> list[tuple[str, str]]:
    """(kind, URL) of the paper's code, data, model, demo and project page; only http(s) URLs, as `paper_links`."""
    links = paper.get("links") or {}
    return [(kind, links[kind]) for kind in RESOURCE_KINDS if is_web_link(links.get(kind))]


LINK_LABELS = {"abs": "arXiv abs", "pdf": "PDF", "anthology": "ACL Anthology", "doi": "DOI", "hf": "Hugging Face"}


def link_label(name: str, t: Translator | None = None) -> str:
    """'abs' → 'arXiv abs', 'doi:10.1/x' → 'DOI 10.1/x', 'code' → '代码' (with the page's translator)."""
    kind, _, rest = name.partition(":")
    label = (labels.link_kind(t, kind, "") if t is not None else None) or LINK_LABELS.get(kind, kind)
    return f"{label} {rest}" if rest else label


_TAG_OF = {"bold": "b", "italic": "i", "code": "code", "underline": "u"}


def _tex_html(parts: Iterable[TexPart]) -> str:
    out: list[str] = []
    for part in parts:
        if isinstance(part, str):
            out.append(escape(part))
        elif isinstance(part, Formula):
            out.append(escape(part.source))  # KaTeX reads it from the page's text
        elif isinstance(part, Dollar):
            out.append('<span class="tex-dollar">$</span>')  # alone in its element: KaTeX pairs no `$` with it
        elif isinstance(part, Styled):
            tag = _TAG_OF.get(part.style)
            inner = _tex_html(part.parts)
            out.append(f"<{tag}>{inner}</{tag}>" if tag else f'<span class="smallcaps">{inner}</span>')
        else:
            inner = _tex_html(part.parts)
            # only a web address becomes a link: an author's `\href{javascript:…}` is shown as its text
            if is_web_link(part.url):
                out.append(f'<a href="{escape(part.url)}" rel="noopener nofollow">{inner}</a>')
            else:
                out.append(inner)
    return "".join(out)


def tex_html(text: str | None) -> Markup:
    """Text-mode LaTeX of a title or abstract as safe HTML (`\\textbf{x}` → `<b>x</b>`, `30\\%` → `30%`), every
    character of the source escaped; formulas stay as written for KaTeX."""
    return Markup(_tex_html(tex_parts(text or "")))
