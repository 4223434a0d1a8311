"""What wording needs of a translator, and tables of codes' wording, without the catalogs (those are read in
papertrail/runtime/wording.py): the domain words a reason with whatever translator its caller passes. No I/O."""

from collections.abc import Mapping
from typing import Any, Protocol


class Wording(Protocol):
    """A reader's language, as papertrail.runtime.wording.Translator is one: gettext's functions, placeholders
    filled from `values`."""

    def gettext(self, message: str, /, **values: Any) -> str: ...

    def pgettext(self, context: str, message: str, /, **values: Any) -> str: ...


def N_(message: str, /) -> str:
    """Marks a message where it is written down, not yet translated (a table of codes' wording): extraction sees
    the literal, and the message is translated where it is shown (`Labels`)."""
    return message


def NP_(context: str, message: str, /) -> tuple[str, str]:
    """`N_` for a message with a context (`pgettext`'s); babel.cfg names it as a keyword with its context first."""
    return context, message


class Labels:
    """Wording for the codes of one kind (a track, a sort …): a table of code → message, each message marked with
    `N_` (or `NP_`) so extraction finds it and no id is built at run time. Called as `labels.sort(t, code)`; an
    unknown code reads as itself, or as `default`, and only the message asked for is formatted (`values` fill its
    placeholders)."""

    def __init__(self, messages: Mapping[str, str | tuple[str, str]]) -> None:
        self.messages = messages

    def __call__(self, t: Wording, code: str, default: str | None = None, /, **values: Any) -> str:
        message = self.messages.get(code)
        if message is None:
            return code if default is None else default
        if isinstance(message, tuple):
            return t.pgettext(*message, **values)
        return t.gettext(message, **values)

    def __contains__(self, code: object) -> bool:
        return code in self.messages
