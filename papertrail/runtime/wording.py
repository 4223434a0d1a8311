"""Wording in the reader's language through gettext catalogs: message ids are the English text, the Chinese catalog
(`locale/zh/LC_MESSAGES/messages.po`, here) holds their translations, and English is the ids themselves (so it needs
no catalog: gettext's own n == 1 rule gives its two plural forms).

The .po is read with Babel once per process and compiled in memory: a fresh clone, `make install` and the image
need no compile step and no .mo kept in step with it. Placeholders are Python's %-style named ones
(`"Signed in as %(name)s"`), filled the way Jinja2's i18n extension fills them (so a literal % is written %%).
How to add a message: README.md, "Wording"."""

import gettext
import io
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LANGUAGES = ("zh", "en")
SITE_NAME = "研踪 PaperTrail"  # the site's name, in both scripts whatever the language: no wording to translate
DEFAULT_LANGUAGE = "zh"
LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "messages"


def catalog_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The language's compiled catalog; English (and any language without a catalog) reads the ids themselves."""
    path = catalog_path(lang)
    if not path.is_file():
        return gettext.NullTranslations()
    with path.open("rb") as po:
        catalog = read_po(po, locale=lang, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)  # fuzzy entries are left out: the test on the catalog refuses them anyway
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


class Translator:
    """A reader's language: gettext's functions with the placeholders filled in."""

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LANGUAGES else DEFAULT_LANGUAGE
        self._translations = translations(self.lang)

    def gettext(self, message: str, /, **values: Any) -> str:
        return self._translations.gettext(message) % values

    def pgettext(self, context: str, message: str, /, **values: Any) -> str:
        return self._translations.pgettext(context, message) % values

    def ngettext(self, singular: str, plural: str, count: int, /, **values: Any) -> str:
        """One of the forms for `count` (English has two, Chinese one); `num` is the count unless given."""
        return self._translations.ngettext(singular, plural, count) % {"num": count, **values}

    def npgettext(self, context: str, singular: str, plural: str, count: int, /, **values: Any) -> str:
        return self._translations.npgettext(context, singular, plural, count) % {"num": count, **values}


class BothLanguages:
    """Chinese, then English, joined by `separator`: for what is written with no reader's language known (an account
    mail to an address, the daily digest)."""

    def __init__(self, separator: str = " / ") -> None:
        self.separator = separator
        self._each = tuple(Translator(lang) for lang in LANGUAGES)

    def gettext(self, message: str, /, **values: Any) -> str:
        return self.separator.join(t.gettext(message, **values) for t in self._each)

    def pgettext(self, context: str, message: str, /, **values: Any) -> str:
        return self.separator.join(t.pgettext(context, message, **values) for t in self._each)

    def ngettext(self, singular: str, plural: str, count: int, /, **values: Any) -> str:
        return self.separator.join(t.ngettext(singular, plural, count, **values) for t in self._each)

    def join(self, write: Callable[[Translator], str]) -> str:
        """What `write` words in each language (a sentence of several messages, each worded in the same language)."""
        return self.separator.join(write(t) for t in self._each)


def pick_language(query_value: str | None, cookie_value: str | None) -> str:
    """?lang= wins (and is remembered by the caller), then the cookie, then Chinese."""
    for value in (query_value, cookie_value):
        if value in LANGUAGES:
            return value
    return DEFAULT_LANGUAGE
