"""A match's reason as one line of text in the language of the translator the caller passes: a reader's on the pages
and in push messages, English in digests and Atom feeds. Every message is a literal (papertrail/domain/wording.py);
the Chinese is in the catalog. No I/O."""

from typing import Any

from papertrail.domain.text import has_han
from papertrail.domain.wording import N_, NP_, Labels, Wording

# an author follow's match through less than the name as written (papertrail/domain/follows/authors.py, rule 4)
NAME_MATCH = Labels(
    {
        "initial": N_("author %(name)s (initial only)"),
        "initials": N_("author %(name)s (initials only)"),
        "family": N_("author %(name)s (family name only)"),
    }
)
# where a keyword or topic term was found
FIELD = Labels({"title": N_("title"), "abstract": N_("abstract"), "authors": N_("authors")})
# where a Chinese term was found: matching reads the Chinese title as part of the title and the AI summary's Chinese
# sections as part of the abstract (compiled.py), and a Chinese term can be found nowhere else
FIELD_ZH = Labels({"title": N_("Chinese title"), "abstract": N_("AI summary")})
# where a venue follow's acceptance was read
EVIDENCE = Labels(
    {
        "comment": NP_("venue evidence", "comment"),
        "journal_ref": NP_("venue evidence", "journal reference"),
        "doi": NP_("venue evidence", "DOI"),
        "proceedings": NP_("venue evidence", "proceedings"),
    }
)


def venue_evidence(reason: dict[str, Any], t: Wording) -> str:
    """`comment of v3`, `proceedings`: where a venue follow's acceptance was read."""
    code = reason.get("evidence") or ""
    evidence = EVIDENCE(t, code)
    version = reason.get("source_version")
    if version and code in ("comment", "journal_ref"):
        return t.gettext("%(evidence)s of %(version)s", evidence=evidence, version=version)
    return evidence


def reason_text(reason: dict[str, Any], t: Wording, chinese_names: bool = False) -> str:
    """`retrieval (in the title)`, `math reasoning: reasoning (in the abstract)`, `author Jane Doe`, `author Y. Li
    (initial only)` (an author follow matched through less than the name as written), or for a similar follow
    `similar to "SafeConv: …" (0.74)` (the closest seed paper) or `similar to your description (0.71)`, or for a
    venue follow `accepted at ICML 2026 (comment of v3)`, or for an institution follow `an author at Tsinghua
    University`. With `chinese_names`, a subtopic and an institution are named in Chinese where the reason has
    their Chinese names (`subtopic_zh`, `term_zh`)."""
    field = str(reason.get("field") or "")
    term = reason.get("term", "")
    if field == "institution":
        name = (chinese_names and reason.get("term_zh")) or term
        return t.gettext("an author at %(institution)s", institution=name)
    if field == "venue":
        evidence = venue_evidence(reason, t)
        if evidence:
            return t.gettext("accepted at %(venue)s (%(evidence)s)", venue=term, evidence=evidence)
        return t.gettext("accepted at %(venue)s", venue=term)
    if field == "similar":
        score = f"{reason.get('score') or 0:.2f}"
        if reason.get("seed_id"):
            return t.gettext('similar to "%(title)s" (%(score)s)', title=term, score=score)
        return t.gettext("similar to your description (%(score)s)", score=score)
    if field == "authors":
        return NAME_MATCH(t, reason.get("name_match") or "", "", name=term) or t.gettext("author %(name)s", name=term)
    where = FIELD_ZH(t, field) if has_han(term) and field in FIELD_ZH else FIELD(t, field)
    hit = t.gettext("%(term)s (in the %(field)s)", term=term, field=where)
    subtopic = (chinese_names and reason.get("subtopic_zh")) or reason.get("subtopic")
    return t.gettext("%(subtopic)s: %(hit)s", subtopic=subtopic, hit=hit) if subtopic else hit
