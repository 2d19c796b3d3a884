"""Answers as chat messages: `text/plain` (the summary line) and `text/markdown` (for Discord).

Both are built from the JSON answer alone, after the fact, so they cost nothing to a caller
that asks for JSON (`respond` in app/api/common.py decides).

- Caller-chosen text (names, skills, reasons, dice annotations) never acts in chat: line
  breaks and other control characters become one space, and a zero-width space after every
  `@` and `<` breaks mentions (`@everyone`, `<@123>`, `<@&123>`, `<#123>`, custom emoji and
  timestamps). The markdown form escapes markdown too. The rules build the summary line with
  the names inside and put no markdown of their own in it, so the whole line is neutralised.
- The markdown message is the summary line, then every die of the answer, one line per
  `rolls` entry: `- Ann · success: 3d6 → 2, 3, 4`. A critical (the answer's own `critical`
  fields: GURPS, Cairn) is in bold; notation dice are shown with d20's breakdown, evaluated
  again from the logged values, with dropped dice struck through (`~~1~~`).
- A message stays within Discord's 2000 characters: a longer one is cut (the markdown at a
  line boundary, the one-line text at a word) and ends with a pointer to the JSON.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from app.notation import roll_notation

#: Discord's limit on one message, counted here in UTF-16 code units (as JavaScript counts a
#: string's length), which is never fewer than its characters.
MESSAGE_LIMIT: Final = 2000
TEXT_POINTER: Final = " … (shortened: ask for application/json for the whole answer)"
MARKDOWN_POINTER: Final = "… (shortened: ask for application/json for every die)"

ZERO_WIDTH_SPACE: Final = "\u200b"
#: Line breaks and other control characters (C0, DEL, C1, the Unicode line and paragraph
#: separators), a run of them becoming one space.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
_MENTIONS = {"@": "@" + ZERO_WIDTH_SPACE, "<": "<" + ZERO_WIDTH_SPACE}
_PLAIN = str.maketrans(_MENTIONS)
_MARKDOWN = str.maketrans({**{char: "\\" + char for char in "\\*_~`|>#[]()"}, **_MENTIONS})
#: What makes a line a list item in Discord: `- x`, `+ x`, `1. x`.
_LIST_ITEM = re.compile(r"[-+]|\d+(?=\.)")
#: Dice a `rolls` entry shows as its values; anything else is dice notation.
_PLAIN_DICE = re.compile(r"\d*d\d+")
_ANNOTATION = re.compile(r"(\[[^\]]*\])")


def plain(text: str) -> str:
    """Caller-chosen text made safe for a one-line chat message: one line, no mentions."""
    return _CONTROLS.sub(" ", text).translate(_PLAIN)


def markdown(text: str) -> str:
    """Caller-chosen text made inert in markdown: one line, no mentions, markdown escaped."""
    escaped = _CONTROLS.sub(" ", text).translate(_MARKDOWN)
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


def units(text: str) -> int:
    """The length of `text` as Discord counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


# --- text/plain ------------------------------------------------------------------------------


def text_message(body: Mapping[str, Any]) -> str | None:
    """The answer's summary line, neutralised and within the limit; None without one."""
    summary = body.get("summary")
    if not isinstance(summary, str):
        return None
    line = plain(summary)
    if units(line) + 1 <= MESSAGE_LIMIT:
        return line + "\n"
    return _cut(line, MESSAGE_LIMIT - units(TEXT_POINTER) - 1) + TEXT_POINTER + "\n"


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
    rounds = body.get("rounds")
    if isinstance(rounds, list):
        for record in rounds:
            if isinstance(record, Mapping):
                if isinstance(record.get("summary"), str):
                    lines.append(markdown(record["summary"]))
                lines.extend(_dice_lines(record))
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


def _cut(line: str, budget: int) -> str:
    """The longest start of `line` within `budget` units, ending before a space if it can.

    Escapes and broken mentions hold no space, so cutting at one never splits them.
    """
    cut = line[:budget]
    while units(cut) > budget:
        # Each character dropped takes away one unit or two.
        cut = cut[: len(cut) - (units(cut) - budget)]
    if len(cut) < len(line) and line[len(cut)] != " ":
        space = cut.rfind(" ")
        if space > 0:
            cut = cut[:space]
    return cut.rstrip()
