"""Matching rules: which follows a paper satisfies and why, through one multi-pattern automaton. No I/O.

Every term of every keyword expression and topic rule, and every followed author key, is one pattern of a
single Aho–Corasick automaton (pyahocorasick). A paper's folded title and abstract, padded with spaces, and
its author keys are scanned once; only the follows owning a pattern that occurred are evaluated. Terms
match on word boundaries because a pattern is " term " (or " term" for a prefix term written `term*`).

Follow changes are cheap: a follow whose terms are already patterns changes only the term → follows maps;
a new pattern marks the automaton for a rebuild that happens once, before the next paper, however many
follows changed in between; patterns of removed follows stay until stale ones outnumber live ones.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from itertools import repeat
from typing import get_args

import ahocorasick

from papertrail.domain.follows.authors import normalize_orcid
from papertrail.domain.follows.catalogue import Topic
from papertrail.domain.follows.compiled import (
    AUTHOR_SEP,
    TEXT_FIELDS,
    CompiledFollow,
    PaperText,
    Rule,
    categories_ok,
    institution_ids,
    once_each,
    standing_alone,
    term_reason,
)
from papertrail.domain.follows.kinds import follow_kind
from papertrail.domain.text import has_cjk
from schemas.events import Follow, FollowKind, FollowMatched, MatchReason
from schemas.paper import Paper
from schemas.unchecked import unchecked


def compile_follow(follow: Follow, topics: dict[str, Topic]) -> CompiledFollow:
    """Check and compile a follow by its kind's module; ValueError (ExpressionError for expressions) naming the
    problem."""
    return follow_kind(follow.kind).compile(follow, topics)


def rule_reasons(
    rule: Rule, follow_categories: frozenset[str], paper: PaperText, hits: dict[str, set[str]]
) -> list[MatchReason]:
    """The reasons `rule` holds for the paper given the fields each term key hit in, or [] when it does not."""
    if not categories_ok(paper, rule.categories) or not categories_ok(paper, follow_categories):
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
        term_reason(
            sub.name if sub else None, sub.id if sub else None, shown.get(term, term), f, tuple(matched_categories)
        )
        for term in sorted(rule.expression.positive_terms & present)
        for f in rule.fields
        if f in hits[term]
    )
    return once_each(list(reasons))


def follow_reasons(compiled: CompiledFollow, paper: PaperText, hits: dict[str, set[str]]) -> list[MatchReason]:
    follow_categories = frozenset(compiled.follow.categories)
    if compiled.venue is not None:
        return compiled.venue.reasons(paper, follow_categories)
    if compiled.institution is not None:
        return compiled.institution.reasons(paper, follow_categories)
    if compiled.author is not None:
        if not categories_ok(paper, follow_categories):
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
                word = _pattern(key) if kind == "term" else f"{AUTHOR_SEP}{key}{AUTHOR_SEP}"
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
