"""Benchmark: 10,000 follows against the May 2026 arXiv corpus, automaton path vs the naive loop, in one run.

    uv run python bench/match_follows.py [--follows 10000] [--naive-papers 300] [--seed 7]

Follows are generated from the topic catalogue (topic follows), the corpus vocabulary (keyword expressions
with AND / OR / NOT, parentheses and phrases, fields and category filters) and the corpus authors (author
follows). Both paths answer over the same index; their answers are compared on the papers both ran.
"""

import argparse
import itertools
import os
import platform
import random
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from papertrail.domain.follows.catalogue import load_catalogue
from papertrail.domain.follows.rules import FollowIndex, PaperText, topics_by_id
from papertrail.domain.text import fold
from schemas.events import Follow
from tests.support.corpus import corpus_papers

STOP = set(
    "a an the of for and or not in on with to from by as at is are be we our this that these those via using "
    "based its their it which can into than such also both while when where how what new show results method "
    "methods approach paper propose proposed model models task tasks data".split()
)


def vocabulary(papers: list, min_rank: int) -> tuple[list[str], list[str]]:
    """Title words ranked min_rank..min_rank+3000 by frequency, and two-word title phrases ranked min_rank/2.. ."""
    words: Counter[str] = Counter()
    phrases: Counter[str] = Counter()
    for paper in papers:
        tokens = [t for t in fold(paper.title).split() if not t.isdigit()]
        words.update(t for t in tokens if t not in STOP and len(t) > 2)
        phrases.update(f"{a} {b}" for a, b in itertools.pairwise(tokens) if a not in STOP and b not in STOP)
    top_words = [w for w, _ in words.most_common(min_rank + 3000)][min_rank:]
    top_phrases = [p for p, _ in phrases.most_common(min_rank // 2 + 1500)][min_rank // 2 :]
    return top_words, top_phrases


def term(rng: random.Random, words: list[str], phrases: list[str]) -> str:
    if rng.random() < 0.3:
        return f'"{rng.choice(phrases)}"'
    word = rng.choice(words)
    return word + "*" if rng.random() < 0.1 else word


def expression(rng: random.Random, words: list[str], phrases: list[str]) -> str:
    shape = rng.randrange(5)
    t = lambda: term(rng, words, phrases)  # noqa: E731
    if shape == 0:
        return t()
    if shape == 1:
        return f"{t()} AND {t()}"
    if shape == 2:
        return f"{t()} AND ({t()} OR {t()})"
    if shape == 3:
        return f"({t()} OR {t()} OR {t()}) NOT {t()}"
    return f"{t()} AND ({t()} OR {t()}) NOT {t()}"


def generate_follows(n: int, papers: list, rng: random.Random, min_rank: int = 50) -> list[Follow]:
    words, phrases = vocabulary(papers, min_rank)
    topics = load_catalogue()
    authors = sorted({a.name for p in papers for a in p.authors})
    categories = sorted({c for p in papers for c in p.categories if c.startswith("cs.")})
    now = datetime.now(UTC)
    follows = []
    for i in range(n):
        user = f"user-{i // 5}"
        roll = rng.random()
        if roll < 0.1:
            topic = rng.choice(topics)
            f: dict[str, object] = {"kind": "topic", "name": topic.name, "topic_id": topic.id}
        elif roll < 0.7:
            f = {
                "kind": "keyword",
                "name": f"kw {i}",
                "query": expression(rng, words, phrases),
                "fields": rng.choice(["both", "both", "title", "abstract"]),
                "categories": rng.sample(categories, 2) if rng.random() < 0.2 else [],
            }
        else:
            f = {"kind": "author", "name": f"author {i}", "author": rng.choice(authors)}
        follows.append(Follow.model_validate({"id": f"f{i}", "user_id": user, "created_at": now, **f}))
    return follows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--follows", type=int, default=10_000)
    parser.add_argument("--naive-papers", type=int, default=300, help="papers the slow naive loop runs over")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--min-rank", type=int, default=50, help="skip the most frequent title words (higher: more specific follows)"
    )
    args = parser.parse_args()
    rng = random.Random(args.seed)

    papers = corpus_papers()
    follows = generate_follows(args.follows, papers, rng, args.min_rank)
    index = FollowIndex(topics=topics_by_id(load_catalogue()))
    started = time.perf_counter()
    for follow in follows:
        index.upsert(follow)
    index.automaton()
    build_s = time.perf_counter() - started
    texts = [PaperText.of(p) for p in papers]

    subset = texts[:: max(1, len(texts) // args.naive_papers)][: args.naive_papers]
    compared = {t.paper_id for t in subset}
    # Like the service (one paper in, its matches out), keep only the answers compared below: holding all
    # ~670,000 matches made the garbage collector rescan them again and again, ~30% of the measured time.
    by_id = {}
    matches = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    for t in texts:
        found = index.match(t)
        matches += len(found)
        if t.paper_id in compared:
            by_id[t.paper_id] = found
    fast_s, fast_cpu_s = time.perf_counter() - started, time.process_time() - cpu_started

    started, cpu_started = time.perf_counter(), time.process_time()
    naive = [index.match_naive(t) for t in subset]
    naive_s, naive_cpu_s = time.perf_counter() - started, time.process_time() - cpu_started
    agree = all(by_id[t.paper_id] == m for t, m in zip(subset, naive, strict=True))

    kinds = Counter(f.kind for f in follows)
    patterns = len(index.by_term) + len(index.by_author_key)
    fast_rate, naive_rate = len(texts) / fast_s, len(subset) / naive_s
    fold_note = "(PaperText folding excluded; it is done once per paper in both paths)"
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    mix = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    print(f"follows: {len(follows)} ({mix}); vocabulary from title-word rank {args.min_rank}; patterns {patterns}")
    print(f"index build (compile + automaton): {build_s:.2f}s")
    # the machine is shared: CPU time says what the code costs when other processes take the cores
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"automaton path: {len(texts)} papers in {fast_s:.2f}s = {fast_rate:,.0f} papers/s")
    print(f"  CPU time {fast_cpu_s:.2f}s = {len(texts) / fast_cpu_s:,.0f} papers per CPU-second")
    print(f"  {matches} matches, {matches / len(texts):.1f} per paper")
    print(f"  {fold_note}")
    print(f"naive loop:     {len(subset)} papers in {naive_s:.2f}s = {naive_rate:,.1f} papers/s")
    print(f"  CPU time {naive_cpu_s:.2f}s = {len(subset) / naive_cpu_s:,.1f} papers per CPU-second")
    print(f"speed-up: {fast_rate / naive_rate:,.0f}x; same answers on the {len(subset)} papers: {agree}")
    if not agree:
        sys.exit("the automaton path and the naive loop disagree")


if __name__ == "__main__":
    main()
