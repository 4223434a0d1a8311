"""Matching rules: which follows a paper satisfies and why, through one multi-pattern automaton. No I/O.

Every term of every keyword expression and topic rule, and every followed author key, is one pattern of a
single Aho–Corasick automaton (pyahocorasick). A paper's folded title and abstract, padded with spaces, and
its author keys are scanned once; only the follows owning a pattern that occurred are evaluated. Terms
match on word boundaries because a pattern is " term " (or " term" for a prefix term written `term*`).

Follow changes are cheap: a follow whose terms are already patterns changes only the term → follows maps;
a new pattern marks the automaton for a rebuild that happens once, before the next paper, however many
follows changed in between; patterns of removed follows stay until stale ones outnumber live ones.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from itertools import repeat
from typing import Any, Literal, get_args

import ahocorasick

from papertrail.domain.follows.authors import AuthorRule, author_rule, normalize_orcid
from papertrail.domain.follows.catalogue import Topic, check_subtopics
from papertrail.domain.follows.expressions import (
    Expression,
    Predicate,
    chinese_words_of,
    compile_predicate,
    parse_expression,
)
from papertrail.domain.text import fold, has_cjk
from papertrail.domain.venues.accepted import AcceptedVenue, accepted_venues
from schemas.events import Follow, FollowKind, FollowMatched, MatchReason, Subtopic
from schemas.paper import Author, Paper
from schemas.summary import Summary
from schemas.unchecked import unchecked

TextField = Literal["title", "abstract"]
FIELDS: dict[str, tuple[TextField, ...]] = {
    "title": ("title",),
    "abstract": ("abstract",),
    "both": ("title", "abstract"),
}
TEXT_FIELDS: tuple[TextField, ...] = ("title", "abstract")
# where a rule looks, as an index into a paper's (title hits, abstract hits, hits in either) sets
_FIELD_SLOT: dict[tuple[TextField, ...], int] = {("title",): 0, ("abstract",): 1, ("title", "abstract"): 2}
_AUTHOR_SEP = "\x1f"  # never in folded text, so author keys only hit the author string
_ZH_SEP = "\x1e"  # never in folded text: a Chinese term never spans the English text and the Chinese after it
# the AI summary's Chinese sections a Chinese keyword term looks in, beside the Chinese title
SUMMARY_ZH_FIELDS = ("tldr_zh", "motivation_zh", "method_zh", "result_zh", "conclusion_zh")


def chinese(summary: Mapping[str, Any]) -> tuple[str, str]:
    """A summary's (or a search document's) Chinese title and Chinese sections, as PaperText.build takes them."""
    sections = (summary.get(name) for name in SUMMARY_ZH_FIELDS)
    return summary.get("title_zh") or "", " ".join(s for s in sections if s)


@dataclass(frozen=True, slots=True)
class PaperText:
    """What matching reads of a paper: folded, space-padded title and abstract, categories, authors and the venues
    it was accepted at."""

    paper_id: str
    title: str
    abstract: str
    categories: frozenset[str]
    authors: tuple[Author, ...]
    venues: tuple[AcceptedVenue, ...] = ()

    @classmethod
    def of(cls, paper: Paper, summary: Summary | None = None) -> "PaperText":
        zh = summary.model_dump(include={"title_zh", *SUMMARY_ZH_FIELDS}) if summary is not None else {}
        venues = accepted_venues(paper)
        return cls.build(paper.id, paper.title, paper.abstract, paper.categories, paper.authors, venues, *chinese(zh))

    @classmethod
    def build(
        cls,
        paper_id: str,
        title: str,
        abstract: str,
        categories: Iterable[str],
        authors: Iterable[Author],
        venues: tuple[AcceptedVenue, ...] = (),
        title_zh: str = "",
        summary_zh: str = "",
    ) -> "PaperText":
        """The paper's Chinese title (its AI summary's) is read as part of its title, and the summary's Chinese TL;DR
        and 导读 as part of its abstract: a term in Chinese finds them there (English terms, padded, cannot)."""
        return cls(
            paper_id,
            f" {fold(title)} " + (f"{_ZH_SEP}{fold(title_zh)}{_ZH_SEP}" if title_zh else ""),
            f" {fold(abstract)} " + (f"{_ZH_SEP}{fold(summary_zh)}{_ZH_SEP}" if summary_zh else ""),
            frozenset(categories),
            tuple(authors),
            venues,
        )

    def text(self, name: TextField) -> str:
        return self.title if name == "title" else self.abstract

    def author_string(self) -> str:
        return _AUTHOR_SEP + _AUTHOR_SEP.join(a.key for a in self.authors) + _AUTHOR_SEP


def standing_alone(term_keys: set[str], text: str) -> set[str]:
    """The term keys found in `text`, less each one-character Chinese word (大 of 大模型推理, cut 大 / 模型 / 推理) that
    occurs there only inside a longer word (大量, 大幅): Meilisearch finds such a word only where the text's own cut
    has it, and a follow agrees with the search. The text is cut only when such a word was found."""
    lone = {key for key in term_keys if len(key) == 1 and has_cjk(key)}
    if not lone:
        return term_keys
    chinese = text.split(_ZH_SEP)[1] if _ZH_SEP in text else text
    return term_keys - (lone - chinese_words_of(chinese))


@dataclass(frozen=True, slots=True)
class Rule:
    """One keyword rule: a follow's expression, or one subtopic of a topic follow."""

    expression: Expression
    fields: tuple[TextField, ...]
    categories: frozenset[str]
    subtopic: Subtopic | None = None


@dataclass(frozen=True, slots=True)
class InstitutionRule:
    """An institution follow: papers one of whose authors' affiliations was matched to this ROR record."""

    ror: str

    def reasons(self, paper: PaperText, categories: frozenset[str]) -> list[MatchReason]:
        """One reason, "an author at Tsinghua University", however many of the paper's authors are there."""
        if not _categories_ok(paper, categories):
            return []
        for author in paper.authors:
            for inst in author.institutions:
                if inst.ror == self.ror:
                    name = inst.name or inst.affiliation
                    matched = sorted(categories & paper.categories)
                    return [MatchReason(term=name, term_zh=inst.name_zh, field="institution", categories=matched)]
        return []


def institution_ids(paper: PaperText) -> set[str]:
    """The ROR ids of the paper's authors' institutions: the institution follows it may match."""
    return {inst.ror for author in paper.authors for inst in author.institutions if inst.ror}


@dataclass(frozen=True, slots=True)
class VenueRule:
    """A venue follow: one catalogue venue (an edition, a track), or every venue of a CCF field (of a rank). The rank
    is the venue's: a claim's own `ccf_rank` is set for its main track only."""

    venue_key: str | None
    year: int | None
    track: str | None
    ccf_field: str | None
    ccf_rank: str | None

    def holds(self, venue: AcceptedVenue) -> bool:
        if self.venue_key is not None and venue.venue_key != self.venue_key:
            return False
        if self.ccf_field is not None and venue.ccf_field != self.ccf_field:
            return False
        if self.ccf_rank is not None and venue.ccf_rank != self.ccf_rank:
            return False
        # a workshop at ICML is not ICML: a follow of no track takes every other track, a workshop only if asked
        track_ok = venue.track != "workshop" if self.track is None else venue.track == self.track
        return track_ok and (self.year is None or venue.year == self.year)

    def reasons(self, paper: PaperText, categories: frozenset[str]) -> list[MatchReason]:
        """One reason per accepted venue the rule holds for: "accepted at ICML 2026", where it was read and in
        which version."""
        if not _categories_ok(paper, categories):
            return []
        matched = sorted(categories & paper.categories)
        return [
            MatchReason(
                term=v.label,
                field="venue",
                categories=matched,
                evidence=v.evidence,
                source_version=v.source_version,
            )
            for v in paper.venues
            if self.holds(v)
        ]


@dataclass(frozen=True, slots=True)
class _RuleCheck:
    """A rule prepared for the automaton path: its expression as a closure, its reason terms pre-sorted."""

    slot: int  # _FIELD_SLOT of the rule's fields
    fields: tuple[tuple[TextField, int], ...]  # each field the rule looks in, with its slot
    categories: frozenset[str]
    reason_categories: frozenset[str]  # the rule's and the follow's: a reason lists those the paper has
    holds: Predicate
    positive_terms: tuple[str, ...]  # sorted, the order reasons are listed in
    shown: dict[str, str]  # a term key → the term a reason names, where they differ (Expression.shown)
    subtopic: str | None
    subtopic_id: str | None

    @classmethod
    def of(cls, rule: Rule, follow_categories: frozenset[str]) -> "_RuleCheck":
        sub = rule.subtopic
        return cls(
            slot=_FIELD_SLOT[rule.fields],
            fields=tuple((f, _FIELD_SLOT[(f,)]) for f in rule.fields),
            categories=rule.categories,
            reason_categories=rule.categories | follow_categories,
            holds=compile_predicate(rule.expression),
            positive_terms=tuple(sorted(rule.expression.positive_terms)),
            shown=rule.expression.shown_as(),
            subtopic=sub.name if sub else None,
            subtopic_id=sub.id if sub else None,
        )


@dataclass(frozen=True, slots=True)
class CompiledFollow:
    follow: Follow
    rules: tuple[Rule, ...] = ()
    author: AuthorRule | None = None
    venue: VenueRule | None = None
    institution: InstitutionRule | None = None
    # Follows with equal signatures (the same catalogue topic, the same expression) have equal reasons for
    # a paper, so matching evaluates each signature once per paper however many users share it.
    signature: tuple = ()
    checks: tuple[_RuleCheck, ...] = field(init=False, repr=False, compare=False)
    categories: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        categories = frozenset(self.follow.categories)
        object.__setattr__(self, "checks", tuple(_RuleCheck.of(r, categories) for r in self.rules))
        object.__setattr__(self, "categories", categories)

    def fast_reasons(self, paper: PaperText, slots: tuple[set[str], set[str], set[str]]) -> list[MatchReason]:
        """follow_reasons for a keyword or topic follow, from the paper's term hits per field slot.

        The same answer as follow_reasons (the naive loop and the tests compare them), in fewer steps:
        categories first, then the compiled expression, and reasons only for rules that hold.
        """
        paper_categories = paper.categories
        follow_categories = self.categories
        if follow_categories and follow_categories.isdisjoint(paper_categories):
            return []
        reasons: list[MatchReason] = []
        for check in self.checks:
            if check.categories and check.categories.isdisjoint(paper_categories):
                continue
            hits = slots[check.slot]
            if not check.holds(hits):
                continue
            wanted = check.reason_categories
            matched = tuple(sorted(wanted & paper_categories)) if wanted else ()
            first = len(reasons)
            for term in check.positive_terms:
                if term in hits:
                    for name, slot in check.fields:
                        if term in slots[slot]:
                            shown = check.shown.get(term, term)
                            reasons.append(_reason(check.subtopic, check.subtopic_id, shown, name, matched))
            if check.shown:  # the words of one written term: named once per field
                reasons[first:] = _once(reasons[first:])
        return reasons

    @property
    def terms(self) -> set[str]:
        return {t for r in self.rules for t in r.expression.terms}

    @property
    def triggers(self) -> set[str]:
        """A paper this follow matches contains one of these terms (one per rule suffices: rules are ORed)."""
        return {t for r in self.rules for t in r.expression.triggers}


def compile_follow(follow: Follow, topics: dict[str, Topic]) -> CompiledFollow:
    """Check and compile a follow; ValueError (ExpressionError for expressions) naming the problem."""
    categories = frozenset(follow.categories)
    if follow.kind == "similar":
        # matched by its vectors (papertrail/embedding/similarity.py), never by terms: here only to be known by id
        if not follow.seeds and not follow.description:
            raise ValueError("a similar follow needs seed papers or a description")
        return CompiledFollow(follow, signature=("similar", follow.id))
    if follow.kind == "keyword":
        if not follow.query:
            raise ValueError("a keyword follow needs a query")
        rule = Rule(parse_expression(follow.query), FIELDS[follow.fields], categories)
        return CompiledFollow(follow, rules=(rule,), signature=("keyword", follow.query, follow.fields, categories))
    if follow.kind == "author":
        if not follow.author:
            raise ValueError("an author follow needs an author name")
        pins = {"affiliation": follow.affiliation, "orcid": follow.orcid, "source_author_id": follow.source_author_id}
        author = author_rule(follow.author, **pins)
        return CompiledFollow(follow, author=author, signature=("author", author, categories))
    if follow.kind == "venue":
        if not follow.venue_key and not follow.venue_field:
            raise ValueError("a venue follow needs a venue_key, or a venue_field (and a venue_rank)")
        venue = VenueRule(
            follow.venue_key, follow.venue_year, follow.venue_track, follow.venue_field, follow.venue_rank
        )
        return CompiledFollow(follow, venue=venue, signature=("venue", venue, categories))
    if follow.kind == "institution":
        if not follow.institution:
            raise ValueError("an institution follow needs an institution (a ROR id)")
        institution = InstitutionRule(follow.institution)
        return CompiledFollow(follow, institution=institution, signature=("institution", institution, categories))
    subtopics = follow.subtopics
    if follow.topic_id:
        if follow.topic_id not in topics:
            raise ValueError(f"unknown topic {follow.topic_id!r}; the catalogue has {', '.join(sorted(topics))}")
        subtopics = subtopics or topics[follow.topic_id].subtopics
    if not subtopics:
        raise ValueError("a topic follow needs a catalogue topic_id or its own subtopics")
    check_subtopics(subtopics, f"topic {follow.topic_id or follow.name!r}")
    rules = tuple(
        Rule(
            parse_expression(s.rule),
            FIELDS[s.fields],
            # the subtopic's categories and the follow's own filter must both hold
            frozenset(s.categories),
            s,
        )
        for s in subtopics
    )
    signature = ("topic", tuple((s.rule, s.fields, tuple(s.categories), s.id, s.name) for s in subtopics), categories)
    return CompiledFollow(follow, rules=rules, signature=signature)


def _categories_ok(paper: PaperText, wanted: frozenset[str]) -> bool:
    return not wanted or bool(wanted & paper.categories)


def rule_reasons(
    rule: Rule, follow_categories: frozenset[str], paper: PaperText, hits: dict[str, set[str]]
) -> list[MatchReason]:
    """The reasons `rule` holds for the paper given the fields each term key hit in, or [] when it does not."""
    if not _categories_ok(paper, rule.categories) or not _categories_ok(paper, follow_categories):
        return []
    present = set()
    for term in rule.expression.terms:
        found = hits.get(term)
        if found is not None and not found.isdisjoint(rule.fields):
            present.add(term)
    if not present or not rule.expression.evaluate(present):
        return []
    matched_categories = sorted((rule.categories | follow_categories) & paper.categories)
    sub = rule.subtopic
    shown = rule.expression.shown_as()
    reasons = (
        _reason(sub.name if sub else None, sub.id if sub else None, shown.get(term, term), f, tuple(matched_categories))
        for term in sorted(rule.expression.positive_terms & present)
        for f in rule.fields
        if f in hits[term]
    )
    return _once(list(reasons))


def _once(reasons: list[MatchReason]) -> list[MatchReason]:
    """Each (term, field) once, in order: the words of a written term name it once per field (within one rule, the
    reasons of one term and field are equal)."""
    return list({(r.term, r.field): r for r in reasons}.values())


@lru_cache(maxsize=100_000)
def _reason(
    subtopic: str | None, subtopic_id: str | None, term: str, field: TextField, categories: tuple[str, ...]
) -> MatchReason:
    """Reasons repeat across papers, so each distinct one is built once (callers never mutate them)."""
    return MatchReason.model_construct(
        subtopic=subtopic, subtopic_id=subtopic_id, term=term, field=field, categories=list(categories)
    )


def follow_reasons(compiled: CompiledFollow, paper: PaperText, hits: dict[str, set[str]]) -> list[MatchReason]:
    follow_categories = frozenset(compiled.follow.categories)
    if compiled.venue is not None:
        return compiled.venue.reasons(paper, follow_categories)
    if compiled.institution is not None:
        return compiled.institution.reasons(paper, follow_categories)
    if compiled.author is not None:
        if not _categories_ok(paper, follow_categories):
            return []
        matched_categories = sorted(follow_categories & paper.categories)
        matched = ((a, compiled.author.match(a)) for a in paper.authors)
        return [
            MatchReason(term=a.name, field="authors", categories=matched_categories, name_match=how)
            for a, how in matched
            if how is not False
        ]
    return [r for rule in compiled.rules for r in rule_reasons(rule, follow_categories, paper, hits)]


def scan_terms(compiled: CompiledFollow, paper: PaperText) -> dict[str, set[str]]:
    """Term key → fields it occurs in, for one follow's terms, by plain substring search (no automaton)."""
    hits: dict[str, set[str]] = {}
    for term in compiled.terms:
        pattern = _pattern(term)
        found: set[str] = {
            name for name in TEXT_FIELDS if pattern in paper.text(name) and standing_alone({term}, paper.text(name))
        }
        if found:
            hits[term] = found
    return hits


def match_one(compiled: CompiledFollow, paper: PaperText) -> list[MatchReason]:
    """The reasons one follow matches one paper (used by backfill and by the naive baseline)."""
    return follow_reasons(compiled, paper, scan_terms(compiled, paper))


def _pattern(term_key: str) -> str:
    """A term as the automaton looks for it: on word boundaries (spaces, the text being folded and padded); a term
    holding CJK characters anywhere, as Chinese is written without spaces between words."""
    if has_cjk(term_key):
        return term_key.removesuffix("*")
    return f" {term_key[:-1]}" if term_key.endswith("*") else f" {term_key} "


@dataclass
class _Group:
    """Follows with one signature: evaluated once per paper through the representative."""

    compiled: CompiledFollow
    follow_ids: set[str] = field(default_factory=set)
    # follow ids sorted, and their follows, rebuilt after the group changes: each paper fans out to these
    members: tuple[tuple[str, ...], tuple[Follow, ...]] | None = None


@dataclass
class FollowIndex:
    """Every active follow, compiled and grouped by signature, with the automaton over all terms and author keys.

    The term and author maps point at signatures, not follows: a paper costs one evaluation per distinct
    rule that could hold, however many users follow it.
    """

    topics: dict[str, Topic] = field(default_factory=dict)
    follows: dict[str, CompiledFollow] = field(default_factory=dict)
    groups: dict[tuple, _Group] = field(default_factory=dict)
    by_term: dict[str, set[tuple]] = field(default_factory=dict)  # every term → signatures: the patterns
    by_trigger: dict[str, set[tuple]] = field(default_factory=dict)  # trigger term → signatures it makes candidates
    by_author_key: dict[str, set[tuple]] = field(default_factory=dict)
    by_orcid: dict[str, set[tuple]] = field(default_factory=dict)
    by_source_id: dict[tuple[str, str], set[tuple]] = field(default_factory=dict)
    # venue follows by the venue key they name, or by the CCF field they cover: a paper's accepted venues look them up
    by_venue: dict[str, set[tuple]] = field(default_factory=dict)
    # institution follows by the ROR id they name: a paper's authors' institutions look them up
    by_institution: dict[str, set[tuple]] = field(default_factory=dict)
    rebuilds: int = 0
    _automaton: ahocorasick.Automaton | None = None
    _patterns: set[tuple[str, str]] = field(default_factory=set)  # (kind, key) currently in the automaton
    _dirty: bool = False

    # follow changes --------------------------------------------------------------------------------------
    def upsert(self, follow: Follow) -> CompiledFollow:
        """Add or replace a follow; ValueError when it does not compile (the index is left unchanged)."""
        compiled = compile_follow(follow, self.topics)
        self.remove(follow.id)
        self.follows[follow.id] = compiled
        group = self.groups.get(compiled.signature)
        if group is None:
            group = self.groups[compiled.signature] = _Group(compiled)
            self._link_group(compiled)
        group.follow_ids.add(follow.id)
        group.members = None
        return compiled

    def remove(self, follow_id: str) -> None:
        compiled = self.follows.pop(follow_id, None)
        if compiled is None:
            return
        group = self.groups[compiled.signature]
        group.follow_ids.discard(follow_id)
        group.members = None
        if not group.follow_ids:
            del self.groups[compiled.signature]
            self._unlink_group(group.compiled)

    def _link_group(self, compiled: CompiledFollow) -> None:
        sig = compiled.signature
        for term in compiled.terms:
            self.by_term.setdefault(term, set()).add(sig)
            self._dirty |= ("term", term) not in self._patterns
        for term in compiled.triggers:
            self.by_trigger.setdefault(term, set()).add(sig)
        if (author := compiled.author) is not None:
            self.by_author_key.setdefault(author.key, set()).add(sig)
            self._dirty |= ("author", author.key) not in self._patterns
            if author.orcid:
                self.by_orcid.setdefault(author.orcid, set()).add(sig)
            if author.source_id:
                self.by_source_id.setdefault(author.source_id, set()).add(sig)
        if (venue := compiled.venue) is not None:
            self.by_venue.setdefault(_venue_slot(venue.venue_key, venue.ccf_field), set()).add(sig)
        if (institution := compiled.institution) is not None:
            self.by_institution.setdefault(institution.ror, set()).add(sig)

    def _unlink_group(self, compiled: CompiledFollow) -> None:
        sig = compiled.signature
        for term in compiled.terms:
            _unlink(self.by_term, term, sig)
        for term in compiled.triggers:
            _unlink(self.by_trigger, term, sig)
        if (author := compiled.author) is not None:
            _unlink(self.by_author_key, author.key, sig)
            if author.orcid:
                _unlink(self.by_orcid, author.orcid, sig)
            if author.source_id:
                _unlink(self.by_source_id, author.source_id, sig)
        if (venue := compiled.venue) is not None:
            _unlink(self.by_venue, _venue_slot(venue.venue_key, venue.ccf_field), sig)
        if (institution := compiled.institution) is not None:
            _unlink(self.by_institution, institution.ror, sig)

    def __len__(self) -> int:
        return len(self.follows)

    def count_by_kind(self) -> dict[str, int]:
        counts = dict.fromkeys(get_args(FollowKind), 0)
        for compiled in self.follows.values():
            counts[compiled.follow.kind] += 1
        return counts

    # the automaton --------------------------------------------------------------------------------------
    def _live_patterns(self) -> set[tuple[str, str]]:
        return {("term", t) for t in self.by_term} | {("author", k) for k in self.by_author_key}

    def automaton(self) -> ahocorasick.Automaton:
        live = len(self.by_term) + len(self.by_author_key)
        stale = len(self._patterns) - live if not self._dirty else 0
        if self._automaton is None or self._dirty or stale > max(live, 1000):
            automaton = ahocorasick.Automaton()
            patterns = self._live_patterns()
            for kind, key in patterns:
                word = _pattern(key) if kind == "term" else f"{_AUTHOR_SEP}{key}{_AUTHOR_SEP}"
                automaton.add_word(word, (kind, key))
            if patterns:
                automaton.make_automaton()
            self._automaton, self._patterns, self._dirty = automaton, patterns, False
            self.rebuilds += 1
        return self._automaton

    # matching -------------------------------------------------------------------------------------------
    def term_hits(self, paper: PaperText) -> tuple[tuple[set[str], set[str], set[str]], set[str]]:
        """The term keys that occurred in the title, in the abstract and in either, and the author keys present."""
        automaton = self.automaton()
        if automaton.kind != ahocorasick.AHOCORASICK:
            return (set(), set(), set()), set()  # no patterns at all
        # author patterns are wrapped in \x1f, which folded text never holds: every text hit is a term
        title = standing_alone({key for _, (_, key) in automaton.iter(paper.title)}, paper.title)
        abstract = standing_alone({key for _, (_, key) in automaton.iter(paper.abstract)}, paper.abstract)
        author_keys = {key for _, (kind, key) in automaton.iter(paper.author_string()) if kind == "author"}
        return (title, abstract, title | abstract), author_keys

    def candidates(self, paper: PaperText, terms: set[str], author_keys: set[str]) -> set[tuple]:
        """Signatures that could hold: a trigger term or a followed author key (or pinned id) occurred."""
        by_trigger = self.by_trigger
        # one C-level union over the owner sets of the trigger terms that occurred: ~100 per paper
        found: set[tuple] = set().union(*map(by_trigger.__getitem__, by_trigger.keys() & terms))
        for key in author_keys:
            found |= self.by_author_key.get(key, set())
        for author in paper.authors:
            if author.orcid and self.by_orcid:
                found |= self.by_orcid.get(normalize_orcid(author.orcid), set())
            for source, ident in author.source_ids.items():
                found |= self.by_source_id.get((source, ident), set())
        if self.by_venue:
            for venue in paper.venues:
                if venue.venue_key:
                    found |= self.by_venue.get(_venue_slot(venue.venue_key, None), set())
                if venue.ccf_field:
                    found |= self.by_venue.get(_venue_slot(None, venue.ccf_field), set())
        if self.by_institution:
            for ror in institution_ids(paper):
                found |= self.by_institution.get(ror, set())
        return found

    def match(self, paper: Paper | PaperText) -> list[tuple[Follow, list[MatchReason]]]:
        """Every follow the paper satisfies, with its reasons, evaluating only rules whose patterns hit."""
        text = paper if isinstance(paper, PaperText) else PaperText.of(paper)
        slots, author_keys = self.term_hits(text)
        # (follow id, follow, reasons): follow ids are unique, so sorting compares ids only
        found: list[tuple[str, Follow, list[MatchReason]]] = []
        groups = self.groups
        for signature in self.candidates(text, slots[2], author_keys):
            group = groups[signature]
            compiled = group.compiled
            if compiled.author is None and compiled.venue is None and compiled.institution is None:
                reasons = compiled.fast_reasons(text, slots)
            else:
                reasons = follow_reasons(compiled, text, {})
            if reasons:
                if group.members is None:
                    ids = tuple(sorted(group.follow_ids))
                    group.members = ids, tuple(self.follows[fid].follow for fid in ids)
                ids, follows = group.members
                # every follow of the group shares the one reasons list: reasons are never mutated
                found.extend(zip(ids, follows, repeat(reasons)))
        if not found:
            return []
        found.sort()
        _, follows, reasons_lists = zip(*found, strict=True)
        return list(zip(follows, reasons_lists, strict=True))

    def match_naive(self, paper: Paper | PaperText) -> list[tuple[Follow, list[MatchReason]]]:
        """The same answer by looping over every follow and searching each of its terms: the baseline."""
        text = paper if isinstance(paper, PaperText) else PaperText.of(paper)
        results = []
        for follow_id in sorted(self.follows):
            compiled = self.follows[follow_id]
            reasons = match_one(compiled, text)
            if reasons:
                results.append((compiled.follow, reasons))
        return results


def _venue_slot(venue_key: str | None, ccf_field: str | None) -> str:
    """A venue follow's place in `by_venue`: its venue's key, or its CCF field (prefixed, never a key)."""
    return venue_key if venue_key is not None else f"field:{ccf_field}"


def _unlink(table: dict, key: object, owner: object) -> None:
    owners = table.get(key)
    if owners is not None:
        owners.discard(owner)
        if not owners:
            del table[key]


def topics_by_id(topics: Iterable[Topic]) -> dict[str, Topic]:
    return {t.id: t for t in topics}


def follow_matched(
    follow: Follow, paper_id: str, title: str, reasons: list[MatchReason], at: datetime, *, backfill: bool = False
) -> FollowMatched:
    """The follows.matched.v1 event of one match. Built unchecked: the follow and the reasons are models already, the
    paper's id and title come from a checked event, and a batch of papers can make ~100,000 matches."""
    return unchecked(
        FollowMatched,
        {
            "user_id": follow.user_id,
            "follow_id": follow.id,
            "follow_kind": follow.kind,
            "paper_id": paper_id,
            "reasons": list(reasons),  # its own list, as checking made it: a group of follows shares one
            "matched_at": at,
            "follow_name": follow.name,
            "topic_id": follow.topic_id,
            "paper_title": title,
            "backfill": backfill,
        },
    )
