"""A summary's message as a JSON document (`document`, `from_document` in
app/rules/messages.py), as a stored round keeps it (docs/languages.md#rounds-of-a-session):
every kind of argument survives a trip through JSON, and anything else is refused."""

from __future__ import annotations

import json

import pytest

from app.rules.messages import (
    Fixed,
    Grouped,
    Listing,
    MalformedDocument,
    Message,
    Percent,
    Signed,
    document,
    english,
    from_document,
    m,
    ng,
    term,
)

#: Every kind of argument, nested: the English written out by hand.
EVERY_KIND = m(
    "Round {number}: {line}",
    number=12,
    line=ng(
        "{who} earned {count} token ({chance}, {mean}, {moved}, {still}, {budget}): {what}",
        "{who} earned {count} tokens ({chance}, {mean}, {moved}, {still}, {budget}): {what}",
        2,
        who=Listing(["Ann", term("the guard"), "Bo"], "and"),
        chance=Percent(0.7412),
        mean=Fixed(3.456),
        moved=Signed(-3),
        still=Signed(0, bare_zero=True),
        budget=Grouped(1_000_000),
        what=Listing([m("{a} vs {b}", a="x", b=Signed(4)), "y"], "; "),
    ),
)
EVERY_KIND_EN = (
    "Round 12: Ann, the guard and Bo earned 2 tokens (74.1%, 3.46, -3, 0, 1,000,000): x vs +4; y"
)


def test_every_kind_of_argument_survives_json() -> None:
    assert english(EVERY_KIND) == EVERY_KIND_EN
    stored = json.loads(json.dumps(document(EVERY_KIND)))
    assert english(from_document(stored)) == EVERY_KIND_EN
    # The same document again: nothing is lost on the way.
    assert document(from_document(stored)) == stored


def test_a_plain_message_is_its_template() -> None:
    assert document(Message("Nothing to play.")) == {"t": "Nothing to play."}
    assert english(from_document({"t": "Nothing to play."})) == "Nothing to play."


@pytest.mark.parametrize(
    "stored",
    [
        None,
        "Round 1",
        [],
        {"template": "x"},
        {"t": 1},
        {"t": "{a}", "a": []},
        {"t": "{a}", "a": {"a": []}},
        {"t": "{a}", "a": {"a": {"l": "x", "j": ", "}}},
        {"t": "{a}", "a": {"a": {"l": [], "j": " or "}}},
        {"t": "{a}", "a": {"a": {"s": "1"}}},
        {"t": "{a}", "a": {"a": {"f": 1.5}}},
        {"t": "{a}", "a": {"a": True}},
        {"t": "{count}", "p": 2, "n": 1},
        {"t": "{count}", "p": "{count}s", "n": "1"},
    ],
)
def test_anything_else_is_refused(stored: object) -> None:
    with pytest.raises(MalformedDocument):
        from_document(stored)
