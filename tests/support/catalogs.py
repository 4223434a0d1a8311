"""The wording catalogs as tests read them."""

from babel.messages.catalog import Message
from babel.messages.pofile import read_po

from papertrail.runtime.wording import catalog_path


def zh_catalog() -> list[Message]:
    """The Chinese catalog's messages (its header left out)."""
    with catalog_path("zh").open("rb") as po:
        return [message for message in read_po(po) if message.id]
