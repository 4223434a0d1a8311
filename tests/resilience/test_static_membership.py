"""Static group membership: every grouped consumer of a service has its own stable name from INSTANCE_ID, a
restarted instance takes its place at once, and a graceful stop still leaves the group."""

import importlib
import socket
import uuid
from collections import Counter

import pytest
from aiokafka import AIOKafkaConsumer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from pydantic import ValidationError

from papertrail.runtime.kafka import consumer_options, make_broker
from papertrail.runtime.settings import InfraSettings
from papertrail_tools.settings_doc import SERVICES, settings_class
from tests.support.kafka import broker_of
from tests.support.servers import Servers
from tests.support.waiting import wait_until_async


def test_instance_id_defaults_to_the_host_name_and_rejects_names_kafka_refuses() -> None:
    assert InfraSettings().instance_id == socket.gethostname()
    assert InfraSettings(instance_id="normalizer-2").instance_id == "normalizer-2"
    for bad in ("two words", "a/b", "x" * 101):
        with pytest.raises(ValidationError, match="instance_id"):
            InfraSettings(instance_id=bad)


@pytest.mark.parametrize("service", SERVICES)
def test_every_grouped_subscriber_has_its_own_member_name(service: str) -> None:
    create_app = importlib.import_module(f"services.{service}.app").create_app
    broker = broker_of(create_app(settings_class(service)(instance_id="host-7")))
    grouped = [(s.group_id, s._connection_args["group_instance_id"]) for s in broker.subscribers if s.group_id]
    names = Counter(name for _, name in grouped)
    assert all(name and name.startswith("host-7-") for name in names)
    assert all(n == 1 for n in names.values()), names


@pytest.mark.parametrize("service", SERVICES)
def test_every_grouped_subscriber_has_a_group_of_its_own(service: str) -> None:
    """A second consumer in a group rebalances the first whenever it joins: the query service's papers consumer
    made its status consumer's first commit fail at start (CommitFailedError) and that message be handled again."""
    create_app = importlib.import_module(f"services.{service}.app").create_app
    broker = broker_of(create_app(settings_class(service)(instance_id="host-7")))
    groups = Counter(s.group_id for s in broker.subscribers if s.group_id)
    assert all(n == 1 for n in groups.values()), groups


def test_a_broker_refuses_a_second_subscriber_in_one_group() -> None:
    broker = make_broker(InfraSettings(instance_id="host-7"), "groups")
    broker.subscriber("a.v1", **consumer_options("groups"))
    broker.subscriber("a.v1", **consumer_options("groups-other"))
    with pytest.raises(ValueError, match="consumer group papertrail-groups already has a subscriber"):
        broker.subscriber("b.v1", **consumer_options("groups"))


@pytest.mark.integration
async def test_a_graceful_stop_leaves_the_group_so_another_member_gets_the_partitions(servers: Servers) -> None:
    bootstrap = servers.kafka_bootstrap_servers
    topic, service = f"static-{uuid.uuid4().hex[:8]}", f"static-{uuid.uuid4().hex[:8]}"
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(topic, 3, 1)])
    finally:
        await admin.close()

    broker = make_broker(InfraSettings(kafka_bootstrap_servers=bootstrap, instance_id="leaver"), service)
    subscriber = broker.subscriber(topic, **consumer_options(service))
    subscriber(lambda body: None)
    await broker.start()
    try:
        await wait_until_async(lambda: _assigned(subscriber.consumer), 60, "the static member to get partitions")
    finally:
        await broker.stop()

    # A static member that stops without LeaveGroup stays in the group until it expires (never, on noida-db), and
    # the newcomer would wait for it; having left, the group is empty and the newcomer gets every partition.
    other = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=consumer_options(service)["group_id"])
    await other.start()
    try:

        async def all_partitions() -> bool:
            await other.getmany(timeout_ms=200)
            return len(other.assignment()) == 3

        await wait_until_async(all_partitions, 60, "a new member to get all three partitions")
    finally:
        await other.stop()


async def _assigned(consumer: AIOKafkaConsumer | None) -> bool:
    return consumer is not None and bool(consumer.assignment())
