"""Benchmark: authors told apart by the full name as written, on the real corpus: author pages and follows, before
(one author per family name and initial) and after (papertrail/domain/names.py `name_key`,
papertrail/domain/follows/authors.py).

    uv run python bench/author_split.py [--follows 2000] [--initials 0.2] [--seed 7]

Papers: the May 2026 arXiv corpus (/work/shared/corpus) and the ACL Anthology's 2024.acl.xml (tests/fixtures).
Pages: distinct keys authors are paged by, before ("li y") and after ("li yinghui"). Follows: author follows of
names drawn from the papers, a share of them written as the initial only ("Y. Li"), matched against every paper
by the rule before this change (given names compatible word by word over the shorter, as kept below) and after;
how many follows match other papers, and how many matches now say they rest on an initial.
"""

import argparse
import os
import platform
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from papertrail.domain.follows.authors import AuthorRule, author_rule
from papertrail.domain.names import display_name_key, initials_only, split_name
from papertrail.domain.text import fold
from schemas.paper import Author
from services.normalizer.parsers.acl import parse_acl
from tests.support.corpus import corpus_papers
from tests.support.sources import acl_records

Authored = tuple[str, Author]  # (paper id, one of its authors)


def papers_authors() -> list[tuple[str, list[Author]]]:
    papers = [(p.id, p.authors) for p in corpus_papers()]
    for raw in acl_records():
        try:
            parsed = parse_acl(raw.content)
        except ValueError:  # front matter
            continue
        papers.append((f"acl:{raw.record_id}", parsed.authors))
    return papers


def before_compatible(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """The given-name rule before this change, kept here to measure against: "Y.k." agreed with "Yinghui"."""
    if not a or not b or "".join(a) == "".join(b):
        return True
    return all(x == y or ((len(x) == 1 or len(y) == 1) and x[0] == y[0]) for x, y in zip(a, b, strict=False))


def before_matches(rule: AuthorRule, author: Author) -> bool:
    return author.key == rule.key and before_compatible(rule.given, tuple(fold(split_name(author.name)[0]).split()))


def as_initial(name: str) -> str:
    given, family = split_name(name)
    return f"{given[:1]}. {family}" if given else family


def follow_matches(name: str, by_key: dict[str, list[Authored]]) -> tuple[set[str], set[str], int, bool]:
    """A follow of `name`: the papers it matched before, after, how many matches after rest on initials, and whether
    every paper signed with the name as written still matches."""
    rule = author_rule(name)
    candidates = by_key.get(rule.key, [])
    before = {pid for pid, a in candidates if before_matches(rule, a)}
    after: set[str] = set()
    weak = 0
    for pid, a in candidates:
        how = rule.match(a)
        if how is not False:
            after.add(pid)
            weak += how is not None
    signed = {pid for pid, a in candidates if display_name_key(a.name) == display_name_key(name)}
    return before, after, weak, signed <= after


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--follows", type=int, default=2000)
    parser.add_argument("--initials", type=float, default=0.2, help="share of follows written as the initial only")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    started = time.perf_counter()
    papers = papers_authors()
    by_key: dict[str, list[Authored]] = defaultdict(list)
    for paper_id, authors in papers:
        for author in authors:
            by_key[author.key].append((paper_id, author))

    # pages: one per key, and the papers on it
    before_pages: dict[str, set[str]] = defaultdict(set)
    after_pages: dict[str, set[str]] = defaultdict(set)
    names_of: dict[str, set[str]] = defaultdict(set)  # initial key → the full-name keys under it
    for key, authored in by_key.items():
        for paper_id, author in authored:
            name = display_name_key(author.name)
            before_pages[key].add(paper_id)
            after_pages[name].add(paper_id)
            names_of[key].add(name)
    split = {key: names for key, names in names_of.items() if len(names) > 1}
    biggest = sorted(split, key=lambda k: (-len(split[k]), k))[:5]

    # follows: names as written on papers, some as the initial only
    rng = random.Random(args.seed)
    names = sorted({a.name for _, authors in papers for a in authors})
    wanted = [rng.choice(names) for _ in range(args.follows)]
    wanted = [as_initial(n) if rng.random() < args.initials else n for n in wanted]
    exact_kept = True
    # per kind of follow (a full name, an initial only): follows, changed, matches before, after, lost, gained, weak
    tally: dict[str, list[int]] = {"full name": [0] * 7, "initial only": [0] * 7}
    for name in wanted:
        before, after, initial_only, kept = follow_matches(name, by_key)
        row = tally["initial only" if initials_only(name) else "full name"]
        for n, value in enumerate(
            [1, before != after, len(before), len(after), len(before - after), len(after - before), initial_only]
        ):
            row[n] += value
        exact_kept &= kept
    yinghui_before, yinghui_after, _, _ = follow_matches("Yinghui Li", by_key)
    seconds = time.perf_counter() - started

    print(f"machine: {platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"papers: {len(papers)} ({sum(1 for p, _ in papers if p.startswith('acl:'))} ACL), authorships: "
          f"{sum(len(a) for _, a in papers)}")  # fmt: skip
    print(f"author pages: before {len(before_pages)} (family + initial), after {len(after_pages)} (full name)")
    print(f"pages that split: {len(split)}, into {sum(len(v) for v in split.values())} full-name pages")
    for key in biggest:
        print(f"  {key!r}: {len(before_pages[key])} papers on one page before, {len(split[key])} names after")
    largest_before = max(len(v) for v in before_pages.values())
    largest_after = max(len(v) for v in after_pages.values())
    print(f"largest page: before {largest_before} papers, after {largest_after}")
    print(f"follows: {args.follows} ({args.initials:.0%} written as an initial), seed {args.seed}")
    for kind, (count, changed, n_before, n_after, lost, gained, weak) in tally.items():
        share = f"{changed / max(count, 1):.1%}"
        print(f"  {kind}: {count} follows, {changed} match other papers ({share}); matches before {n_before}, "
              f"after {n_after} (lost {lost}, gained {gained}); {weak} reasons say they rest on initials")  # fmt: skip
    print(f"  every paper signed with a followed name as written still matches: {exact_kept}")
    print(f"  'Yinghui Li': {len(yinghui_before)} papers before, {len(yinghui_after)} after")
    print(f"time: {seconds:.1f} s")


if __name__ == "__main__":
    main()
