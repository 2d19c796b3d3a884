"""Summaries in no language yet: a sentence's English template and its named arguments.

The rules build each summary as a `Message` (docs/languages.md): the template is the English
text with `{name}` placeholders, and is the catalog's message id; its arguments are numbers,
the callers' own words (names, skills: never translated), words of the rules (`term`), lists
(`Listing`), signed numbers (`Signed`) and other messages. `english()` renders it as the
service has always written it; the edge renders it in another language through a `Language`
(gettext catalogs, numbers and lists in that language's own forms).

Templates are found in the source by Babel's extraction: `m("...")` and `ng("...", "...")` are
the keywords, and `N_("...")` marks a word of the rules kept in data (a position's name, an
ability) that a summary shows through `term`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

#: How a list's items are joined: the separators stay as they are in every language; `and`
#: (`A, B and C`) and `and-each` (`A and B and C`) are a language's own list of items.
Joiner = Literal[", ", "; ", " ", "and", "and-each", "or"]


@dataclass(frozen=True, slots=True)
class Message:
    """One sentence (or part of one): `template` with its `args`; with `plural`, the template
    is the singular and `count` chooses between them (the language's own plural rules)."""

    template: str
    args: Mapping[str, Argument] = field(default_factory=dict)
    plural: str | None = None
    count: int = 0


@dataclass(frozen=True, slots=True)
class Listing:
    """Items shown one after another, joined as `joiner` says."""

    items: Sequence[Argument]
    joiner: Joiner = ", "


@dataclass(frozen=True, slots=True)
class Signed:
    """A number always shown with its sign, `+12`, `-3`; zero as `+0` unless `bare_zero`."""

    value: int
    bare_zero: bool = False


@dataclass(frozen=True, slots=True)
class Percent:
    """A probability as a percentage with one decimal: `74.1%` (`74,1 %` in German)."""

    value: float


@dataclass(frozen=True, slots=True)
class Fixed:
    """A number with `places` decimals: `3.42` (`3,42` in German)."""

    value: float
    places: int = 2


@dataclass(frozen=True, slots=True)
class Grouped:
    """A count with its thousands grouped in English too: `1,000,000` (`1.000.000` in
    German); a plain `int` is written `1000000` in English, as the summaries always were."""

    value: int


Argument = str | int | Message | Listing | Signed | Percent | Fixed | Grouped


def m(template: str, /, **args: Argument) -> Message:
    """A sentence: its English template, its named arguments."""
    return Message(template, args)


def ng(singular: str, plural: str, count: int, /, **args: Argument) -> Message:
    """A sentence whose words follow `count` (`{count}` in the templates is the number)."""
    return Message(singular, {"count": count, **args}, plural, count)


def N_(word: str) -> str:
    """`word` as it is: marked for the catalogs, rendered through `term`."""
    return word


def untranslated(text: str) -> Message:
    """A line not built as a message yet: shown as written, in every language."""
    return Message(text)


def term(word: str) -> Message:
    """A word of the rules kept in data (marked with `N_` where it is written)."""
    return Message(word)


class Language(Protocol):
    """What rendering a message in a language takes."""

    def gettext(self, message: str) -> str: ...

    def ngettext(self, singular: str, plural: str, count: int) -> str: ...

    def number(self, value: int) -> str: ...

    def grouped(self, value: int) -> str: ...

    def signed(self, value: int) -> str: ...

    def percent(self, value: float) -> str: ...

    def fixed(self, value: float, places: int) -> str: ...

    def listing(self, items: Sequence[str], joiner: Joiner) -> str: ...


class English:
    """The service's own words: every summary exactly as it has always been written."""

    def gettext(self, message: str) -> str:
        return message

    def ngettext(self, singular: str, plural: str, count: int) -> str:
        return singular if count == 1 else plural

    def number(self, value: int) -> str:
        return str(value)

    def grouped(self, value: int) -> str:
        return f"{value:,}"

    def signed(self, value: int) -> str:
        return f"{value:+d}"

    def percent(self, value: float) -> str:
        return f"{value * 100:.1f}%"

    def fixed(self, value: float, places: int) -> str:
        return f"{value:.{places}f}"

    def listing(self, items: Sequence[str], joiner: Joiner) -> str:
        if joiner in ("and", "or"):
            # `A, B and C`, `A, B or C`
            last = f" {joiner} {items[-1]}" if len(items) > 1 else items[-1]
            return ", ".join(items[:-1]) + last
        if joiner == "and-each":
            return " and ".join(items)
        return joiner.join(items)


ENGLISH = English()


def render(argument: Argument, language: Language) -> str:
    """`argument` in `language`."""
    if isinstance(argument, str):
        return argument
    if isinstance(argument, int):
        return language.number(argument)
    if isinstance(argument, Signed):
        if argument.bare_zero and argument.value == 0:
            return language.number(0)
        return language.signed(argument.value)
    if isinstance(argument, Grouped):
        return language.grouped(argument.value)
    if isinstance(argument, Percent):
        return language.percent(argument.value)
    if isinstance(argument, Fixed):
        return language.fixed(argument.value, argument.places)
    if isinstance(argument, Listing):
        return language.listing(
            [render(item, language) for item in argument.items], argument.joiner
        )
    if argument.plural is not None:
        template = language.ngettext(argument.template, argument.plural, argument.count)
    else:
        template = language.gettext(argument.template)
    if not argument.args:
        return template
    return template.format_map(
        {name: render(value, language) for name, value in argument.args.items()}
    )


def english(message: Message) -> str:
    """`message` in the service's own English."""
    return render(message, ENGLISH)


#: A message as a JSON document (`document`): its template, arguments, plural and count.
Document = dict[str, object]


def document(message: Message) -> Document:
    """`message` as a JSON document, in no language: what a stored round keeps of its summary
    (docs/languages.md#rounds-of-a-session), read back by `from_document`."""
    shown: Document = {"t": message.template}
    if message.args:
        shown["a"] = {name: _argument_document(value) for name, value in message.args.items()}
    if message.plural is not None:
        shown["p"] = message.plural
        shown["n"] = message.count
    return shown


def _argument_document(argument: Argument) -> object:
    if isinstance(argument, str | int):
        return argument
    if isinstance(argument, Message):
        return document(argument)
    if isinstance(argument, Listing):
        return {"l": [_argument_document(item) for item in argument.items], "j": argument.joiner}
    if isinstance(argument, Signed):
        return {"s": argument.value, "z": argument.bare_zero}
    if isinstance(argument, Percent):
        return {"%": argument.value}
    if isinstance(argument, Grouped):
        return {"g": argument.value}
    return {"f": argument.value, "d": argument.places}


class MalformedDocument(ValueError):
    """A stored document that is no message `document` writes."""


def from_document(found: object) -> Message:
    """The message `document` wrote; `MalformedDocument` for anything else."""
    if not isinstance(found, dict) or not isinstance(found.get("t"), str):
        raise MalformedDocument(found)
    args = found.get("a", {})
    if not isinstance(args, dict):
        raise MalformedDocument(found)
    plural = found.get("p")
    count = found.get("n", 0)
    if (plural is not None and not isinstance(plural, str)) or type(count) is not int:
        raise MalformedDocument(found)
    return Message(
        found["t"],
        {str(name): _argument_from(value) for name, value in args.items()},
        plural,
        count,
    )


_JOINERS: frozenset[object] = frozenset((", ", "; ", " ", "and", "and-each"))


def _argument_from(found: object) -> Argument:
    if isinstance(found, str) or type(found) is int:
        return found
    if not isinstance(found, dict):
        raise MalformedDocument(found)
    if "t" in found:
        return from_document(found)
    if "l" in found and isinstance(found["l"], list) and found.get("j") in _JOINERS:
        joiner: Joiner = found["j"]
        return Listing([_argument_from(item) for item in found["l"]], joiner)
    if type(found.get("s")) is int:
        return Signed(found["s"], found.get("z") is True)
    if type(found.get("g")) is int:
        return Grouped(found["g"])
    if isinstance(found.get("%"), int | float):
        return Percent(float(found["%"]))
    if isinstance(found.get("f"), int | float) and type(found.get("d")) is int:
        return Fixed(float(found["f"]), found["d"])
    raise MalformedDocument(found)
