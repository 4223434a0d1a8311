"""What searching the abstract as read (`abstract_text`) costs Meilisearch's indexing.

A Meilisearch of its own (the local stack's binary, a fresh data folder, a free port) indexes the same corpus
documents (title, the abstract as the normalizer stores it, its `tex_plain` text, authors, the Chinese TL;DR: the
searchable text of a paper document) in tasks of 300 into one fresh index per variant, the variants interleaved and
each run `--runs` times:
- `before`: searchable title, abstract, authors, TL;DR (the release before);
- `both`: `abstract_text` searchable beside `abstract` (this release: old documents stay found by their abstract);
- `text only`: `abstract_text` in place of `abstract`.
Measured: the engine's CPU time per paper, from the first upload until the last task succeeded.

    uv run python bench/tex_index_cost.py [--papers 3000] [--runs 2]
"""

import argparse
import asyncio
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from meilisearch_python_sdk import AsyncClient  # noqa: E402

from papertrail.domain.search_document import document_id  # noqa: E402
from papertrail.domain.tex import tex_plain  # noqa: E402
from papertrail.domain.text import readable  # noqa: E402
from papertrail_tools.stack import StackSettings, meilisearch_binary  # noqa: E402
from tests.support.servers import free_port  # noqa: E402
from tests.support.waiting import wait_until  # noqa: E402

CORPUS = ROOT / "tests" / "fixtures" / "corpus" / "arxiv-daily-2026-05"
KEY = "bench-master-key"
VARIANTS = {
    "before": ["title", "abstract", "authors", "tldr_zh"],
    "both": ["title", "abstract_text", "abstract", "authors", "tldr_zh"],
    "text only": ["title", "abstract_text", "authors", "tldr_zh"],
}


def documents(count: int) -> list[dict[str, object]]:
    held: dict[str, dict[str, object]] = {}
    for path in sorted(CORPUS.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                abstract = readable(record.get("summary"))
                held[record["id"]] = {
                    "id": document_id(record["id"]),
                    "title": readable(record["title"]),
                    "abstract": abstract,
                    "abstract_text": tex_plain(abstract),
                    "authors": record.get("authors") or [],
                    "tldr_zh": (record.get("AI") or {}).get("tldr") or "",
                }
    return list(held.values())[:count]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def index_once(url: str, pid: int, name: str, searchable: list[str], docs: list[dict[str, object]]) -> float:
    async with AsyncClient(url, KEY) as client:
        index = await client.create_index(name, primary_key="id", timeout_in_ms=60_000)
        task = await index.update_searchable_attributes(searchable)
        await client.wait_for_task(task.task_uid, timeout_in_ms=60_000)
        before = cpu_seconds(pid)
        tasks = [await index.update_documents(docs[i : i + 300], primary_key="id") for i in range(0, len(docs), 300)]
        for task in tasks:
            result = await client.wait_for_task(task.task_uid, timeout_in_ms=600_000, interval_in_ms=20)
            assert result.status == "succeeded", result
        return (cpu_seconds(pid) - before) / len(docs) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--papers", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    docs = documents(args.papers)
    binary = meilisearch_binary((ROOT / StackSettings().install_dir).resolve())
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        engine = subprocess.Popen(
            [str(binary), "--http-addr", f"127.0.0.1:{port}", "--db-path", data, "--master-key", KEY,
             "--no-analytics", "--env", "development"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            url = f"http://127.0.0.1:{port}"
            wait_until(lambda: _healthy(url), timeout=60, what="Meilisearch answering")
            costs: dict[str, list[float]] = {name: [] for name in VARIANTS}
            for run in range(args.runs):
                for name, searchable in VARIANTS.items():
                    index_name = f"bench_{name.replace(' ', '_')}_{run}"
                    costs[name].append(asyncio.run(index_once(url, engine.pid, index_name, searchable, docs)))
        finally:
            engine.terminate()
            engine.wait(timeout=30)
    print(f"{len(docs):,} corpus papers, tasks of 300, {args.runs} runs per variant (interleaved), engine CPU:")
    print()
    print("| searchable | ms per paper |")
    print("|---|---:|")
    for name, searchable in VARIANTS.items():
        spread = "–".join(f"{c:.2f}" for c in sorted({min(costs[name]), max(costs[name])}))
        print(f"| {name}: {', '.join(searchable)} | {spread} |")


def _healthy(url: str) -> bool:
    import httpx

    try:
        return httpx.get(f"{url}/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


if __name__ == "__main__":
    main()
