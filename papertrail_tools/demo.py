"""`papertrail demo`: the whole system offline on recorded real data. A replay server answers as arXiv OAI-PMH,
the ACL Anthology, Hugging Face and daily-arXiv-ai-enhanced would; the harvester reads it on its schedule; once
every service is ready, the recorded Hugging Face days are harvested, and one day of the real May 2026 arXiv corpus
(daily-arXiv-ai-enhanced's file of that day) is harvested from the community source, which brings its papers with
their Chinese community summaries: shown as their 导读 without a summary model."""

import os
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from papertrail_ops.roster import service_port

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
CORPUS_DAY = "2026-05-08"  # FIXTURES/corpus/arxiv-daily-2026-05/<day>_AI_enhanced_Chinese.jsonl.gz, served by replay
COMMUNITY_REPOSITORY = "dw-dengwei/daily-arXiv-ai-enhanced/data"  # its raw.githubusercontent.com path: replay.json
HF_DAYS = ("2025-09-16", "2024-05-29")
DATA = "papertrail demo: the demo's data is"  # then "sent (…)" or "not sent: why": .ci/run waits for this line


def _wait_for(url: str, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return True
        except OSError:
            time.sleep(0.5)
    return False


def _after_ready(query_port: int, ready_timeout_s: float = 300) -> None:
    if not _wait_for(f"http://127.0.0.1:{query_port}/readyz", ready_timeout_s):
        print(f"{DATA} not sent: the query service was not ready in {ready_timeout_s:g} s", flush=True)
        return
    steps = data_steps()
    failed = [
        " ".join(step[:2])
        for step in steps
        if subprocess.run([sys.executable, "-m", "papertrail", *step], check=False, stdin=subprocess.DEVNULL).returncode
    ]
    # every record the demo feeds is published by now: `papertrail smoke` can count the papers
    outcome = f"{len(failed)} failed: {', '.join(failed)}" if failed else "all succeeded"
    print(f"{DATA} sent ({len(steps)} steps, {outcome})", flush=True)


def data_steps() -> list[list[str]]:
    """The `papertrail` commands that send the demo's data once the services are ready."""
    steps = [["harvest", "hf", "--from", day, "--until", day] for day in HF_DAYS]
    steps.append(["harvest", "daily_arxiv", "--from", CORPUS_DAY, "--until", CORPUS_DAY])
    return steps


def demo_environment(replay_url: str) -> dict[str, str]:
    """The harvester's settings that make it read the replay server at `replay_url` instead of the sources, and two
    threads for the local embedding models unless EMBEDDING_THREADS is set: the demo embeds all its papers twice
    (MiniLM, e5) at once, and a first search in Chinese waits for that, while the second core is mostly idle
    (docs/benchmarks.md, "the demo's first embedding"). A service's own default stays one thread."""
    return {
        "EMBEDDING_THREADS": os.environ.get("EMBEDDING_THREADS", "2"),
        "SOURCES": '["arxiv", "acl", "arxiv_html"]',
        "ARXIV_OAI_URL": f"{replay_url}/oai",
        "ARXIV_METADATA_PREFIX": "arXiv",
        "ARXIV_START_DATE": "2015-01-16",
        "ARXIV_MIN_REQUEST_INTERVAL_S": "0",
        # `papertrail harvest arxiv_feed` (or SOURCES with arxiv_feed) reads the replay server's announcement feed
        "ARXIV_FEED_URL": f"{replay_url}/atom",
        "ACL_ANTHOLOGY_URL": replay_url,
        "ACL_VOLUMES": '["2024.acl"]',
        "HF_API_URL": replay_url,
        "DAILY_ARXIV_URL": f"{replay_url}/{COMMUNITY_REPOSITORY}",
        "DAILY_ARXIV_MIN_REQUEST_INTERVAL_S": "0",
        # the first pages of arXiv papers: the replay server's recorded ones, a 404 (no_pdf) for any other
        "ARXIV_HTML_URL": f"{replay_url}/html",
        "ARXIV_PDF_URL": f"{replay_url}/pdf",
    }


def run_demo(port_offset: int = 0) -> int:
    from papertrail_tools.run import run_all

    replay_port = 8900 + port_offset
    replay = subprocess.Popen(
        [sys.executable, "-m", "papertrail", "replay", "--dir", str(FIXTURES), "--port", str(replay_port)],
        stdin=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{replay_port}"
        if not _wait_for(f"{base}/_replay/requests", 30):
            print("papertrail demo: the replay server did not start", file=sys.stderr)
            return 1
        os.environ.update(demo_environment(base))
        threading.Thread(target=_after_ready, args=(service_port("query") + port_offset,), daemon=True).start()
        return run_all(port_offset=port_offset)
    finally:
        replay.terminate()
        replay.wait(timeout=10)
