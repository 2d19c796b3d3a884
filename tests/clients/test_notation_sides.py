"""The sides a verifier reads from dice notation are the sides the service's evaluator rolls.

docs/verifiable-dice.md#dice-in-notation: a roll in notation lists each die's sides, and both
verifiers (the Python client's `notation_sides`/`sides_follow`, verify.js's `notationSides`/
`sidesFollow`) require them to follow from the notation. Hypothesis writes expressions of the
notation the service takes (terms, constants, arithmetic, parentheses, keep/drop, rerolls,
explosions, minimum/maximum, annotations) and the service's own evaluator (d20, `app.notation`)
rolls them with recorded draws: every list of sides it draws must pass both verifiers — an
honest roll is never refused — and, without rerolls or explosions, be exactly the list the
page's reading gives.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

from arbiter_client.verify import notation_sides, replay_sides, sides_follow
from hypothesis import given, settings
from hypothesis import strategies as st

from app.notation import NotationError, roll_notation
from tests.requirements import program

VERIFY_JS = Path(__file__).resolve().parents[2] / "app" / "table" / "assets" / "verify.js"

SIZES = st.sampled_from(["2", "3", "4", "6", "10", "%"])


@st.composite
def dice_term(draw: st.DrawFn) -> str:
    count = draw(st.sampled_from(["", "1", "2", "3", "4"]))
    term = f"{count}d{draw(SIZES)}"
    operations = draw(
        st.lists(
            st.sampled_from(
                [
                    "kh1",
                    "kl2",
                    "ph1",
                    "pl1",
                    "k2",
                    "p<2",
                    "ro1",
                    "rr1",
                    "rol1",
                    "ro>2",
                    "rah1",
                    "ra2",
                    "e3",
                    "e>3",
                    "eh1",
                    "mi2",
                    "ma3",
                    "rr<2",
                ]
            ),
            max_size=2,
        )
    )
    return term + "".join(operations)


def expression() -> st.SearchStrategy[str]:
    leaf = dice_term() | st.integers(min_value=0, max_value=9).map(str)
    return st.recursive(
        leaf,
        lambda inner: (
            st.tuples(inner, st.sampled_from(["+", "-", "*"]), inner).map(
                lambda parts: f"{parts[0]}{parts[1]}{parts[2]}"
            )
            | inner.map(lambda part: f"({part})")
            | inner.map(lambda part: f"{part} [fire]")
        ),
        max_leaves=4,
    )


def rolled(notation: str, seed: int) -> tuple[list[int], list[int]] | None:
    """The sides and values of every die the service's evaluator draws for `notation` (None:
    refused). Small dice, so that rerolls and explosions happen."""
    rng = random.Random(seed)
    drawn: list[int] = []
    values: list[int] = []

    def draw(sides: int) -> int:
        drawn.append(sides)
        values.append(rng.randint(1, sides))
        return values[-1]

    try:
        roll_notation(notation, draw)
    except NotationError:
        return None
    return drawn, values


JS = """
import { notationSides, replaySides, sidesFollow } from MODULE;
let text = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) text += chunk;
const out = JSON.parse(text).map(([notation, sides, values]) =>
  [notationSides(notation), sidesFollow(notation, sides), replaySides(notation, values)]);
process.stdout.write(JSON.stringify(out));
"""


@settings(max_examples=10, deadline=None)
@given(st.lists(st.tuples(expression(), st.integers(0, 2**32)), min_size=20, max_size=20))
def test_every_roll_the_service_makes_follows_from_its_notation(
    rolls: list[tuple[str, int]],
) -> None:
    cases: list[tuple[str, list[int], list[int]]] = []
    for notation, seed in rolls:
        found = rolled(notation, seed)
        if found is None:
            continue
        sides, values = found
        listed, exact = notation_sides(notation)
        assert sides_follow(notation, sides), (notation, sides)
        # Replayed with the values drawn, the notation rolls exactly the dice the service did.
        assert replay_sides(notation, values) == sides, (notation, values)
        if exact:
            assert sides == listed, notation
        cases.append((notation, sides, values))
    if not cases:
        return
    node = program("node", "install Node.js 20", called="Node.js (node)")
    ran = subprocess.run(
        [node, "--input-type=module", "-e", JS.replace("MODULE", json.dumps(VERIFY_JS.as_uri()))],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    answers = json.loads(ran.stdout)
    for (notation, sides, _values), (read, follows, replayed) in zip(cases, answers, strict=True):
        assert read == list(notation_sides(notation)), notation
        assert follows is True, notation
        assert replayed == sides, notation


def test_a_replay_needs_exactly_the_values_the_notation_rolls() -> None:
    assert replay_sides("2d6ro1", [1, 4, 3]) == [6, 6, 6]
    assert replay_sides("2d6ro1", [2, 4, 3]) is None  # a reroll that was not due
    assert replay_sides("2d6ro1", [1, 4]) is None  # one that was, missing
    assert replay_sides("1d6e6", [6, 6, 2]) == [6, 6, 6]
    assert replay_sides("1d4+1d6", [4, 6]) == [4, 6]


def test_sides_the_notation_does_not_roll_are_refused() -> None:
    assert not sides_follow("1d20", [52])
    assert not sides_follow("1d20", [1])
    assert not sides_follow("1d20", [])
    assert not sides_follow("2d4+1", [4, 6])
    assert not sides_follow("2d4+1", [4])
    assert not sides_follow("2d6ro1", [6])  # fewer dice than the terms roll
    assert not sides_follow("2d6ro1", [6, 6, 8])  # a die of sides it never writes
    assert sides_follow("2d6ro1", [6, 6, 6])
    assert sides_follow("1d4rr1+1d6", [4, 4, 4, 6])
