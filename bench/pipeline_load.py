"""The whole pipeline under load, on a local stack it starts itself: harvest.raw.v1 → normalizer → summarizer →
matcher and query (searchable), with the corpus replicated under distinct arXiv ids.

Two phases against the same freshly started servers and the five service processes:
1. steady: raw records published at --rate records/s for --steady-seconds, each stamped harvested_at when it is
   published; end-to-end latency (harvested → searchable) is the query service's papertrail_index_lag_seconds
   histogram (p50 / p99 interpolated within its buckets, and the share of papers under 5 s);
2. backfill: --backfill records published at once; records/s per stage = records / time until that stage's
   consumer group committed the last one after the stage before it finished; compared with the MongoDB-protocol
   server's bare bulk-upsert rate, measured in the same run before the steady phase (services idle), and with the
   server's write floor: what the run stored, inserted again with the same indexes after the backfill.
Peak memory per service is VmHWM of each service process. Targets: p99 < 5 s at 300 records/s; backfill rate
>= 80 % of the bare bulk-upsert rate.

    uv run python bench/pipeline_load.py [--rate 300] [--steady-seconds 60] [--backfill 100000] [--within 600]
        [--log-level DEBUG --logs DIR] [--broker noida-db|tansu]
"""

import argparse
import asyncio
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from aiokafka import AIOKafkaProducer  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from bench.normalize_throughput import bare_bulk_upsert, write_floor  # noqa: E402
from papertrail_tools import stack  # noqa: E402
from schemas import topics  # noqa: E402
from schemas.events import RawRecord  # noqa: E402
from tests.support.drills import Pipeline, pipeline_env  # noqa: E402
from tests.support.kafka import caught_up, committed  # noqa: E402
from tests.support.servers import stack_on_free_ports  # noqa: E402
from tests.support.sources import corpus_records, raw_record  # noqa: E402
from tests.support.waiting import wait_until_async  # noqa: E402

STAGES = [  # (stage, topic it reads, its consumer group, the stage whose output it reads)
    ("normalizer", topics.HARVEST_RAW, "papertrail-normalizer", None),
    ("summarizer", topics.PAPERS_NORMALIZED, "papertrail-summarizer", "normalizer"),
    ("matcher", topics.PAPERS_ENRICHED, "papertrail-matcher", "summarizer"),
    ("query (indexed)", topics.PAPERS_ENRICHED, "papertrail-query", "summarizer"),
]


def replicas(n: int, first_copy: int = 0) -> list[RawRecord]:
    """n corpus_json raw records: the corpus's distinct papers, copy k under ids with another yymm (same number)
    and its title marked as copy k."""
    base = list({r.record_id: r for r in corpus_records()}.values())
    out: list[RawRecord] = []
    copy = first_copy
    while len(out) < n:
        yymm = f"{10 + copy // 12:02d}{1 + copy % 12:02d}"
        for record in base[: n - len(out)]:
            line = json.loads(record.content)
            line["id"] = f"{yymm}.{record.record_id.split('.')[1]}"
            # Distinct works, not one text under many ids: identical titles and first authors share a fingerprint,
            # and the normalizer reads every held paper with the record's fingerprint before deciding, so copy k
            # would read k look-alikes per record (what slowed the first runs' normalizer as they grew).
            line["title"] = f"{line['title']} (copy {copy})"
            out.append(raw_record("corpus", line["id"], "corpus_json", json.dumps(line, ensure_ascii=False)))
        copy += 1
    return out


def stamped(record: RawRecord) -> bytes:
    return record.model_copy(update={"harvested_at": _now()}).model_dump_json().encode()


def _now():  # type: ignore[no-untyped-def]
    from datetime import UTC, datetime

    return datetime.now(UTC)


async def publish_paced(bootstrap: str, records: list[RawRecord], rate: float) -> float:
    """Publish at `rate` records/s in 100 ms slices; returns the achieved rate."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    await producer.start()
    started = time.perf_counter()
    try:
        per_slice = max(1, int(rate / 10))
        futures = []
        for i in range(0, len(records), per_slice):
            due = started + i / rate
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            for r in records[i : i + per_slice]:
                futures.append(
                    await producer.send(topics.HARVEST_RAW, stamped(r), key=f"corpus:{r.record_id}".encode())
                )
        for future in futures:
            await future
    finally:
        await producer.stop()
    return len(records) / (time.perf_counter() - started)


async def publish_all(bootstrap: str, records: list[RawRecord]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=20, max_batch_size=1 << 20)
    await producer.start()
    try:
        futures = [
            await producer.send(topics.HARVEST_RAW, stamped(r), key=f"corpus:{r.record_id}".encode()) for r in records
        ]
        for future in futures:
            await future
    finally:
        await producer.stop()


def index_lag_buckets(query_url: str) -> list[tuple[float, float]]:
    text = httpx.get(f"{query_url}/metrics", timeout=10).text
    return [
        (float(s.labels["le"]), s.value)
        for f in text_string_to_metric_families(text)
        if f.name == "papertrail_index_lag_seconds"
        for s in f.samples
        if s.name.endswith("_bucket")
    ]


def mongo_waits(service_url: str) -> list[tuple[str, str, float, float]]:
    """(command, collection, commands sent, seconds waited) from a service's papertrail_mongo_command_seconds."""
    text = httpx.get(f"{service_url}/metrics", timeout=10).text
    sums: dict[tuple[str, str], dict[str, float]] = {}
    for family in text_string_to_metric_families(text):
        if family.name == "papertrail_mongo_command_seconds":
            for s in family.samples:
                kind = s.name.rsplit("_", 1)[-1]
                if kind in ("sum", "count"):
                    sums.setdefault((s.labels["command"], s.labels["collection"]), {})[kind] = s.value
    return [(cmd, coll, v.get("count", 0), v.get("sum", 0)) for (cmd, coll), v in sums.items()]


def quantile(buckets: list[tuple[float, float]], q: float) -> float:
    """Linear interpolation inside the histogram bucket holding the q-th observation (as PromQL does)."""
    total = buckets[-1][1]
    if total == 0:
        return float("nan")
    rank, lower, below = q * total, 0.0, 0.0
    for upper, count in buckets:
        if count >= rank:
            if upper == float("inf"):
                return lower
            return lower + (upper - lower) * (rank - below) / max(count - below, 1e-9)
        lower, below = upper, count
    return lower


def diff(after: list[tuple[float, float]], before: list[tuple[float, float]]) -> list[tuple[float, float]]:
    old = dict(before)
    return [(le, count - old.get(le, 0.0)) for le, count in after]


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def processes(settings: stack.StackSettings, pipeline: Pipeline) -> dict[str, int]:
    """name → pid of every server and service of the run, and of this process."""
    root = settings.dir.resolve()
    found = {server.name: stack.read_pid(server.pid_file(root)) for server in stack.servers_without_install(settings)}
    services = {name: service.pid for name, service in pipeline.services.items()}
    return {name: pid for name, pid in found.items() if pid} | services | {"bench (publisher)": os.getpid()}


def cpu_used(pids: dict[str, int], before: dict[str, float]) -> dict[str, float]:
    return {name: cpu_seconds(pid) - before.get(name, 0.0) for name, pid in pids.items()}


async def handled(bootstrap: str, topic: str, group: str) -> int:
    return sum((await committed(bootstrap, topic, group)).values())


async def stage_times(
    bootstrap: str, started: float, within: float
) -> tuple[dict[str, float], dict[str, tuple[int, float]]]:
    """Seconds from `started` until each stage's group committed everything on its topic after the stage before it
    finished (a stage keeping pace with a slower one before it is caught up now and then, not done); for a stage
    that did not finish within `within` seconds, (records it committed meanwhile, seconds), so its rate still shows."""
    before = {name: await handled(bootstrap, topic, group) for name, topic, group, _ in STAGES}
    done: dict[str, float] = {}
    deadline = time.perf_counter() + within
    while len(done) < len(STAGES) and time.perf_counter() < deadline:
        for name, topic, group, upstream in STAGES:
            if name not in done and (upstream is None or upstream in done) and await caught_up(bootstrap, topic, group):
                done[name] = time.perf_counter() - started
        await asyncio.sleep(0.5)
    elapsed = time.perf_counter() - started
    partial = {
        name: (await handled(bootstrap, topic, group) - before[name], elapsed)
        for name, topic, group, _ in STAGES
        if name not in done
    }
    return done, partial


async def main(
    rate: float, steady_s: float, backfill: int, within: float, log_level: str, logs: Path | None, broker: str
) -> None:
    steady = replicas(int(rate * steady_s))
    bulk = replicas(backfill, first_copy=100)
    with tempfile.TemporaryDirectory() as folder:
        settings = stack_on_free_ports(Path(folder), kafka_broker=broker)
        pipeline = None
        try:
            await asyncio.to_thread(stack.up, settings, lambda line: None)  # it probes Kafka with its own loop
            # Tansu's memory store grants no producer ids: the services publish without idempotence there
            idempotence = "false" if broker == "tansu" else "true"
            env = pipeline_env(settings.environment(), LOG_LEVEL=log_level, KAFKA_IDEMPOTENT_PRODUCER=idempotence)
            pipeline = Pipeline(env, logs or Path(folder))
            pipeline.start()
            query = pipeline.services["query"].url("")
            bootstrap = pipeline.bootstrap

            # the server's bare rate while the services idle: what it gives a single writer with no one else
            bare = await bare_bulk_upsert(settings.environment()["MONGODB_URL"], min(backfill, 20_000))
            before = index_lag_buckets(query)
            pids = processes(settings, pipeline)
            cpu_start, wall_start = cpu_used(pids, {}), time.perf_counter()
            achieved = await publish_paced(bootstrap, steady, rate)
            await wait_until_async(
                lambda: caught_up(bootstrap, topics.PAPERS_ENRICHED, "papertrail-query"), 900, "steady phase indexed"
            )
            lag = diff(index_lag_buckets(query), before)
            cpu_steady, wall_steady = cpu_used(pids, cpu_start), time.perf_counter() - wall_start

            cpu_start = cpu_used(pids, {})
            started = time.perf_counter()
            await publish_all(bootstrap, bulk)
            published_s = time.perf_counter() - started
            times, partial = await stage_times(bootstrap, started, within)
            cpu_backfill, wall_backfill = cpu_used(pids, cpu_start), time.perf_counter() - started
            memory = {name: peak_rss_mb(service.pid) for name, service in pipeline.services.items()}
            # what the server allows for this run's own writes: the papers, versions and source records the
            # pipeline stored, inserted again into collections with the same indexes (no reads, merging, Kafka)
            floor = await write_floor(
                settings.environment()["MONGODB_URL"], env["MONGODB_DATABASE"], len(steady) + backfill
            )
            waits = {name: mongo_waits(service.url("")) for name, service in pipeline.services.items()}
        finally:
            if pipeline is not None:
                pipeline.stop()
            stack.down(settings, log=lambda line: None)

    load = os.getloadavg()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}")
    print(f"Kafka-protocol broker: {broker}")
    print(f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    total = lag[-1][1] if lag else 0
    under5 = dict(lag).get(5.0, 0.0) / total if total else float("nan")
    print(
        f"steady: {len(steady):,} records at {rate:g}/s asked, {achieved:,.0f}/s published; "
        f"harvested → searchable p50 {quantile(lag, 0.5):.2f} s, p99 {quantile(lag, 0.99):.2f} s, "
        f"{under5:.1%} under 5 s ({total:,.0f} papers observed)"
    )
    print(f"backfill: {backfill:,} records published in {published_s:.1f} s")
    for name, *_ in STAGES:
        seconds = times.get(name)
        if seconds:
            shown = f"{backfill / seconds:,.0f} records/s ({seconds:.1f} s)"
        else:
            count, spent = partial[name]
            shown = f"not caught up in {spent:.0f} s: {count:,} committed meanwhile, {count / spent:,.0f} records/s"
        print(f"  {name:<16} {shown}")
    normalizer_rate = backfill / times["normalizer"] if "normalizer" in times else 0.0
    print(f"bare bulk upsert on the same MongoDB-protocol server: {bare:,.0f} documents/s")
    print(f"backfill (normalizer stage) / bare: {normalizer_rate / bare:.0%} (target >= 80 %)")
    print(f"server write floor for what the run stored (same documents and indexes): {floor:,.0f} records/s")
    print(f"backfill (normalizer stage) / write floor: {normalizer_rate / floor:.0%}")
    print("peak memory (VmHWM): " + ", ".join(f"{n} {mb:.0f} MB" for n, mb in memory.items()))
    for phase, used, wall in (("steady", cpu_steady, wall_steady), ("backfill", cpu_backfill, wall_backfill)):
        shares = sorted(used.items(), key=lambda item: -item[1])
        print(
            f"CPU in the {phase} phase ({wall:.0f} s, {sum(used.values()) / wall:.0%} of one core in all): "
            + ", ".join(f"{name} {seconds / wall:.0%}" for name, seconds in shares)
        )
    print("MongoDB commands per service, both phases (commands sent, seconds waited, the three longest waits):")
    for name, rows in waits.items():
        rows.sort(key=lambda row: -row[3])
        top = ", ".join(f"{cmd} {coll} {n:,.0f}× {s:,.0f} s" for cmd, coll, n, s in rows[:3])
        print(f"  {name:<11} {sum(r[2] for r in rows):>8,.0f} {sum(r[3] for r in rows):>8,.0f} s  {top}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=300, help="steady phase: records/s published")
    parser.add_argument("--steady-seconds", type=float, default=60, help="steady phase length")
    parser.add_argument("--backfill", type=int, default=100_000, help="backfill phase: records published at once")
    parser.add_argument("--within", type=float, default=600, help="backfill phase: seconds to wait for every stage")
    parser.add_argument(
        "--log-level", default="WARNING", help="the services' LOG_LEVEL (DEBUG gives per-batch timings)"
    )
    parser.add_argument("--logs", type=Path, default=None, help="keep the services' logs in this folder")
    parser.add_argument(
        "--broker",
        choices=["noida-db", "tansu"],
        default="noida-db",
        help="the Kafka-protocol server: noida-db (the local stack's) or tansu (memory only, no autosave)",
    )
    args = parser.parse_args()
    if args.logs is not None:
        args.logs.mkdir(parents=True, exist_ok=True)
    asyncio.run(
        main(args.rate, args.steady_seconds, args.backfill, args.within, args.log_level, args.logs, args.broker)
    )
