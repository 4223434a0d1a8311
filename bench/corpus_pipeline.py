"""The month's corpus through running normalizer processes on a local stack of its own, with its broker watched.

What tests/normalizer/test_corpus_pipeline.py proves on three corpus days, at the month's size (7,184 listings of
4,717 papers, or the first --days days), as a measurement:
1. one normalizer gets the first --pair-days days, then the rest: records/s of each part, from the first record
   published until the consumer group committed the last;
2. the same normalizer gets every listing again (a replay): records/s, and whether it added a paper, version or event;
3. two normalizers in one consumer group get the first --pair-days days in a fresh database: records/s, and whether
   they stored the same version records as the one did;
4. the MongoDB-protocol server's bare bulk-upsert rate (bench/normalize_throughput.py's), for scale.
Meanwhile, every second, the Kafka-protocol broker is watched: its memory (VmRSS, and VmHWM at the end), its CPU, the
size of noida-db's state file (`kafka.json` in its data dir, which it rewrites whole while it is written to) and how
long it takes to answer a metadata request; its log's last lines are printed if it exits.

    uv run python bench/corpus_pipeline.py [--days N] [--pair-days 7] [--broker noida-db|tansu] [--within 900]
"""

import argparse
import asyncio
import os
import platform
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pymongo import MongoClient  # noqa: E402

from bench.normalize_throughput import bare_bulk_upsert  # noqa: E402
from bench.pipeline_load import cpu_seconds, peak_rss_mb  # noqa: E402
from papertrail_tools import stack  # noqa: E402
from papertrail_tools.stack_settings import StackSettings  # noqa: E402
from schemas.events import RawRecord  # noqa: E402
from tests.support.corpus_run import OneRun, Stored, through_one, through_two  # noqa: E402
from tests.support.servers import Servers, stack_on_free_ports  # noqa: E402
from tests.support.sources import corpus_records  # noqa: E402


@dataclass
class BrokerWatch:
    """Samples the stack's Kafka-protocol broker every second, in a thread, until stopped."""

    settings: StackSettings
    rss_mb: list[float] = field(default_factory=list)
    state_mb: list[float] = field(default_factory=list)
    rewrites: int = 0  # times the state file was seen replaced
    answers_s: list[float] = field(default_factory=list)
    unanswered: int = 0
    exited_at: float | None = None
    started: float = field(default_factory=time.monotonic)
    stopped: threading.Event = field(default_factory=threading.Event)

    @property
    def root(self) -> Path:
        return self.settings.dir.resolve()

    @property
    def pid(self) -> int:
        pid = stack.read_pid(self.root / "kafka.pid")
        assert pid is not None, "the broker is not running"
        return pid

    @property
    def state_file(self) -> Path:
        return self.root / "kafka" / "kafka.json"

    def run(self) -> None:
        pid, last_change = self.pid, 0.0
        kafka = next(s for s in stack.servers_without_install(self.settings) if s.name == "kafka")
        while not self.stopped.wait(1.0):
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                self.exited_at = time.monotonic() - self.started
                return
            self.rss_mb += [int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("VmRSS:")]
            if self.state_file.exists():
                stat = self.state_file.stat()
                self.state_mb.append(stat.st_size / 1e6)
                if stat.st_mtime != last_change:
                    self.rewrites, last_change = self.rewrites + 1, stat.st_mtime
            asked = time.monotonic()
            if stack.answers(kafka, self.settings):  # a metadata request, 3 s to answer
                self.answers_s.append(time.monotonic() - asked)
            else:
                self.unanswered += 1

    def log_lines(self) -> list[str]:
        log = self.root / "kafka.log"
        return log.read_text(errors="replace").splitlines() if log.exists() else []


def rate(records: int, seconds: float) -> str:
    return f"{records:,} in {seconds:.1f} s ({records / seconds:,.0f} records/s)"


def same(a: Stored, b: Stored) -> bool:
    return (a.papers, a.versions, a.history) == (b.papers, b.versions, b.history)


async def measure(
    servers: Servers, parts: list[list[RawRecord]], logs: Path, within: float
) -> tuple[OneRun, Stored, float, float]:
    mongo: MongoClient = MongoClient(servers.mongodb_url, tz_aware=True)
    try:
        one = await through_one(servers, mongo, "bench_corpus_one", logs / "one", parts, within)
        pair, pair_s = await through_two(servers, mongo, "bench_corpus_pair", logs / "two", parts[0], within)
    finally:
        mongo.close()
    bare = await bare_bulk_upsert(servers.mongodb_url, sum(len(p) for p in parts))
    return one, pair, pair_s, bare


def main(days: int | None, pair_days: int, broker: str, within: float) -> None:
    listings = corpus_records()
    chosen = sorted({str(r.datestamp) for r in listings})[:days]
    listings = [r for r in listings if r.datestamp in chosen]
    first = set(chosen[:pair_days])
    parts = [[r for r in listings if r.datestamp in first], [r for r in listings if r.datestamp not in first]]
    parts = [part for part in parts if part]
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        settings = stack_on_free_ports(Path(folder) / "stack", kafka_broker=broker)
        for name in ("one", "two"):
            (Path(folder) / name).mkdir()
        watch: BrokerWatch | None = None
        try:  # the stack is started and stopped outside the event loop: its readiness probe runs its own loop
            stack.up(settings, log=lambda line: None)
            env = settings.environment()
            servers = Servers(
                env["KAFKA_BOOTSTRAP_SERVERS"], env["MONGODB_URL"], env["MEILI_URL"], env["MEILI_MASTER_KEY"], "bench"
            )
            watch = BrokerWatch(settings)
            broker_pid = watch.pid
            thread = threading.Thread(target=watch.run, name="broker-watch", daemon=True)
            thread.start()
            one, pair, pair_s, bare = asyncio.run(measure(servers, parts, Path(folder), within))
            watch.stopped.set()
            thread.join()
            broker_cpu, broker_peak = cpu_seconds(broker_pid), peak_rss_mb(broker_pid)
            panics = [line for line in watch.log_lines() if "panicked" in line]
        except BaseException:
            if watch is not None and watch.exited_at is not None:
                print(f"the broker exited {watch.exited_at:.0f} s into the run; its log's last lines:")
                print("\n".join(watch.log_lines()[-20:]))
            raise
        finally:
            if watch is not None:
                watch.stopped.set()
            stack.down(settings, log=lambda line: None)
    load_after = os.getloadavg()
    papers = len({r.record_id for r in listings})
    expected = one.parts[0]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}")
    print(f"load average (1/5/15 min): before {'/'.join(f'{a:.1f}' for a in load_before)}, "
          f"after {'/'.join(f'{a:.1f}' for a in load_after)}")  # fmt: skip
    print(f"listings: {len(listings):,} of {papers:,} arXiv ids, {len(chosen)} corpus days ({chosen[0]}..{chosen[-1]})")
    print(f"Kafka-protocol broker: {broker}")
    for days_of, part, seconds in zip(("first", "rest"), parts, one.part_seconds, strict=False):
        print(f"one normalizer, {days_of} {len(first) if days_of == 'first' else len(chosen) - len(first)} days: "
              f"{rate(len(part), seconds)}")  # fmt: skip
    print(f"one normalizer, all: {rate(len(listings), sum(one.part_seconds))}")
    last = one.parts[-1]
    print(f"  papers {last.papers:,} (one per arXiv id: {'yes' if last.papers == papers else 'NO'}), "
          f"versions {last.versions:,}, events {last.events:,}")  # fmt: skip
    added = (one.replay.papers - last.papers, one.replay.versions - last.versions, one.replay.events)
    print(f"replay: {rate(len(listings), one.replay_seconds)}; added papers/versions/events {added} "
          f"({'none' if added == (0, 0, 0) else 'NOT NONE'})")  # fmt: skip
    print(f"two normalizers in one group, first {len(first)} days: {rate(len(parts[0]), pair_s)}; "
          f"same version records as one: {'yes' if same(pair, expected) else 'NO'}")  # fmt: skip
    print(f"bare bulk upsert of small documents (MongoDB-protocol server): {bare:,.0f} documents/s")
    if watch is not None:
        slowest = max(watch.answers_s, default=float("nan"))
        print(f"broker: peak RSS {broker_peak:,.0f} MiB, CPU {broker_cpu:,.0f} s, "
              f"state file up to {max(watch.state_mb, default=0):,.0f} MB ({watch.rewrites} rewrites seen), "
              f"slowest metadata answer {slowest:.2f} s, {watch.unanswered} of "
              f"{watch.unanswered + len(watch.answers_s)} probes unanswered within 3 s")  # fmt: skip
        print(f"broker log: {len(panics)} panics" + "".join(f"\n  {line}" for line in panics[:5]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=None, help="only the first N corpus days (default: all 31)")
    parser.add_argument("--pair-days", type=int, default=7, help="corpus days the two normalizers get")
    parser.add_argument("--broker", choices=["noida-db", "tansu"], default="noida-db")
    parser.add_argument("--within", type=float, default=900, help="seconds to wait for each part to be handled")
    args = parser.parse_args()
    main(args.days, args.pair_days, args.broker, args.within)
