"""Benchmark: the title path (no summary endpoint: a local model gives waiting papers a Chinese title alone).

Starts the title server as `papertrail llm --titles` does (prebuilt llama.cpp at nice 19, the packaged model), then
sends titles through the summarizer's own client (services/summarizer/title_model.py: prompt, checks, concurrency):

- throughput: the first `--papers` titles of one corpus day (/work/shared/corpus, a day's cs listing as
  daily-arXiv-ai-enhanced saw it), papers per minute of wall time, the server's CPU seconds per title (from
  /proc: what two free cores would take), and the load average meanwhile;
- quality: chrF (Popović 2015, "chrF: character n-gram F-score for automatic MT evaluation", WMT; character
  1- to 6-grams, whitespace removed, recall weighted β = 2, statistics summed over the set as sacrebleu does) of
  the model's titles against two references: the Chinese titles the reference site showed its readers beside the
  English ones (shared/seeds/004_8b52db47ceaf477e.txt, a topic page; the two pairs the prompt uses as examples left
  out) and the hand translations of six corpus titles the tests' fake model answers with
  (tests/fixtures/summarizer/additions.json). The English title echoed back scores as a floor.

Writes every pair (English, reference, model) to `--pairs-out` for a hand check.

    uv run python bench/zh_titles.py [--papers 60] [--concurrency 4] [--nice 19] [--no-quality]
"""

import argparse
import asyncio
import gzip
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from papertrail_tools.llm import DEFAULT_MODEL, MODELS, ROOT, install_titles, titles_server_command
from services.summarizer.settings import SummarizerSettings
from services.summarizer.title_model import TitleModel, make_titles_client
from services.summarizer.titles import TITLE_EXAMPLES
from tests.support.corpus import SHARED_CORPUS

SEED_TOPIC_PAGE = Path("/work/shared/seeds/004_8b52db47ceaf477e.txt")
ADDITIONS = ROOT / "tests" / "fixtures" / "summarizer" / "additions.json"
CORPUS_SAMPLE = ROOT / "tests" / "fixtures" / "summarizer" / "corpus-2026-05-05.jsonl"
_CJK = re.compile(r"[\u3400-\u9fff]")


def seed_pairs(page: Path = SEED_TOPIC_PAGE) -> list[tuple[str, str]]:
    """(English, Chinese) titles of the topic page: an English line, its Chinese line, the authors, then 机构."""
    lines = [line.strip() for line in page.read_text(encoding="utf-8").splitlines() if line.strip()]
    examples = {english for english, _ in TITLE_EXAMPLES}
    return [
        (lines[i], lines[i + 1])
        for i in range(len(lines) - 3)
        if not _CJK.search(lines[i])
        and _CJK.search(lines[i + 1])
        and not _CJK.search(lines[i + 2])
        and lines[i + 3].startswith("机构")
        and lines[i] not in examples
    ]


def hand_pairs() -> list[tuple[str, str]]:
    titles = {json.loads(line)["id"]: json.loads(line)["title"] for line in CORPUS_SAMPLE.read_text().splitlines()}
    additions = json.loads(ADDITIONS.read_text(encoding="utf-8"))["title_zh"]
    return [(titles[paper_id], chinese) for paper_id, chinese in additions.items()]


def day_titles(count: int, day: str = "2026-05-05") -> list[str]:
    with gzip.open(SHARED_CORPUS / f"{day}_AI_enhanced_Chinese.jsonl.gz", "rt", encoding="utf-8") as lines:
        titles = [json.loads(line)["title"] for line in lines]
    return list(dict.fromkeys(titles))[:count]


def _ngrams(text: str, n: int) -> Counter[str]:
    text = "".join(text.split())
    return Counter(text[i : i + n] for i in range(len(text) - n + 1))


def chrf(hypotheses: list[str], references: list[str], order: int = 6, beta: float = 2.0) -> float:
    """Corpus chrF in 0-100: per n-gram order, matches, hypothesis and reference n-grams summed over the pairs;
    precision and recall averaged over the orders, then their F-beta."""
    precisions, recalls = [], []
    for n in range(1, order + 1):
        matched = hyp_total = ref_total = 0
        for hypothesis, reference in zip(hypotheses, references, strict=True):
            hyp_grams, ref_grams = _ngrams(hypothesis, n), _ngrams(reference, n)
            matched += sum((hyp_grams & ref_grams).values())
            hyp_total += sum(hyp_grams.values())
            ref_total += sum(ref_grams.values())
        if hyp_total and ref_total:
            precisions.append(matched / hyp_total)
            recalls.append(matched / ref_total)
    p = sum(precisions) / len(precisions) if precisions else 0.0
    r = sum(recalls) / len(recalls) if recalls else 0.0
    return 0.0 if p + r == 0 else 100 * (1 + beta**2) * p * r / (beta**2 * p + r)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process and its waited-for children (`nice` execs the server: its pid)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


async def translate_all(model: TitleModel, titles: list[str]) -> list[str | None]:
    async def one(title: str) -> str | None:
        return (await model.translate(title)).title_zh

    return list(await asyncio.gather(*(one(title) for title in titles)))  # the model's slots bound the concurrency


def wait_ready(server: subprocess.Popen[bytes], base_url: str, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the title server stopped ({server.returncode}): /tmp/zh_titles_server.log")
        try:
            with urllib.request.urlopen(f"{base_url.removesuffix('/v1')}/health", timeout=5):  # 503 while loading
                return
        except OSError:
            time.sleep(1)
    raise SystemExit(f"the title server did not answer on {base_url} in {timeout_s:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=DEFAULT_MODEL, choices=sorted(MODELS))
    parser.add_argument("--papers", type=int, default=60, help="corpus titles timed")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--concurrency", type=int, default=4, help="TITLES_CONCURRENCY (the server's slots)")
    parser.add_argument("--port", type=int, default=8097)
    parser.add_argument(
        "--nice", type=int, default=19, help="the server's niceness (19 as served; 0 to measure on a busy machine)"
    )
    parser.add_argument("--no-quality", action="store_true", help="time the corpus day only")
    parser.add_argument("--pairs-out", type=Path, default=Path("/tmp/zh_titles_pairs.jsonl"))
    args = parser.parse_args()

    packaged = MODELS[args.model]
    python, gguf = install_titles(packaged, ROOT / ".llm", print)
    command = titles_server_command(python, gguf, packaged, "127.0.0.1", args.port, args.threads)
    command[command.index("-n") + 1] = str(args.nice)
    command += ["--parallel", str(args.concurrency)]
    base_url = f"http://127.0.0.1:{args.port}/v1"
    with open("/tmp/zh_titles_server.log", "w") as server_log:
        server = subprocess.Popen(command, stdout=server_log, stderr=subprocess.STDOUT)
    try:
        wait_ready(server, base_url)
        asyncio.run(measure(args, packaged.name, base_url, server.pid))
    finally:
        server.terminate()
        server.wait(timeout=60)


def scores(pairs: list[tuple[str, str]], got: list[str | None]) -> str:
    references = [chinese for _, chinese in pairs]
    echo = chrf([english for english, _ in pairs], references)
    refused = sum(g is None for g in got)
    return f"chrF {chrf([g or '' for g in got], references):.1f} (English echoed: {echo:.1f}); {refused} refused"


async def quality(model: TitleModel, pid: int, pairs_out: Path) -> None:
    """chrF against both references, timed; every pair written to `pairs_out` for the hand check."""
    seeds, hands = seed_pairs(), hand_pairs()
    references = seeds + hands
    load_before = os.getloadavg()
    cpu_before, started = cpu_seconds(pid), time.monotonic()
    answers = await translate_all(model, [english for english, _ in references])
    quality_s, quality_cpu = time.monotonic() - started, cpu_seconds(pid) - cpu_before
    print(f"seed pairs ({len(seeds)}): {scores(seeds, answers[: len(seeds)])}")
    print(f"hand translations ({len(hands)}): {scores(hands, answers[len(seeds) :])}")
    print(
        f"quality set: {len(references)} titles in {quality_s:.0f} s = {len(references) / quality_s * 60:.1f} "
        f"papers/min wall; server CPU {quality_cpu:.0f} s = {quality_cpu / len(references):.2f} CPU-s a title; "
        f"load average {load_before[0]:.1f} → {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    with pairs_out.open("w", encoding="utf-8") as out:
        for (english, reference), got in zip(references, answers, strict=True):
            out.write(json.dumps({"en": english, "ref": reference, "model": got}, ensure_ascii=False) + "\n")
    print(f"pairs written to {pairs_out}", flush=True)


async def measure(args: argparse.Namespace, model_name: str, base_url: str, pid: int) -> None:
    """Both phases in one event loop (the client's concurrency limit belongs to it), each printed when done."""
    settings = SummarizerSettings(
        titles_base_url=base_url, titles_model=model_name, titles_concurrency=args.concurrency, titles_timeout_s=600
    )  # type: ignore[call-arg]
    client = make_titles_client(settings)
    model = TitleModel(client, settings)
    print(f"model {model_name}, {args.threads} threads, {args.concurrency} slots, nice {args.nice}", flush=True)
    if not args.no_quality:
        await quality(model, pid, args.pairs_out)
    else:
        args.pairs_out.write_text("")

    day = day_titles(args.papers)
    load_before = os.getloadavg()
    cpu_before, started = cpu_seconds(pid), time.monotonic()
    day_answers = await translate_all(model, day)
    wall_s, cpu_s = time.monotonic() - started, cpu_seconds(pid) - cpu_before
    titled = sum(a is not None for a in day_answers)
    print(
        f"day titles: {len(day)} in {wall_s:.0f} s = {len(day) / wall_s * 60:.1f} papers/min wall "
        f"({titled} titled); server CPU {cpu_s:.0f} s = {cpu_s / len(day):.2f} CPU-s a title, "
        f"two free cores at most {2 * 60 * len(day) / cpu_s:.0f} papers/min; "
        f"load average {load_before[0]:.1f} → {os.getloadavg()[0]:.1f}"
    )
    with args.pairs_out.open("a", encoding="utf-8") as out:
        for english, got in zip(day, day_answers, strict=True):
            out.write(json.dumps({"en": english, "ref": None, "model": got}, ensure_ascii=False) + "\n")
    await client.close()


if __name__ == "__main__":
    main()
