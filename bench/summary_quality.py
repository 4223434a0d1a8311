"""Benchmark: summaries a model writes through the summarizer's own path (services/summarizer/model.py: the prompt, JSON
output, the checks, one repair), against the references another system wrote. For a sample of the May 2026 corpus
(papers whose deepseek-chat TL;DR is there), prints per model: answers kept (valid and passing every check), failures
by kind, seconds a paper, output tokens a second, and agreement of our Chinese TL;DR with the corpus's: chrF
(character n-grams, 1-6, beta 2) and the cosine of the two in multilingual-e5's space. Any OpenAI-compatible
endpoint: the local model of `make llm`, or a hosted one (OPENAI_API_KEY from the environment).

    make llm &   # serves http://127.0.0.1:8090/v1
    uv run python bench/summary_quality.py --base-url http://127.0.0.1:8090/v1 --model qwen2.5-coder-0.5b-instruct \
        --output json_object --papers 10
"""

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from papertrail.embedding.backends import open_embedder
from papertrail.embedding.embedder import EmbeddingSettings
from services.summarizer.model import SummaryModel, make_openai_client
from services.summarizer.settings import SummarizerSettings
from tests.support.corpus import SHARED_CORPUS, paper_from_line, read_lines

PLACEHOLDER = "Summary generation failed"


def chrf(hypothesis: str, reference: str, max_n: int = 6, beta: float = 2.0) -> float:
    """chrF (Popović 2015): the F-beta of character n-gram precision and recall, averaged over n = 1..max_n; spaces
    left out, as sacreBLEU's default does."""
    hyp, ref = hypothesis.replace(" ", ""), reference.replace(" ", "")
    precisions, recalls = [], []
    for n in range(1, max_n + 1):
        hyp_grams = Counter(hyp[i : i + n] for i in range(len(hyp) - n + 1))
        ref_grams = Counter(ref[i : i + n] for i in range(len(ref) - n + 1))
        if not hyp_grams or not ref_grams:
            continue
        common = sum((hyp_grams & ref_grams).values())
        precisions.append(common / sum(hyp_grams.values()))
        recalls.append(common / sum(ref_grams.values()))
    if not precisions:
        return 0.0
    p, r = statistics.fmean(precisions), statistics.fmean(recalls)
    return 0.0 if p + r == 0 else (1 + beta**2) * p * r / (beta**2 * p + r)


async def run(args: argparse.Namespace) -> None:
    lines = [
        line
        for line in read_lines(sorted(args.corpus.glob("*.jsonl.gz")))
        if isinstance((line.get("AI") or {}).get("tldr"), str) and line["AI"]["tldr"] not in ("", PLACEHOLDER)
    ]
    sample = random.Random(args.seed).sample(lines, args.papers)
    settings = SummarizerSettings.model_validate(
        {
            "openai_base_url": args.base_url,
            "openai_model": args.model,
            "openai_api_key": os.environ.get("OPENAI_API_KEY"),
            "openai_output": args.output,
            "openai_timeout_s": args.timeout,
            "openai_attempts": 1,
        }
    )
    model = SummaryModel(make_openai_client(settings), settings)
    kept: list[tuple[str, str]] = []
    failures: Counter[str] = Counter()
    seconds: list[float] = []
    tokens_out = 0
    for n, line in enumerate(sample, 1):
        started = time.perf_counter()
        attempt = await model.summarize(paper_from_line(line))
        seconds.append(time.perf_counter() - started)
        tokens_out += attempt.tokens_out
        if attempt.answer is not None:
            kept.append((attempt.answer.tldr_zh, line["AI"]["tldr"]))
        else:
            failures[(attempt.failure or attempt.unavailable or "?").split(":")[0]] += 1
        verdict = "kept" if attempt.answer else f"failed: {(attempt.failure or attempt.unavailable or '')[:160]}"
        print(f"  {n}/{len(sample)} {line['id']}: {seconds[-1]:.1f} s, {verdict}")
    embedder = open_embedder(EmbeddingSettings(embedding_model="multilingual-e5-small-q4"))
    cosines: list[float] = []
    if kept:
        outcomes = await embedder.embed([t for pair in kept for t in pair], role="passage")
        vectors = np.array([o.vector for o in outcomes], dtype=np.float32)
        ours, theirs = vectors[0::2], vectors[1::2]
        cosines = [float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))) for a, b in zip(ours, theirs, strict=True)]
    scores = [chrf(ours, theirs) for ours, theirs in kept]
    total = sum(seconds)
    print(f"model {args.model} at {args.base_url}, {len(sample)} corpus papers (seed {args.seed})")
    print(f"kept (valid, every check passed): {len(kept)}/{len(sample)}; failed: {dict(failures) or 'none'}")
    print(f"seconds a paper: median {statistics.median(seconds):.1f}, mean {total / len(seconds):.1f}")
    print(f"output tokens a second: {tokens_out / total:.1f} ({tokens_out} tokens)")
    if kept:
        agreement = f"chrF {statistics.fmean(scores):.3f}, e5 cosine {statistics.fmean(cosines):.3f}"
        print(f"TL;DR vs the corpus's (deepseek-chat): {agreement}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--output", choices=["json_schema", "json_object"], default="json_schema")
    parser.add_argument("--papers", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--corpus", type=Path, default=SHARED_CORPUS)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
