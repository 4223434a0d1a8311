"""Reader accounts through their forms: the form's CSRF token, posting a form, the link a mail carries."""

import re
from email.message import Message

import httpx
from lxml import html

PASSWORD = "correct horse battery"


def csrf_of(client: httpx.Client, path: str) -> str:
    """Open a page as a browser does (which sets the CSRF cookie) and read its form's token."""
    page = client.get(path)
    return str(html.fromstring(page.text).xpath('//input[@name="csrf"]/@value')[0])


def post_form(client: httpx.Client, page: str, action: str, **fields: str) -> httpx.Response:
    return client.post(action, data={"csrf": csrf_of(client, page), **fields})


def link_token(message: Message, path: str) -> str:
    body = message.get_payload(decode=True).decode()  # type: ignore[union-attr]
    found = re.search(rf"https?://papertrail\.test/{path}\?token=([\w-]+)", body)
    assert found, body
    return found[1]
