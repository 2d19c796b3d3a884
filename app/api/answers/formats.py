"""Answers as chat messages: `text/plain` (the summary line) and `text/markdown` (for Discord).

Both are built from the JSON answer alone, after the fact, so they cost nothing to a caller
that asks for JSON (`respond` in app/api/common.py decides).

- Caller-chosen text (names, skills, reasons, dice annotations) never acts in chat: line
  breaks and other control characters become one space; zero-width spaces and bidi controls
  (which make two names look alike, or reverse the rest of a line) are dropped, ZWJ and ZWNJ
  kept (names are refused such characters where they enter, app/api/schemas/common.py; this
  covers names stored before); and a zero-width space after every `@`, and after a `<` that
  opens Discord markup, breaks mentions (`@everyone`, `<@123>`, `<@&123>`, `<#123>`, custom
  emoji, timestamps, commands), so the service's own text (`lead <= 0`, `Bearer <token>`)
  carries none. The markdown form escapes markdown too. The rules build the summary line with
  the names inside and put no markdown of their own in it, so the whole line is neutralised.
- The markdown message is the summary line, then every die of the answer, one line per
  `rolls` entry: `- Ann · success: 3d6 → 2, 3, 4`, then a round's card as one quoted line
  (`> Lydia 1d20+2 = **19** · Ogre 1d20+6 = **14** → Lydia +5 (DS 5)`). A critical (the
  answer's own `critical` fields: GURPS, Cairn) is in bold; notation dice are shown with
  d20's breakdown, evaluated again from the logged values, with dropped dice struck through
  (`~~1~~`).
- A message stays within Discord's 2000 characters: a longer one is cut (the markdown at a
  line boundary, the one-line text at a word) and ends with a pointer to the JSON.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final, Literal, TypeVar, cast

from app.notation import roll_notation

#: Discord's limit on one message, counted here in UTF-16 code units (as JavaScript counts a
#: string's length), which is never fewer than its characters.
MESSAGE_LIMIT: Final = 2000
TEXT_POINTER: Final = " … (shortened: ask for application/json for the whole answer)"
MARKDOWN_POINTER: Final = "… (shortened: ask for application/json for every die)"

ZERO_WIDTH_SPACE: Final = "\u200b"
AnswerT = TypeVar("AnswerT", bound=Mapping[str, Any])
#: Line breaks and other control characters (C0, DEL, C1, the Unicode line and paragraph
#: separators), a run of them becoming one space.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
#: Zero-width spaces and bidi controls: the directional marks, embeddings, overrides and
#: isolates, the zero-width space, word joiner, byte order mark and Mongolian vowel separator.
#: Not ZWJ and ZWNJ (U+200C, U+200D), which emoji and many scripts' words need.
_UNSHOWN = re.compile("[\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]+")
#: `@`, and `<` opening Discord's markup (`<@…>`, `<#…>`, `<:…>`, `<a:…>`, `<t:…>`, `</…>`,
#: `<id:…>`; also with the markdown form's backslash before the mark), not already followed by
#: the zero-width space that breaks a mention.
_MENTION = re.compile(r"(@|<(?=\\?(?:[@#:/]|a:|t:|id:)))(?!\u200b)")
_MARKDOWN = str.maketrans({char: "\\" + char for char in "\\*_~`|>#[]()"})
#: What the one-line text form escapes: the marks that act inside a line (emphasis, strike,
#: code, spoilers); a line's brackets and parentheses are left as they read.
_INLINE_MARKUP = str.maketrans({char: "\\" + char for char in "\\*_~`|"})
#: What makes a line a list item in Discord: `- x`, `+ x`, `1. x`.
_LIST_ITEM = re.compile(r"[-+]|\d+(?=\.)")
#: Dice a `rolls` entry shows as its values; anything else is dice notation.
_PLAIN_DICE = re.compile(r"\d*d\d+")
_ANNOTATION = re.compile(r"(\[[^\]]*\])")


#: How an answer is written: JSON (the default), its summary line, or a markdown message.
Form = Literal["json", "text", "markdown"]
#: The media ranges that choose a form; any other range is ignored.
_RANGES: Final[dict[str, Form]] = {
    "application/json": "json",
    "application/*": "json",
    "*/*": "json",
    "text/plain": "text",
    "text/markdown": "markdown",
}
#: Between ranges of one form, the most specific decides its quality.
_SPECIFICITY: Final = {"*/*": 0, "application/*": 1}


def preferred_form(accept: str | None) -> Form:
    """The form `Accept` prefers: the highest quality, the first listed among equals.

    JSON unless a text form is named: a header without `text/` (none, `*/*`, JSON) is decided
    by one substring test, as every JSON request pays it (so the text forms are recognised
    written in lower case, as clients send them).
    """
    if accept is None or "text/" not in accept:
        return "json"
    return _negotiate(accept)


def weight(parameters: Sequence[str]) -> float:
    """The weight (`q`, RFC 9110 §12.4.2) among a range's parameters in an Accept or
    Accept-Language header: 1 when absent, clamped to 0 to 1, 0 when it is no number (the
    last `q` counts)."""
    quality = 1.0
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "q":
            try:
                quality = min(max(float(value), 0.0), 1.0)
            except ValueError:
                quality = 0.0
    return quality


@functools.lru_cache(maxsize=256)
def _negotiate(accept: str) -> Form:
    # Per form: (quality, specificity of the range that set it, position of that range).
    found: dict[Form, tuple[float, int, int]] = {}
    for position, media_range in enumerate(accept.split(",")):
        media_type, *parameters = media_range.split(";")
        media_type = media_type.strip().lower()
        form = _RANGES.get(media_type)
        if form is None:
            continue
        quality = weight(parameters)
        specificity = _SPECIFICITY.get(media_type, 2)
        if form not in found or specificity > found[form][1]:
            found[form] = (quality, specificity, position)
    acceptable = [(-quality, position, form) for form, (quality, _, position) in found.items()]
    best = min((choice for choice in acceptable if choice[0] < 0), default=None)
    return "json" if best is None else best[2]


def plain(text: str) -> str:
    """Caller-chosen text made safe for a one-line chat message: one line, no mentions (and
    the same text again, made safe twice)."""
    # Most lines need nothing: a printable line (no control or line separator; isprintable is
    # false for every character `_CONTROLS` and `_UNSHOWN` match) without `@` or `<` is
    # returned as it is, which spares every answer's summary three regular-expression passes.
    if text.isprintable() and "@" not in text and "<" not in text:
        return text
    # Dropped first: a mention split by a zero-width space of the caller's is broken anew.
    visible = _UNSHOWN.sub("", text)
    return _MENTION.sub("\\1" + ZERO_WIDTH_SPACE, _CONTROLS.sub(" ", visible))


def postable(answer: AnswerT) -> AnswerT:
    """An answer whose `summary` lines (its own, its session's, its round's and its rounds')
    may be posted to a chat as they are: `plain`. In place (an answer is a dict of this
    request's own); the answer is returned."""
    body = cast(dict[str, Any], answer)
    summary = body.get("summary")
    if type(summary) is str:
        body["summary"] = plain(summary)
    for part in ("session", "round"):
        nested = body.get(part)
        if type(nested) is dict:
            postable(nested)
    rounds = body.get("rounds")
    if type(rounds) is list:
        for played in rounds:
            if type(played) is dict:
                postable(played)
    return answer


def one_line(text: str) -> str:
    """Text for the one-line form (`text/plain`): `plain`, and the marks that would act in
    a line escaped (`**bold**`, `||spoiler||`, `~~strike~~`, `` `code` ``)."""
    return plain(text.translate(_INLINE_MARKUP))


def markdown(text: str) -> str:
    """Caller-chosen text made inert in markdown: one line, no mentions, markdown escaped."""
    escaped = plain(_CONTROLS.sub(" ", text).translate(_MARKDOWN))
    item = _LIST_ITEM.match(escaped)
    if item is None:
        return escaped
    if item.group() in "-+":
        return "\\" + escaped
    return f"{escaped[: item.end()]}\\{escaped[item.end() :]}"


def markdown_breakdown(breakdown: str) -> str:
    """d20's breakdown with its markup (`~~dropped~~`) kept and its annotations escaped.

    Outside `[annotations]` a breakdown holds only what d20 writes from the parsed notation
    (numbers, dice, operators, parentheses, `~~`), never caller text; of it only the `*` of a
    product could read as emphasis.
    """
    parts = _ANNOTATION.split(breakdown)
    return "".join(
        markdown(part) if index % 2 else part.replace("*", "\\*")
        for index, part in enumerate(parts)
    )


def one_line_breakdown(breakdown: str) -> str:
    """d20's breakdown for the one-line form: its marks (`~~dropped~~`) kept, the text of
    its `[annotations]` (a caller's) made safe as `one_line` makes it."""
    parts = _ANNOTATION.split(breakdown)
    return "".join(one_line(part) if index % 2 else plain(part) for index, part in enumerate(parts))


def units(text: str) -> int:
    """The length of `text` as Discord counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


# --- text/plain ------------------------------------------------------------------------------


def text_message(body: Mapping[str, Any]) -> str | None:
    """The answer's summary line, neutralised and within the limit; None without one."""
    summary = body.get("summary")
    if not isinstance(summary, str):
        return None
    # A notation roll's summary is its breakdown: d20's own marks kept, its annotations not.
    line = one_line_breakdown(summary) if summary == body.get("breakdown") else one_line(summary)
    if units(line) + 1 <= MESSAGE_LIMIT:
        return line + "\n"
    return _cut(line, MESSAGE_LIMIT - units(TEXT_POINTER) - 1) + TEXT_POINTER + "\n"


def error_message(form: Form, detail: str) -> str:
    """An error's detail as a one-line chat message of `form` (its status says the rest),
    made safe as a summary line is in that form."""
    line = markdown(detail) if form == "markdown" else one_line(detail)
    if units(line) + 1 > MESSAGE_LIMIT:
        line = _cut(line, MESSAGE_LIMIT - 1)
    return line + "\n"


# --- text/markdown ---------------------------------------------------------------------------


def markdown_message(body: Mapping[str, Any]) -> str | None:
    """The answer as a Discord message: summary line, then its dice; None when it has neither.

    A round's answer shows the round's dice; a resolve's answer (and a page of rounds) shows
    each round it carries with its own summary and dice.
    """
    lines: list[str] = []
    summary = body.get("summary")
    breakdown = body.get("breakdown")
    if isinstance(summary, str):
        # A notation roll's summary is its breakdown, which is also its one `rolls` entry.
        if summary == breakdown:
            lines.append(markdown_breakdown(summary))
        else:
            lines.append(markdown(summary))
    if breakdown is None:
        lines.extend(_dice_lines(body))
    played = body.get("round")
    if isinstance(played, Mapping):
        lines.extend(_dice_lines(played))
        lines.extend(_card_lines(played))
    rounds = body.get("rounds")
    if isinstance(rounds, list):
        for record in rounds:
            if isinstance(record, Mapping):
                if isinstance(record.get("summary"), str):
                    lines.append(markdown(record["summary"]))
                lines.extend(_dice_lines(record))
                lines.extend(_card_lines(record))
    if not lines:
        return None
    return _shortened(lines)


def _dice_lines(record: Mapping[str, Any]) -> Iterator[str]:
    rolls = record.get("rolls")
    if not isinstance(rolls, list) or not rolls:
        return
    entries = [entry for entry in rolls if isinstance(entry, Mapping)]
    criticals = _criticals(record)
    # A critical is the critical die's own when the answer has one (Cairn), else the roll's
    # (a GURPS success roll).
    judged_by_own_die = {
        entry.get("who") for entry in entries if entry.get("purpose") == "critical"
    }
    for entry in entries:
        who = entry.get("who")
        critical = criticals.get(who)
        if who in judged_by_own_die and entry.get("purpose") != "critical":
            critical = None
        yield _dice_line(entry, critical)


def _card_lines(record: Mapping[str, Any]) -> Iterator[str]:
    """A round's cards (app/api/answers/cards.py), each as one quoted line: the card's own
    `text`, in the request's language as the service worded it for every surface
    (`> Lydia 1d20+2 = 19 vs Ogre 1d20+6 = 14 → Lydia +5 (DS 5)`)."""
    cards = record.get("cards")
    if not isinstance(cards, list):
        return
    for card in cards:
        if isinstance(card, Mapping) and isinstance(card.get("text"), str) and card["text"]:
            yield "> " + markdown(card["text"])


def _criticals(record: Mapping[str, Any]) -> dict[str | None, str]:
    """Who rolled a critical, from the answer's `critical` fields: the roll's own (who is
    None) and each named competitor's (`a`, `b`, `attacker`, `defender`)."""
    found: dict[str | None, str] = {}
    own = record.get("critical")
    if isinstance(own, str):
        found[None] = own
    for value in record.values():
        if isinstance(value, Mapping):
            critical, name = value.get("critical"), value.get("name")
            if isinstance(critical, str) and isinstance(name, str):
                found[name] = critical
    return found


def _dice_line(entry: Mapping[str, Any], critical: str | None) -> str:
    who = entry.get("who")
    label = markdown(str(entry.get("purpose", "")))
    if isinstance(who, str):
        label = f"{markdown(who)} · {label}"
    dice = str(entry.get("dice", ""))
    values = [value for value in entry.get("values", ()) if isinstance(value, int)]
    if _PLAIN_DICE.fullmatch(dice):
        shown = ", ".join(map(str, values))
        rolled = f"{dice} → **{shown}**" if critical else f"{dice} → {shown}"
    else:
        rolled = _notation_breakdown(dice, values)
        if critical:
            rolled = f"**{rolled}**"
    if critical:
        rolled += f" (critical {markdown(critical)})"
    return f"- {label}: {rolled}"


def _notation_breakdown(expr: str, values: Sequence[int]) -> str:
    """d20's breakdown of `expr` rolled again with its logged dice, in the order drawn."""
    drawn = iter(values)

    def draw(sides: int) -> int:
        value = next(drawn)
        if not 1 <= value <= sides:
            raise ValueError(value)
        return value

    try:
        return markdown_breakdown(roll_notation(expr, draw).breakdown)
    except Exception:
        # Stored dice that no longer evaluate (never expected): show them as they are.
        return f"{markdown(expr)} → {', '.join(map(str, values))}"


# --- the limit -------------------------------------------------------------------------------


def _shortened(lines: list[str]) -> str:
    message = "\n".join(lines) + "\n"
    if units(message) <= MESSAGE_LIMIT:
        return message
    budget = MESSAGE_LIMIT - units(MARKDOWN_POINTER) - 1
    kept: list[str] = []
    used = 0
    for line in lines:
        used += units(line) + 1
        if used > budget:
            break
        kept.append(line)
    if not kept:
        kept.append(_cut(lines[0], budget - 1))
    return "\n".join((*kept, MARKDOWN_POINTER)) + "\n"


#: What a shortened line keeps of its end (where a summary says its outcome and total).
KEPT_END: Final = 300
ELLIPSIS: Final = " … "


def _cut(line: str, budget: int) -> str:
    """`line` within `budget` units: its start and its end (`KEPT_END`, where the outcome and
    total are), the middle left out, each cut before a space if it can.

    Escapes and broken mentions hold no space, so cutting at one never splits them.
    """
    if units(line) <= budget:
        return line
    tail = _end(line, min(KEPT_END, budget // 2))
    return _start(line, budget - units(tail) - units(ELLIPSIS)) + ELLIPSIS + tail


def _end(line: str, budget: int) -> str:
    """The longest end of `line` within `budget` units, starting after a space if it can."""
    end = line[-budget:] if budget else ""
    while units(end) > budget:
        end = end[units(end) - budget :]
    if len(end) < len(line) and line[-len(end) - 1] != " ":
        space = end.find(" ")
        if 0 <= space < len(end) - 1:
            end = end[space + 1 :]
    return end.lstrip()


def _start(line: str, budget: int) -> str:
    """The longest start of `line` within `budget` units, ending before a space if it can."""
    cut = line[:budget]
    while units(cut) > budget:
        # Each character dropped takes away one unit or two.
        cut = cut[: len(cut) - (units(cut) - budget)]
    if len(cut) < len(line) and line[len(cut)] != " ":
        space = cut.rfind(" ")
        if space > 0:
            cut = cut[:space]
    return cut.rstrip()
