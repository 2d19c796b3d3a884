"""The players' language (docs/languages.md): which one a request asked for, and its words.

A request's language is negotiated once, at the edge (`app/middleware.py`'s `Edge`), from
`?lang=` when it names a language served, else from `Accept-Language` (RFC 9110 §12.5.4:
ranges by quality, the first listed among equals; `de-AT` is served German, `pt` Brazilian
Portuguese), else English; it is kept in a context variable for the request's task. Summaries
are rendered in it from the rules' `Message`s (`said`), problem details through `gettext`.
English is rendered by the rules themselves, byte for byte as stored.

The catalogs are gettext's, managed with Babel (`scripts/dev.py extract`, `update`,
`compile`): `app/locale/<locale>/LC_MESSAGES/arbiter.po` for the service, `table.po` for
the table page's strings, each compiled beside it (`.mo`, committed).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Sequence
from contextvars import ContextVar, Token
from decimal import Decimal
from pathlib import Path
from typing import Final

from babel import Locale
from babel.core import negotiate_locale
from babel.lists import format_list
from babel.numbers import format_decimal, format_percent
from babel.support import NullTranslations, Translations

from app.api.answers.formats import weight
from app.rules.messages import ENGLISH, Argument, Joiner, Language, Message, english, render

#: The languages served, as `Content-Language` names them; English first (the default).
LANGUAGES: Final = ("en", "de", "fr", "es", "pt-BR")
DEFAULT: Final = "en"
#: Where the catalogs are: `<locale>/LC_MESSAGES/<domain>.mo`.
LOCALE_DIR: Final = Path(__file__).resolve().parents[1] / "locale"
#: The service's messages (summaries, problem details) and the table page's strings.
DOMAIN: Final = "arbiter"
TABLE_DOMAIN: Final = "table"
#: The numbers each language keeps written (then starts again).
NUMBERS_KEPT: Final = 4096
#: The most ranges of one Accept-Language header looked at (a longer header is cut there).
MAX_RANGES: Final = 16

_LANGUAGE: ContextVar[str] = ContextVar("arbiter_language", default=DEFAULT)


def locale_name(tag: str) -> str:
    """The catalog's directory of a language tag: `pt-BR` → `pt_BR`."""
    return tag.replace("-", "_")


@functools.lru_cache(maxsize=256)
def _from_header(accept_language: str) -> str | None:
    ranges: list[tuple[float, int, str]] = []
    for position, part in enumerate(accept_language.split(",")[:MAX_RANGES]):
        language_range, *parameters = part.split(";")
        language_range = language_range.strip()
        if not language_range:
            continue
        quality = weight(parameters)
        if quality > 0:
            ranges.append((-quality, position, language_range))
    for _, _, language_range in sorted(ranges):
        chosen = _serve(language_range)
        if chosen is not None:
            return chosen
    return None


def _serve(language_range: str) -> str | None:
    """The language served for one range: the same tag, else its primary language (`de-AT`
    → `de`, Babel's `negotiate_locale`), else the one served of the same primary language
    (`pt`, `pt-PT` → `pt-BR`); `*` is English."""
    if language_range == "*":
        return DEFAULT
    found = negotiate_locale([language_range], LANGUAGES, sep="-")
    if found is not None:
        return next(tag for tag in LANGUAGES if tag.lower() == found.lower())
    primary = language_range.split("-")[0].lower()
    return next((tag for tag in LANGUAGES if tag.split("-")[0].lower() == primary), None)


def negotiate(accept_language: str | None, lang: str | None = None) -> str:
    """The request's language: `?lang=`'s when it names one served, else `Accept-Language`'s,
    else English."""
    if lang:
        chosen = _serve(lang.strip())
        if chosen is not None and lang.strip() != "*":
            return chosen
    if accept_language:
        chosen = _from_header(accept_language)
        if chosen is not None:
            return chosen
    return DEFAULT


def query_language(query_string: bytes) -> str | None:
    """`lang`'s value in a query string, when it has one."""
    if b"lang=" not in query_string:
        return None
    for pair in query_string.split(b"&"):
        name, _, value = pair.partition(b"=")
        if name == b"lang":
            return value.decode("latin-1")
    return None


def use(tag: str) -> Token[str]:
    """Make `tag` this task's language (until `reset`)."""
    return _LANGUAGE.set(tag)


def reset(token: Token[str]) -> None:
    _LANGUAGE.reset(token)


@contextlib.contextmanager
def speaking(tag: str) -> Iterator[None]:
    """`tag` as this task's language within the block (a live event's English, built in
    the task of a request asking for another)."""
    token = _LANGUAGE.set(tag)
    try:
        yield
    finally:
        _LANGUAGE.reset(token)


def current() -> str:
    """This request's language."""
    return _LANGUAGE.get()


class Catalog:
    """A language's words (its compiled catalog), numbers and lists (Babel's, from CLDR)."""

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.locale = Locale.parse(locale_name(tag))
        self.translations: NullTranslations = Translations.load(
            LOCALE_DIR, [locale_name(tag)], DOMAIN
        )
        # Babel works a number's pattern out again on every call (a tenth of a millisecond
        # for a summary's numbers); a summary's numbers are few and small, and come again.
        self.numbers: dict[int, str] = {}
        self.signed_numbers: dict[int, str] = {}

    def gettext(self, message: str) -> str:
        return self.translations.gettext(message)

    def ngettext(self, singular: str, plural: str, count: int) -> str:
        return self.translations.ngettext(singular, plural, count)

    def number(self, value: int) -> str:
        shown = self.numbers.get(value)
        if shown is None:
            if len(self.numbers) >= NUMBERS_KEPT:
                self.numbers.clear()
            shown = self.numbers[value] = format_decimal(value, locale=self.locale)
        return shown

    def grouped(self, value: int) -> str:
        # The language groups every number it writes.
        return self.number(value)

    def signed(self, value: int) -> str:
        shown = self.signed_numbers.get(value)
        if shown is None:
            if len(self.signed_numbers) >= NUMBERS_KEPT:
                self.signed_numbers.clear()
            shown = format_decimal(value, format="+#,##0;-#,##0", locale=self.locale)
            self.signed_numbers[value] = shown
        return shown

    def percent(self, value: float) -> str:
        # The language's own percent pattern (`#,##0 %` in German), with one decimal.
        # Rounded as the English is (Python's), then written in the language's forms.
        pattern = self.locale.percent_formats[None].pattern.replace("0", "0.0", 1)
        rounded = Decimal(f"{value * 100:.1f}") / 100
        return format_percent(rounded, pattern, locale=self.locale)

    def fixed(self, value: float, places: int) -> str:
        rounded = Decimal(f"{value:.{places}f}")
        return format_decimal(rounded, "#,##0." + "0" * places, locale=self.locale)

    def listing(self, items: Sequence[str], joiner: Joiner) -> str:
        if joiner in ("and", "and-each"):
            return format_list(list(items), style="standard", locale=self.locale)
        if joiner == "or":
            return format_list(list(items), style="or", locale=self.locale)
        if joiner == "; " and self.locale.language == "fr":
            # French sets a space before a semicolon, as its catalog's sentences do.
            return " ; ".join(items)
        return joiner.join(items)


@functools.cache
def catalog(tag: str) -> Language:
    """`tag`'s words (English: the rules' own)."""
    return ENGLISH if tag == DEFAULT else Catalog(tag)


def said(message: Message, tag: str | None = None) -> str:
    """`message` in the request's language (or `tag`'s)."""
    tag = tag or _LANGUAGE.get()
    if tag == DEFAULT:
        return english(message)
    return render(message, catalog(tag))


def rendered(argument: Argument, tag: str) -> str:
    """Any part of a message in `tag`'s language."""
    return render(argument, catalog(tag))


def gettext(text: str, tag: str | None = None) -> str:
    """`text` (a message id) in the request's language (or `tag`'s)."""
    tag = tag or _LANGUAGE.get()
    if tag == DEFAULT:
        return text
    return catalog(tag).gettext(text)
