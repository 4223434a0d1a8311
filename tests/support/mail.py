"""A real SMTP server (aiosmtpd) for tests of what PaperTrail mails."""

from collections.abc import Iterator
from contextlib import contextmanager
from email import message_from_bytes, policy
from email.message import Message

from aiosmtpd.controller import Controller

from tests.support.servers import free_port


class Inbox:
    """What a local SMTP server received."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        self.messages.append(message_from_bytes(envelope.content, policy=policy.default))  # type: ignore[attr-defined]
        return "250 OK"


@contextmanager
def smtp_server() -> Iterator[tuple[Inbox, int]]:
    """A real SMTP server (aiosmtpd) on a free local port; yields its inbox and port."""
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()
