"""The local stack script: up is safe to run twice, status tells, down stops exactly what it started."""

import asyncio
import os
import shutil
import socket
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from papertrail_tools import stack
from tests.support.servers import stack_on_free_ports

pytestmark = pytest.mark.integration


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_up_twice_status_and_down(tmp_path: Path) -> None:
    settings = stack_on_free_ports(tmp_path / "stack")
    lines: list[str] = []
    try:
        stack.up(settings, log=lines.append)
        assert [line.split(":")[0] for line in lines] == ["kafka", "mongodb", "meilisearch"]
        pids = {name: pid for name, pid, _ in stack.status(settings)}
        assert all(pid is not None and _alive(pid) for pid in pids.values())
        assert all(answering for _, _, answering in stack.status(settings))

        lines.clear()
        stack.up(settings, log=lines.append)  # second run starts nothing new
        assert all("already running" in line for line in lines)
        assert {name: pid for name, pid, _ in stack.status(settings)} == pids
    finally:
        stack.down(settings, log=lines.append)
    assert not any(_alive(pid) for pid in pids.values() if pid)
    assert not list((tmp_path / "stack").glob("*.pid"))


def test_prometheus_and_alertmanager_are_optional(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a machine without Debian's prometheus package, `up` says so in one line and brings up the rest; an
    Alertmanager port already taken (Debian's own service listens on 9093) is said and passed over."""
    programs = tmp_path / "bin"  # a PATH with npm and node (Meilisearch's installer) and Alertmanager, no Prometheus
    programs.mkdir()
    for program in ("npm", "node", "prometheus-alertmanager"):
        if found := shutil.which(program):
            (programs / program).symlink_to(found)
    monkeypatch.setenv("PATH", str(programs))
    settings = stack_on_free_ports(tmp_path / "stack", monitoring=True)
    lines: list[str] = []
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", settings.alertmanager_port))
        blocker.listen()
        try:
            stack.up(settings, log=lines.append)
        finally:
            stack.down(settings, log=lambda _: None)
    assert lines[0] == (
        "prometheus: not installed, so nothing scrapes the services' metrics or sends alerts "
        "(`make system-deps`, or apt-get install prometheus)"
    )
    if (programs / "prometheus-alertmanager").exists():
        taken = f"alertmanager: not started, port 127.0.0.1:{settings.alertmanager_port} is taken by another process"
        assert lines.pop(1).startswith(taken)
    assert [line.split(":")[0] for line in lines[1:]] == ["kafka", "mongodb", "meilisearch"]


def test_port_taken_by_another_process_is_named(tmp_path: Path) -> None:
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        taken = blocker.getsockname()[1]
        settings = stack_on_free_ports(tmp_path / "stack", kafka_port=taken)
        with pytest.raises(stack.StackError, match=f"kafka: port 127.0.0.1:{taken} is taken"):
            stack.up(settings, log=lambda _: None)
    stack.down(settings, log=lambda _: None)


def test_a_server_that_never_answers_stops_the_others_it_started(tmp_path: Path) -> None:
    """`up` that fails leaves no process behind: here no server can answer within 10 ms."""
    settings = stack_on_free_ports(
        tmp_path / "stack",
        start_timeout_s=0.01,
    )
    with pytest.raises(stack.StackError, match="did not answer"):
        stack.up(settings, log=lambda _: None)
    assert not list((tmp_path / "stack").glob("*.pid"))
    assert not any(answering for _, _, answering in stack.status(settings))


async def test_tansu_instead_of_noida_carries_a_consumer_group(tmp_path: Path) -> None:
    """STACK_KAFKA_BROKER=tansu (the load bench's --broker tansu): the memory-only broker comes up in the stack's
    place and serves what the services need, with the idempotent producer off (KAFKA_IDEMPOTENT_PRODUCER)."""
    settings = stack_on_free_ports(tmp_path / "stack", kafka_broker="tansu")
    assert "tansu" in stack.servers(settings)[0].command[0]
    try:
        await asyncio.to_thread(stack.up, settings, lambda line: None)
        bootstrap = settings.environment()["KAFKA_BOOTSTRAP_SERVERS"]
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=False)
        await producer.start()
        try:
            for n in range(20):
                await producer.send_and_wait("stack.tansu", f"event {n}".encode(), key=str(n).encode())
        finally:
            await producer.stop()
        consumer = AIOKafkaConsumer(
            "stack.tansu", bootstrap_servers=bootstrap, group_id="stack-test", auto_offset_reset="earliest"
        )
        await consumer.start()
        seen: list[bytes] = []
        try:
            async with asyncio.timeout(60):
                while len(seen) < 20:
                    for records in (await consumer.getmany(timeout_ms=500)).values():
                        seen += [r.value for r in records if r.value is not None]
        finally:
            await consumer.stop()
        assert sorted(seen) == sorted(f"event {n}".encode() for n in range(20))
    finally:
        stack.down(settings, log=lambda line: None)
